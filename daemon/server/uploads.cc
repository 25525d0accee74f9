#include "server/uploads.h"

#include <fcntl.h>
#include <kj/debug.h>
#include <spdlog/spdlog.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "transport/rpc_errors.h"

namespace hnow::daemon {

namespace {

std::atomic<std::uint64_t> uploadNumber{1};

// One upload under way: bytes appended to a temp file, renamed and shelved
// once whole; removed if the client goes before done().
class UploadSink final : public wire::Upload::Server {
 public:
  UploadSink(std::weak_ptr<UploadShelf> shelf, int fd, std::string temp, std::uint64_t expected)
      : shelf_(std::move(shelf)), fd_(fd), temp_(std::move(temp)), expected_(expected) {}
  ~UploadSink() {
    if (fd_ >= 0) ::close(fd_);
    if (!done_) ::unlink(temp_.c_str());
  }

 protected:
  kj::Promise<void> write(WriteContext context) override {
    auto bytes = context.getParams().getBytes();
    KJ_REQUIRE(!done_, "the upload is done already");
    KJ_REQUIRE(bytes.size() <= kUploadWriteBytes, "an upload's write is at most 256 KiB");
    if (expected_ > 0 && written_ + bytes.size() > expected_)
      transport::refuse("the upload is longer than the " + std::to_string(expected_) + " bytes announced");
    // A stream of unknown length: the disk keeps its reserve, checked every 64 MiB.
    if (expected_ == 0 && (written_ >> 26) != ((written_ + bytes.size()) >> 26)) {
      auto free = freeBytes(temp_.substr(0, temp_.rfind('/')));
      if (free && *free < kUploadReserveBytes)
        transport::refuse("hnowd's disk keeps less than 1 GiB free: the upload stops at " +
                          std::to_string(written_) + " bytes");
    }
    for (std::size_t done = 0; done < bytes.size();) {
      const ssize_t n = ::write(fd_, bytes.begin() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) transport::refuse(std::string("hnowd cannot write the upload: ") + std::strerror(errno));
      done += static_cast<std::size_t>(n);
    }
    written_ += bytes.size();
    return kj::READY_NOW;
  }

  kj::Promise<void> done(DoneContext context) override {
    KJ_REQUIRE(!done_, "the upload is done already");
    if (expected_ > 0 && written_ != expected_)
      transport::refuse("the upload ended at " + std::to_string(written_) + " of the " + std::to_string(expected_) +
                        " bytes announced (the file changed while it was read?)");
    auto shelf = shelf_.lock();
    if (!shelf) transport::refuse("the session that began the upload is gone");
    const std::string path = temp_.substr(0, temp_.size() - std::string(".part").size()) + ".upload";
    ::close(fd_);
    fd_ = -1;
    if (::rename(temp_.c_str(), path.c_str()) != 0)
      transport::refuse(std::string("hnowd cannot keep the upload: ") + std::strerror(errno));
    done_ = true;
    auto results = context.getResults();
    results.setId(shelf->shelve(path));
    results.setSize(written_);
    return kj::READY_NOW;
  }

 private:
  std::weak_ptr<UploadShelf> shelf_;
  int fd_;
  std::string temp_;
  std::uint64_t expected_;
  std::uint64_t written_ = 0;
  bool done_ = false;
};

}  // namespace

Result<std::uint64_t> freeBytes(const std::string& dir) {
  struct statvfs info {};
  if (::statvfs(dir.c_str(), &info) != 0) return Error{"cannot read the free space of " + dir + ": " + std::strerror(errno)};
  return static_cast<std::uint64_t>(info.f_bavail) * info.f_frsize;
}

UploadShelf::~UploadShelf() {
  for (const auto& [id, path] : whole_) ::unlink(path.c_str());
}

Result<kj::Own<wire::Upload::Server>> UploadShelf::begin(std::uint64_t size) {
  if (dir_.empty()) return Error{"this hnowd takes no uploads"};
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) return Error{"hnowd cannot create " + dir_ + " for uploads: " + error.message()};
  auto free = freeBytes(dir_);
  if (!free) return free.error();
  if (*free < size + kUploadReserveBytes)
    return Error{"hnowd's disk has " + std::to_string(*free >> 20) + " MiB free; an upload of " +
                 std::to_string(size >> 20) + " MiB would leave less than 1 GiB (free some space in " + dir_ + ")"};
  const std::string temp = dir_ + "/" + std::to_string(::getpid()) + "-" + std::to_string(uploadNumber++) + ".part";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Error{"hnowd cannot create " + temp + ": " + std::strerror(errno)};
  return kj::Own<wire::Upload::Server>(kj::heap<UploadSink>(weak_from_this(), fd, temp, size));
}

std::uint64_t UploadShelf::shelve(std::string path) {
  const std::uint64_t id = next_++;
  whole_[id] = std::move(path);
  return id;
}

std::optional<std::string> UploadShelf::take(std::uint64_t id) {
  auto it = whole_.find(id);
  if (it == whole_.end()) return std::nullopt;
  std::string path = std::move(it->second);
  whole_.erase(it);
  return path;
}

std::size_t sweepUploads(const std::string& dir) {
  std::error_code error;
  std::size_t removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const auto ext = entry.path().extension();
    if ((ext == ".upload" || ext == ".part") && std::filesystem::remove(entry.path(), error)) ++removed;
  }
  return removed;
}

}  // namespace hnow::daemon
