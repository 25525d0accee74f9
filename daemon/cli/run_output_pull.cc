// The client pulls like any receiver of the data plane
// (transport/data/data_plane.h): one operation, from one parent, hnowd.
#include "cli/run_output_pull.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "base/clock.h"
#include "transport/data/data_plane.h"

namespace hnow::cli {

namespace {

using transport::data::TransferEvent;

// No byte of the result for this long: hnowd's data plane is out of reach.
constexpr auto kQuietLimit = std::chrono::seconds(30);
// A connection that ends mid-way is dialed again, resuming after the bytes held.
constexpr int kRedials = 3;

// The data plane's events, handed from its thread to the waiting client.
class Events {
 public:
  void push(TransferEvent e) {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(std::move(e));
    ready_.notify_one();
  }
  std::optional<TransferEvent> next(std::chrono::seconds within) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!ready_.wait_for(lock, within, [this] { return !events_.empty(); })) return std::nullopt;
    TransferEvent e = std::move(events_.front());
    events_.pop_front();
    return e;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<TransferEvent> events_;
};

// The data plane's log (spdlog's default logger, on stdout) goes to stderr
// while the plane lives, its warnings only: stdout carries the result.
class PlaneLogAside {
 public:
  PlaneLogAside() : before_(spdlog::default_logger()) {
    auto aside = std::make_shared<spdlog::logger>("hnow-result", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    aside->set_level(spdlog::level::warn);
    spdlog::set_default_logger(aside);
  }
  ~PlaneLogAside() { spdlog::set_default_logger(before_); }
  PlaneLogAside(const PlaneLogAside&) = delete;
  PlaneLogAside& operator=(const PlaneLogAside&) = delete;

 private:
  std::shared_ptr<spdlog::logger> before_;
};

// A private temp directory, removed with what it holds.
struct ScratchDir {
  std::string path;
  ~ScratchDir() {
    std::error_code error;
    if (!path.empty()) std::filesystem::remove_all(path, error);
  }
};

Result<void> copyOut(const std::string& path, std::FILE* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{"cannot read the result at " + path + ": " + std::strerror(errno)};
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      if (n < 0) return Error{"cannot read the result at " + path + ": " + std::strerror(errno)};
      break;
    }
    if (std::fwrite(buffer.data(), 1, static_cast<std::size_t>(n), out) != static_cast<std::size_t>(n)) {
      ::close(fd);
      return Error{"cannot write the result to its output"};
    }
  }
  std::fflush(out);
  return {};
}

}  // namespace

Result<void> pullRunOutput(CoordinatorClient& client, std::uint64_t id, std::FILE* out) {
  auto grant = client.grantOutput(id);
  if (!grant) return Error{"reading the result: " + grant.error().message};
  if (grant->size == 0) return {};
  if (grant->sha256.size() != 32) return Error{"reading the result: hnowd's SHA-256 of it is not 32 bytes"};
  transport::data::ChunkDigests digests;
  if (grant->digestChunkBytes != 0 && !digests.expect(grant->digestChunkBytes, grant->size, grant->pieceDigests))
    return Error{"reading the result: hnowd's chunk digests do not fit its size"};
  std::error_code error;
  ScratchDir scratch;
  {
    const std::string pattern = (std::filesystem::temp_directory_path(error) / "hnow-result-XXXXXX").string();
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    if (!::mkdtemp(name.data())) return Error{"cannot make a temp directory like " + pattern + ": " + std::strerror(errno)};
    scratch.path = name.data();
  }
  transport::data::ReceiveTarget target;
  target.dirFd = ::open(scratch.path.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  target.tempName = "result.part";
  target.finalName = "result";
  target.path = scratch.path + "/result";
  target.durable = false;  // copied out and removed at once
  target.fileFd = target.dirFd < 0 ? -1
                                   : ::openat(target.dirFd, target.tempName.c_str(),
                                              O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (target.fileFd < 0) {
    if (target.dirFd >= 0) ::close(target.dirFd);
    return Error{"cannot make a temp file in " + scratch.path + ": " + std::strerror(errno)};
  }
  transport::data::Sha256 sha{};
  std::copy(grant->sha256.begin(), grant->sha256.end(), sha.begin());
  auto events = std::make_shared<Events>();
  {
    PlaneLogAside log;  // outlives the plane and its thread
    SteadyClock clock;
    transport::data::DataPlane plane(clock, [events](TransferEvent e) { events->push(std::move(e)); });
    plane.receive(grant->token, grant->size, sha, std::move(target), std::move(digests));
    plane.pull(grant->token, grant->dataAddress);
    for (int redials = 0;;) {
      auto e = events->next(kQuietLimit);
      if (!e)
        return Error{"no byte of the result came from hnowd's data plane at " + grant->dataAddress +
                     " for 30 s: the client must reach hnowd's data port as well as its control port "
                     "(docs/reachability.md)"};
      if (e->kind == TransferEvent::Kind::kDone) break;
      if (e->kind == TransferEvent::Kind::kProgress) continue;
      if (e->kind == TransferEvent::Kind::kParentLost && redials++ < kRedials) {
        plane.pull(grant->token, grant->dataAddress);
        continue;
      }
      return Error{"reading the result from hnowd's data plane at " + grant->dataAddress + ": " + e->message};
    }
  }
  return copyOut(scratch.path + "/result", out);
}

}  // namespace hnow::cli
