#include "transport/data/tree_held.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "transport/data/digest_cache.h"
#include "transport/data/file_digest.h"
#include "transport/data/tree_find.h"
#include "transport/data/tree_fs.h"
#include "transport/data/tree_walk.h"

namespace hnow::transport::data {

Holding holdingOf(int dirFd, const std::string& name, const TreeEntry& e) {
  struct stat info {};
  if (::fstatat(dirFd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(info.st_mode) ||
      static_cast<std::uint64_t>(info.st_size) != e.size)
    return Holding::kNot;
  if (mtimeNsOf(info) == e.mtimeNs) return Holding::kSame;
  if (!e.withSha256) return Holding::kSameSize;
  // O_NONBLOCK: should a fifo have taken the file's place, the open must not wait for a writer.
  const int fd = ::openat(dirFd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Holding::kNot;
  struct stat opened {}, after {};
  bool same = ::fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode) && opened.st_dev == info.st_dev &&
              opened.st_ino == info.st_ino && static_cast<std::uint64_t>(opened.st_size) == e.size;
  if (same) {
    auto digest = sha256OfFile(fd);
    same = digest && *digest == e.sha256 && ::fstat(fd, &after) == 0 && after.st_size == opened.st_size &&
           mtimeNsOf(after) == mtimeNsOf(opened);
  }
  ::close(fd);
  return same ? Holding::kSameBytes : Holding::kNot;
}

DestHolding destHolding(int dirFd, const std::string& name, std::uint64_t size, const Sha256* sha256) {
  struct stat info {};
  if (::fstatat(dirFd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? DestHolding::kAbsent : DestHolding::kOther;
  if (S_ISDIR(info.st_mode)) return DestHolding::kDirectory;
  if (!S_ISREG(info.st_mode) || static_cast<std::uint64_t>(info.st_size) != size) return DestHolding::kOther;
  if (!sha256) return DestHolding::kSameSize;
  // O_NONBLOCK: should a fifo have taken the file's place, the open must not wait for a writer.
  const int fd = ::openat(dirFd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return DestHolding::kOther;
  struct stat opened {};
  bool same = ::fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode) && static_cast<std::uint64_t>(opened.st_size) == size;
  if (same) {
    auto digest = rememberedSha256(fd);
    same = digest && *digest == *sha256;
  }
  ::close(fd);
  return same ? DestHolding::kSame : DestHolding::kOther;
}

Result<void> keepHeldFile(int dirFd, const std::string& name, const TreeEntry& e, Holding how) {
  if (how == Holding::kSameBytes) {
    const FileTimes t = mtimeOnly(e.mtimeNs);
    if (::utimensat(dirFd, name.c_str(), t.times, AT_SYMLINK_NOFOLLOW) != 0)
      return Error{std::string("cannot set its mtime: ") + std::strerror(errno)};
  }
  struct stat info {};
  if (::fstatat(dirFd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(info.st_mode))
    return Error{std::string(kHeldChanged)};
  if ((info.st_mode & 07777) == e.mode) return {};
  if (::fchmodat(dirFd, name.c_str(), e.mode, AT_SYMLINK_NOFOLLOW) == 0) return {};
  if (errno != EOPNOTSUPP && errno != ENOTSUP && errno != ENOSYS)
    return Error{std::string("cannot set its mode: ") + std::strerror(errno)};
  // glibc changes a mode without following through /proc; without it, an
  // fd of the file itself (O_NOFOLLOW: a symlink swapped in is refused).
  int fd = ::openat(dirFd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == EACCES) fd = ::openat(dirFd, name.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{std::string("cannot open it to set its mode: ") + std::strerror(errno)};
  Result<void> outcome;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) outcome = Error{std::string(kHeldChanged)};
  else if (::fchmod(fd, e.mode) != 0) outcome = Error{std::string("cannot set its mode: ") + std::strerror(errno)};
  ::close(fd);
  return outcome;
}

bool isHnowTempName(const std::string& name) {
  if (isTreeStagingName(name)) return true;
  // "." + a name + ".hnow-" + 16 hex digits + ".part"
  constexpr std::string_view kMarker = ".hnow-", kEnd = ".part";
  constexpr std::size_t kTail = kMarker.size() + 16 + kEnd.size();
  if (name.size() < kTail + 2 || name.front() != '.') return false;
  const std::size_t at = name.size() - kTail;
  if (name.compare(at, kMarker.size(), kMarker) != 0 || name.compare(name.size() - kEnd.size(), kEnd.size(), kEnd) != 0)
    return false;
  for (std::size_t i = at + kMarker.size(); i < name.size() - kEnd.size(); ++i) {
    const char c = name[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  }
  return true;
}

namespace {

// Not a single name (unpackTree would refuse it): -1, nothing is held.
int openTop(int parentFd, const std::string& name) {
  const bool single = !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
  return single ? ::openat(parentFd, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
}

HeldFiles missingUnder(const std::vector<TreeEntry>& entries, int topFd, ContentFinder& elsewhere);

}  // namespace

HeldFiles missingFiles(const std::vector<TreeEntry>& entries, int parentFd, const std::string& name, int searchFd) {
  const int topFd = openTop(parentFd, name);
  // Not at its path: the same bytes may be under another (a file renamed
  // or moved inside the tree, or elsewhere under the root), copied from
  // there when the tree is unpacked.
  ContentFinder elsewhere(searchFd >= 0 ? searchFd : topFd, searchFd >= 0 ? kMaxFilesSearched : SIZE_MAX);
  HeldFiles out = missingUnder(entries, topFd, elsewhere);
  if (topFd >= 0) ::close(topFd);
  return out;
}

HeldFiles missingFiles(const std::vector<TreeEntry>& entries, int parentFd, const std::string& name,
                       ContentFinder& elsewhere) {
  const int topFd = openTop(parentFd, name);
  HeldFiles out = missingUnder(entries, topFd, elsewhere);
  if (topFd >= 0) ::close(topFd);
  return out;
}

namespace {

HeldFiles missingUnder(const std::vector<TreeEntry>& entries, int topFd, ContentFinder& elsewhere) {
  HeldFiles out;
  DirWalk dirs(topFd);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const TreeEntry& e = entries[k];
    if (e.kind != TreeEntryKind::kFile) continue;
    Holding holding = Holding::kNot;
    if (topFd >= 0) {
      auto dirFd = dirs.open(dirName(e.path));
      if (dirFd) holding = holdingOf(*dirFd, std::string(baseName(e.path)), e);
    }
    if (holding == Holding::kNot && e.size > 0) {
      // With its digest: held if found. Without: a file of its size elsewhere asks for the digest.
      if (e.withSha256 ? elsewhere.find(e.size, e.sha256).has_value() : false) continue;
      if (!e.withSha256 && elsewhere.hasSize(e.size)) holding = Holding::kSameSize;
    }
    if (holding == Holding::kNot) out.missing.push_back(static_cast<std::uint32_t>(k));
    if (holding == Holding::kSameSize) out.sameSize.push_back(static_cast<std::uint32_t>(k));
  }
  return out;
}

}  // namespace

}  // namespace hnow::transport::data
