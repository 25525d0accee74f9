// The client's side of an upload (docs/tree-send.md, "From the client's
// machine"): the same transfer hnowd uses to take a job's result from an
// agent it cannot dial (transport/data/plane_offer.cc). The client dials
// hnowd's data port, presents the ticket hnowd granted over the
// authenticated control session, and serves the file over that
// connection; hnowd pulls it with its usual checks (each chunk's XXH3,
// the SHA-256 of what landed against the client's).
#include "cli/upload_offer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <memory>
#include <vector>

#include "base/clock.h"
#include "transport/data/data_plane.h"
#include "transport/data/file_digest.h"

namespace hnow::cli {

namespace {

// How long hnowd's data plane may take to answer the client's dial (its
// connect timeout, and the HELLO after it).
constexpr auto kOfferStartSeconds = std::chrono::seconds(30);

}  // namespace

Result<int> unlinkedTempFile() {
  std::error_code error;
  const std::string scratch = (std::filesystem::temp_directory_path(error) / "hnow-upload-XXXXXX").string();
  std::vector<char> name(scratch.begin(), scratch.end());
  name.push_back('\0');
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) return Error{std::string("cannot make a temp file in ") + scratch + ": " + std::strerror(errno)};
  ::unlink(name.data());
  return fd;
}

Result<int> spoolStandardInput() {
  auto fd = unlinkedTempFile();
  if (!fd) return fd.error();
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(*fd);
      return Error{std::string("cannot read standard input: ") + std::strerror(errno)};
    }
    if (n == 0) return fd;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(*fd, buffer.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        ::close(*fd);
        return Error{std::string("cannot keep standard input in a temp file (a full disk?): ") + std::strerror(errno)};
      }
      done += w;
    }
  }
}

Result<std::uint64_t> offerUpload(CoordinatorClient& client, int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return Error{"only a regular file can be uploaded"};
  const auto size = static_cast<std::uint64_t>(info.st_size);
  auto grant = client.grantUpload(size);
  if (!grant) return grant.error();
  // The file's SHA-256 taken while hnowd pulls it, not before: each is a
  // pass over the file's page cache (about a second a GiB on a busy CPU),
  // and hnowd hashes what lands at the same time, so the two are compared
  // once both are done. Joined on every return (the future's destructor).
  auto hashing = std::async(std::launch::async, [fd] { return transport::data::sha256OfFile(fd); });
  auto whole = [&]() -> Result<std::uint64_t> {
    auto sha = hashing.get();
    if (!sha) return sha.error();
    auto held = client.awaitUpload(grant->id, *sha);
    if (!held) return held.error();
    return grant->id;
  };
  if (size == 0) return whole();  // nothing to carry: hnowd holds the empty file already
  const int served = ::dup(fd);  // the plane's from now
  if (served < 0) return Error{std::string("cannot serve the file to hnowd: ") + std::strerror(errno)};
  SteadyClock clock;
  transport::data::DataPlane plane(clock, [](transport::data::TransferEvent) {});
  plane.addSource(grant->token, served, size);
  // Shared: the plane may still answer while it closes, after a timeout here.
  auto said = std::make_shared<std::promise<Result<void>>>();
  auto saying = said->get_future();
  plane.offer(grant->token, grant->ticket, grant->dataAddress,
              [said](const Result<void>& started) { said->set_value(started); });
  if (saying.wait_for(kOfferStartSeconds) != std::future_status::ready)
    return Error{"hnowd's data plane at " + grant->dataAddress + " did not answer within 30 s: the client must "
                 "reach hnowd's data port as well as its control port (docs/reachability.md)"};
  if (auto started = saying.get(); !started) return started.error();
  return whole();
}

}  // namespace hnow::cli
