#include "server/uploads.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "transport/auth.h"

namespace hnow::daemon {

namespace {

// Unique across the sessions of this hnowd (the pid keeps apart what an
// earlier one left, which sweepUploads removes at start).
std::atomic<std::uint64_t> uploadNumber{1};

}  // namespace

std::string freshUploadToken() {
  auto nonce = transport::freshNonce();
  return std::string(nonce.begin(), nonce.end());
}

Result<std::uint64_t> freeBytes(const std::string& dir) {
  struct statvfs info {};
  if (::statvfs(dir.c_str(), &info) != 0) return Error{"cannot read the free space of " + dir + ": " + std::strerror(errno)};
  return static_cast<std::uint64_t>(info.f_bavail) * info.f_frsize;
}

UploadShelf::~UploadShelf() {
  for (auto& [id, upload] : uploads_) {
    if (upload.whole) {
      ::unlink(upload.path.c_str());
      continue;
    }
    // The data plane removes the temp file of a receive it forgets.
    if (plane_) plane_->release(upload.token);
    for (const Whole& done : upload.waiting) done(Error{"the session that began the upload ended"});
  }
}

Result<UploadShelf::Grant> UploadShelf::begin(std::uint64_t size, const std::string& sha256) {
  if (dir_.empty() || !plane_) return Error{"this hnowd takes no uploads"};
  if (sha256.size() != 32) return Error{"an upload's SHA-256 is 32 bytes"};
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) return Error{"hnowd cannot create " + dir_ + " for uploads: " + error.message()};
  auto free = freeBytes(dir_);
  if (!free) return free.error();
  if (*free < size + kUploadReserveBytes)
    return Error{"hnowd's disk has " + std::to_string(*free >> 20) + " MiB free; an upload of " +
                 std::to_string(size >> 20) + " MiB would leave less than 1 GiB (free some space in " + dir_ + ")"};
  const std::uint64_t id = next_++;
  Upload& upload = uploads_[id];
  upload.path = dir_ + "/" + std::to_string(::getpid()) + "-" + std::to_string(uploadNumber++) + ".upload";
  upload.size = size;
  upload.token = freshToken_();
  Grant grant{id, upload.token, freshToken_()};
  if (size == 0) {  // nothing to carry: the empty file is whole at once
    const int fd = ::open(upload.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      uploads_.erase(id);
      return Error{"hnowd cannot create an upload in " + dir_ + ": " + std::strerror(errno)};
    }
    ::close(fd);
    upload.whole = true;
    return grant;
  }
  // The ticket, handed over this authenticated session alone, opens the
  // receive: a peer that has only the token cannot deliver the bytes.
  std::weak_ptr<UploadShelf> self = weak_from_this();
  plane_->receiveOffered(
      grant.token, grant.ticket, size, sha256, upload.path,
      [self, id](const std::string& why) {
        // The client's connection ended before the file was whole: it does
        // not dial again, so the upload fails (the client uploads anew).
        if (auto shelf = self.lock()) shelf->ended(id, Error{"the connection carrying the upload ended: " + why});
      },
      [self, id](const Result<std::string>& received) {
        if (auto shelf = self.lock()) shelf->ended(id, received);
      });
  return grant;
}

void UploadShelf::ended(std::uint64_t id, const Result<std::string>& received) {
  auto it = uploads_.find(id);
  if (it == uploads_.end() || it->second.whole) return;
  std::vector<Whole> waiting = std::move(it->second.waiting);
  const std::uint64_t size = it->second.size;
  if (received) {
    it->second.whole = true;
  } else {
    plane_->release(it->second.token);  // its temp file goes with it
    uploads_.erase(it);
  }
  for (const Whole& done : waiting) received ? done(size) : done(received.error());
}

void UploadShelf::whenWhole(std::uint64_t id, Whole done) {
  auto it = uploads_.find(id);
  if (it == uploads_.end()) return done(Error{"no upload " + std::to_string(id) + " of this session is under way"});
  if (it->second.whole) return done(it->second.size);
  it->second.waiting.push_back(std::move(done));
}

std::optional<std::string> UploadShelf::take(std::uint64_t id) {
  auto it = uploads_.find(id);
  if (it == uploads_.end() || !it->second.whole) return std::nullopt;
  std::string path = std::move(it->second.path);
  uploads_.erase(it);
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
