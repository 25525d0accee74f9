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
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "cli/progress_line.h"
#include "transport/data/data_plane.h"
#include "transport/data/file_digest.h"

namespace hnow::cli {

namespace {

// How long hnowd's data plane may take to answer the client's dial (its
// connect timeout, and the HELLO after it).
constexpr auto kOfferStartSeconds = std::chrono::seconds(30);
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The upload's progress line on a terminal, redrawn from the plane's count
// of bytes sent by a thread of its own: the client's thread waits meanwhile
// for hnowd to say it holds the file. Cleared when it goes, so the send's
// own lines start on an empty line.
class UploadProgress {
 public:
  UploadProgress(const transport::data::DataPlane& plane, std::uint64_t size) : line_(ProgressLine::onStderr()) {
    if (!line_.tty()) return;
    drawing_ = std::thread([this, &plane, size] {
      const auto start = std::chrono::steady_clock::now();
      RateWindow rate;
      std::unique_lock lock(mutex_);
      do {
        const std::uint64_t sent = std::min(plane.bytesSent(), size);
        rate.add(secondsSince(start), static_cast<double>(sent));
        line_.draw(uploadProgressText("uploading", sent, size, rate.perSecond()));
      } while (!stopped_.wait_for(lock, kRedrawEvery, [this] { return stop_; }));
    });
  }
  ~UploadProgress() {
    if (drawing_.joinable()) {
      {
        std::lock_guard lock(mutex_);
        stop_ = true;
      }
      stopped_.notify_one();
      drawing_.join();
    }
    line_.clear();
  }
  UploadProgress(const UploadProgress&) = delete;
  UploadProgress& operator=(const UploadProgress&) = delete;

 private:
  ProgressLine line_;
  std::mutex mutex_;
  std::condition_variable stopped_;
  bool stop_ = false;
  std::thread drawing_;
};

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
  // Its size is known only at its end: bytes read and their rate, no ETA.
  ProgressLine line = ProgressLine::onStderr();
  RateWindow rate;
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t read = 0;
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      line.clear();
      ::close(*fd);
      return Error{std::string("cannot read standard input: ") + std::strerror(errno)};
    }
    if (n == 0) {
      line.clear();
      return fd;
    }
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(*fd, buffer.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        line.clear();
        ::close(*fd);
        return Error{std::string("cannot keep standard input in a temp file (a full disk?): ") + std::strerror(errno)};
      }
      done += w;
    }
    read += static_cast<std::uint64_t>(n);
    rate.add(secondsSince(start), static_cast<double>(read));
    line.draw(uploadProgressText("reading standard input", read, std::nullopt, rate.perSecond()));
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
  UploadProgress progress(plane, size);
  return whole();
}

}  // namespace hnow::cli
