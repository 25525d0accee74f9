#include "transport/data/tree_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/printable.h"

namespace hnow::transport::data {

std::string_view baseName(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view dirName(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

void DirWalk::closeFrom(std::size_t depth) {
  while (open_.size() > depth) {
    ::close(open_.back().second);
    open_.pop_back();
  }
}

Result<int> DirWalk::open(std::string_view dir) {
  std::size_t depth = 0;
  std::size_t start = 0;
  while (start < dir.size()) {
    const std::size_t end = std::min(dir.find('/', start), dir.size());
    const std::string_view prefix = dir.substr(0, end);
    if (depth < open_.size() && open_[depth].first != prefix) closeFrom(depth);
    if (depth == open_.size()) {
      const int from = depth == 0 ? top_ : open_[depth - 1].second;
      const std::string name(dir.substr(start, end - start));
      const int fd = ::openat(from, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) {
        const int error = errno;
        return Error{"cannot open the directory \"" + printable(prefix) + "\": " +
                     (error == ELOOP || error == ENOTDIR ? "it is a symlink or not a directory"
                                                         : std::string(std::strerror(error)))};
      }
      open_.emplace_back(std::string(prefix), fd);
    }
    ++depth;
    start = end + 1;
  }
  closeFrom(depth);
  return depth == 0 ? top_ : open_.back().second;
}

Result<void> removeTree(int parentFd, const std::string& name) {
  if (::unlinkat(parentFd, name.c_str(), 0) == 0 || errno == ENOENT) return {};
  if (errno != EISDIR && errno != EPERM)
    return Error{"cannot remove \"" + printable(name) + "\": " + std::strerror(errno)};
  const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::openat(parentFd, name.c_str(), flags);
  if (fd < 0 && errno == EACCES && ::fchmodat(parentFd, name.c_str(), 0700, AT_SYMLINK_NOFOLLOW) == 0)
    fd = ::openat(parentFd, name.c_str(), flags);
  if (fd < 0) return Error{"cannot open \"" + printable(name) + "\" to remove it: " + std::strerror(errno)};
  struct stat info {};
  if (::fstat(fd, &info) == 0 && (info.st_mode & 0700) != 0700) ::fchmod(fd, (info.st_mode & 07777) | 0700);
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    ::close(fd);
    return Error{"cannot list \"" + printable(name) + "\" to remove it: " + std::strerror(errno)};
  }
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* e = ::readdir(dir)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
  }
  Result<void> outcome;
  for (const std::string& child : names) {
    auto removed = removeTree(::dirfd(dir), child);
    if (!removed && outcome) outcome = Error{printable(name) + "/" + removed.error().message};
  }
  ::closedir(dir);
  if (!outcome) return outcome;
  if (::unlinkat(parentFd, name.c_str(), AT_REMOVEDIR) != 0)
    return Error{"cannot remove the directory \"" + printable(name) + "\": " + std::strerror(errno)};
  return {};
}

FileTimes mtimeOnly(std::int64_t mtimeNs) {
  FileTimes t{};
  t.times[0].tv_sec = 0;
  t.times[0].tv_nsec = UTIME_OMIT;
  std::int64_t seconds = mtimeNs / 1'000'000'000, nanos = mtimeNs % 1'000'000'000;
  if (nanos < 0) nanos += 1'000'000'000, --seconds;
  t.times[1].tv_sec = static_cast<time_t>(seconds);
  t.times[1].tv_nsec = static_cast<long>(nanos);
  return t;
}

Result<void> setDirectoryMeta(int parentFd, const std::string& name, std::uint32_t mode, std::int64_t mtimeNs) {
  const int fd = ::openat(parentFd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Error{std::string("cannot open it to set its mode and mtime: ") + std::strerror(errno)};
  const FileTimes t = mtimeOnly(mtimeNs);
  Result<void> outcome;
  if (::fchmod(fd, mode) != 0) outcome = Error{std::string("cannot set its mode: ") + std::strerror(errno)};
  else if (::futimens(fd, t.times) != 0) outcome = Error{std::string("cannot set its mtime: ") + std::strerror(errno)};
  ::close(fd);
  return outcome;
}

}  // namespace hnow::transport::data
