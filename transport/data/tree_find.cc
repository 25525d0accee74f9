#include "transport/data/tree_find.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "transport/data/digest_cache.h"
#include "transport/data/tree_fs.h"
#include "transport/data/tree_held.h"

namespace hnow::transport::data {

namespace {

// Deeper than any tree a bundle may name: a loop of bind mounts, say, ends here.
constexpr int kMaxDepth = 256;

}  // namespace

bool ContentFinder::hasSize(std::uint64_t size) {
  walk();
  return bySize_.count(size) > 0;
}

std::optional<std::string> ContentFinder::find(std::uint64_t size, const Sha256& sha256) {
  walk();
  auto it = bySize_.find(size);
  if (it == bySize_.end()) return std::nullopt;
  DirWalk dirs(top_);
  for (const std::string& path : it->second) {
    auto known = digests_.find(path);
    if (known == digests_.end()) {
      std::optional<Sha256> digest;
      auto dirFd = dirs.open(dirName(path));
      const std::string name(baseName(path));
      // O_NONBLOCK: should a fifo have taken the file's place, the open must not wait for a writer.
      const int fd = dirFd ? ::openat(*dirFd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
      struct stat info {};
      if (fd >= 0 && ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) &&
          static_cast<std::uint64_t>(info.st_size) == size)
        if (auto read = rememberedSha256(fd)) digest = *read;
      if (fd >= 0) ::close(fd);
      known = digests_.emplace(path, digest).first;
    }
    if (known->second && *known->second == sha256) return path;
  }
  return std::nullopt;
}

void ContentFinder::walk() {
  if (walked_) return;
  walked_ = true;
  if (top_ < 0) return;
  const int fd = ::openat(top_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) walkDir(fd, "", 0);
}

// Takes `dirFd`, closed here.
void ContentFinder::walkDir(int dirFd, const std::string& prefix, int depth) {
  DIR* dir = ::fdopendir(dirFd);
  if (dir == nullptr) {
    ::close(dirFd);
    return;
  }
  std::vector<std::string> subdirs;
  while (listed_ < maxFiles_) {
    const dirent* d = ::readdir(dir);
    if (d == nullptr) break;
    const std::string name = d->d_name;
    if (name == "." || name == ".." || isHnowTempName(name)) continue;
    struct stat info {};
    if (::fstatat(::dirfd(dir), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISREG(info.st_mode) && info.st_size > 0) {
      bySize_[static_cast<std::uint64_t>(info.st_size)].push_back(prefix + name);
      ++listed_;
    }
    else if (S_ISDIR(info.st_mode) && depth < kMaxDepth)
      subdirs.push_back(name);
  }
  for (const std::string& name : subdirs) {
    if (listed_ >= maxFiles_) break;
    const int sub = ::openat(::dirfd(dir), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub >= 0) walkDir(sub, prefix + name + "/", depth + 1);
  }
  ::closedir(dir);
}

}  // namespace hnow::transport::data
