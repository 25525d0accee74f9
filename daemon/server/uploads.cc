#include "server/uploads.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "transport/data/chunk_digests.h"

namespace hnow::daemon {

namespace {

// Unique across the sessions of this hnowd (the pid keeps apart what an
// earlier one left, which sweepUploads removes at start).
std::atomic<std::uint64_t> uploadNumber{1};

}  // namespace


Result<std::uint64_t> freeBytes(const std::string& dir) {
  struct statvfs info {};
  if (::statvfs(dir.c_str(), &info) != 0) return Error{"cannot read the free space of " + dir + ": " + std::strerror(errno)};
  return static_cast<std::uint64_t>(info.f_bavail) * info.f_frsize;
}

UploadShelf::~UploadShelf() {
  for (auto& [id, upload] : uploads_) {
    if (upload.landed) ::unlink(upload.path.c_str());
    else if (plane_) plane_->release(upload.token);  // the data plane removes the temp file of a receive it forgets
    for (const Whole& done : upload.waiting) done(Error{"the session that began the upload ended"});
  }
}

Result<UploadShelf::Grant> UploadShelf::begin(std::uint64_t size) {
  if (dir_.empty() || !plane_) return Error{"this hnowd takes no uploads"};
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
  if (size == 0) {  // nothing to carry: the empty file is in place at once
    const int fd = ::open(upload.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      uploads_.erase(id);
      return Error{"hnowd cannot create an upload in " + dir_ + ": " + std::strerror(errno)};
    }
    ::close(fd);
    upload.landed = true;
    const auto empty = transport::data::sha256Of("");
    upload.landedSha256.assign(reinterpret_cast<const char*>(empty.data()), empty.size());
    return grant;
  }
  // The ticket, handed over this authenticated session alone, opens the
  // receive: a peer that has only the token cannot deliver the bytes. No
  // digest: the client's comes with whenWhole.
  std::weak_ptr<UploadShelf> self = weak_from_this();
  plane_->receiveOffered(
      grant.token, grant.ticket, size, "", upload.path,
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
  if (it == uploads_.end() || it->second.landed) return;
  if (!received) {
    plane_->release(it->second.token);  // its temp file goes with it
    return drop(id, received.error());
  }
  it->second.landed = true;
  // The digest taken as the bytes landed, remembered with the file's stamp
  // (transport/data/digest_cache.h): answered without reading the file.
  std::weak_ptr<UploadShelf> self = weak_from_this();
  plane_->hashFile(it->second.path, [self, id](const Result<SourceFile>& file) {
    auto shelf = self.lock();
    if (!shelf) return;
    auto at = shelf->uploads_.find(id);
    if (at == shelf->uploads_.end()) return;
    if (!file) return shelf->drop(id, Error{"hnowd cannot read the upload it received: " + file.error().message});
    at->second.landedSha256 = file->sha256;
    shelf->settle(id);
  });
}

void UploadShelf::settle(std::uint64_t id) {
  auto it = uploads_.find(id);
  if (it == uploads_.end() || it->second.whole) return;
  Upload& upload = it->second;
  if (upload.landedSha256.empty() || upload.claimedSha256.empty()) return;
  if (upload.landedSha256 != upload.claimedSha256)
    return drop(id, Error{"the bytes hnowd received differ from the client's file (SHA-256): did it change while "
                          "it was uploaded? Send it again"});
  upload.whole = true;
  for (const Whole& done : std::exchange(upload.waiting, {})) done(upload.size);
}

void UploadShelf::drop(std::uint64_t id, const Error& why) {
  auto it = uploads_.find(id);
  if (it == uploads_.end()) return;
  if (it->second.landed) ::unlink(it->second.path.c_str());
  std::vector<Whole> waiting = std::move(it->second.waiting);
  uploads_.erase(it);
  for (const Whole& done : waiting) done(why);
}

void UploadShelf::whenWhole(std::uint64_t id, const std::string& sha256, Whole done) {
  auto it = uploads_.find(id);
  if (it == uploads_.end()) return done(Error{"no upload " + std::to_string(id) + " of this session is under way"});
  if (sha256.size() != 32) return done(Error{"an upload's SHA-256 is 32 bytes"});
  Upload& upload = it->second;
  if (!upload.claimedSha256.empty() && upload.claimedSha256 != sha256)
    return done(Error{"upload " + std::to_string(id) + " was told another SHA-256 before"});
  if (upload.whole) return done(upload.size);
  upload.claimedSha256 = sha256;
  upload.waiting.push_back(std::move(done));
  settle(id);
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
