// unpackTree (tree_bundle.h): the bundle is written out whole into a
// staging directory beside the destination, synced once, then published
// (tree_publish.h for the entry-by-entry way). Every write goes through a
// directory fd opened component by component without following symlinks,
// and the index was checked (decodeTreeIndex) to hold no entry under a
// symlink, so nothing lands outside the staging or `name`. Held files
// (tree_held.h) are checked where `name` holds them: kept in place, or,
// atomic, copied from there into the staging.
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include <spdlog/spdlog.h>

#include "base/printable.h"
#include "transport/data/file_digest.h"
#include "transport/data/tree_bundle.h"
#include "transport/data/tree_fs.h"
#include "transport/data/tree_held.h"
#include "transport/data/tree_publish.h"
#include "transport/data/tree_walk.h"

namespace hnow::transport::data {

namespace {

// Removes the staging directory `staging`; what cannot be removed now the
// agent's startup sweep removes (isTreeStagingName), so it is only logged.
void dropStaging(int parentFd, const std::string& staging, const std::string& displayPath) {
  if (auto removed = removeTree(parentFd, staging); !removed)
    spdlog::warn("cannot remove {}/{}: {}", displayPath, printable(staging), removed.error().message);
}

// `.NAME.hnow-stage-<16 hex>`, NAME cut so the whole fits in 255 bytes.
std::string stagingNameFor(const std::string& name) {
  unsigned long long random = 0;
  if (::getrandom(&random, sizeof random, 0) != sizeof random) random ^= static_cast<unsigned long long>(::getpid());
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", random);
  return "." + name.substr(0, kMaxTreeNameBytes - 29) + ".hnow-stage-" + hex;
}

// `size` bytes of the bundle from `offset` into `outFd` (new and empty):
// copy_file_range, so a filesystem that can shares or copies the blocks
// itself; plain reads and writes where it cannot.
Result<void> copyBytes(int bundleFd, std::uint64_t offset, std::uint64_t size, int outFd) {
  std::uint64_t done = 0;
  bool plain = false;
  while (done < size && !plain) {
    loff_t in = static_cast<loff_t>(offset + done), out = static_cast<loff_t>(done);
    const ssize_t n = ::copy_file_range(bundleFd, &in, outFd, &out, std::min<std::uint64_t>(size - done, 1 << 30), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) plain = true;
    else if (n < 0) return Error{std::strerror(errno)};
    else if (n == 0) return Error{"the bundle ends before its bytes"};
    else done += static_cast<std::uint64_t>(n);
  }
  std::vector<char> buffer(plain ? std::min<std::uint64_t>(size - done, 1 << 20) : 0);
  while (done < size) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - done));
    const ssize_t n = ::pread(bundleFd, buffer.data(), want, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("cannot read the bundle: ") + std::strerror(errno)};
    if (n == 0) return Error{"the bundle ends before its bytes"};
    for (ssize_t written = 0; written < n;) {
      const ssize_t w = ::pwrite(outFd, buffer.data() + written, static_cast<std::size_t>(n - written),
                                 static_cast<off_t>(done + static_cast<std::uint64_t>(written)));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return Error{std::strerror(errno)};
      written += w;
    }
    done += static_cast<std::uint64_t>(n);
  }
  return {};
}

// One entry written in the staging directory (its directory already there).
Result<void> writeEntry(int bundleFd, int dirFd, const TreeEntry& e) {
  const std::string name(baseName(e.path));
  const FileTimes t = mtimeOnly(e.mtimeNs);
  if (e.kind == TreeEntryKind::kDirectory) {
    // 0700 until its mode is set, after what goes inside it.
    if (::mkdirat(dirFd, name.c_str(), 0700) != 0) return Error{std::strerror(errno)};
    return {};
  }
  if (e.kind == TreeEntryKind::kSymlink) {
    if (::symlinkat(e.target.c_str(), dirFd, name.c_str()) != 0) return Error{std::strerror(errno)};
    if (::utimensat(dirFd, name.c_str(), t.times, AT_SYMLINK_NOFOLLOW) != 0)
      return Error{std::string("cannot set its mtime: ") + std::strerror(errno)};
    return {};
  }
  const int fd = ::openat(dirFd, name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Error{std::strerror(errno)};
  Result<void> outcome = copyBytes(bundleFd, e.offset, e.size, fd);
  if (outcome && ::fchmod(fd, e.mode) != 0) outcome = Error{std::string("cannot set its mode: ") + std::strerror(errno)};
  if (outcome && ::futimens(fd, t.times) != 0)
    outcome = Error{std::string("cannot set its mtime: ") + std::strerror(errno)};
  ::close(fd);
  return outcome;
}

// The held entry `e` copied from the tree `held` holds (nullptr: none)
// into the staging directory `dirFd`, and checked: the source kept the
// entry's size and mtime all along, or the copy has the SHA-256 it lists.
Result<void> copyHeld(DirWalk* held, int dirFd, const TreeEntry& e) {
  const std::string again(kHeldChanged);
  if (held == nullptr) return Error{"this agent no longer holds it: " + again};
  auto from = held->open(dirName(e.path));
  if (!from) return Error{from.error().message + ": " + again};
  const std::string name(baseName(e.path));
  const int in = ::openat(*from, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (in < 0)
    return Error{(errno == ENOENT ? std::string("this agent no longer holds it") : std::strerror(errno)) + ": " + again};
  struct stat before {}, after {};
  if (::fstat(in, &before) != 0 || !S_ISREG(before.st_mode) || static_cast<std::uint64_t>(before.st_size) != e.size) {
    ::close(in);
    return Error{"it is no longer the file this agent held: " + again};
  }
  const int out = ::openat(dirFd, name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out < 0) {
    const int error = errno;
    ::close(in);
    return Error{std::strerror(error)};
  }
  Result<void> outcome = copyBytes(in, 0, e.size, out);
  if (outcome) {
    const bool untouched = ::fstat(in, &after) == 0 && after.st_size == before.st_size &&
                           mtimeNsOf(after) == mtimeNsOf(before) && mtimeNsOf(before) == e.mtimeNs;
    if (!untouched) {
      // Without a digest listed, only an untouched size and mtime hold.
      auto digest = e.withSha256 ? sha256OfFile(out) : Result<Sha256>(Error{"no digest listed"});
      if (!digest || *digest != e.sha256) outcome = Error{"its bytes are no longer those this agent held: " + again};
    }
  }
  ::close(in);
  const FileTimes t = mtimeOnly(e.mtimeNs);
  if (outcome && ::fchmod(out, e.mode) != 0) outcome = Error{std::string("cannot set its mode: ") + std::strerror(errno)};
  if (outcome && ::futimens(out, t.times) != 0)
    outcome = Error{std::string("cannot set its mtime: ") + std::strerror(errno)};
  ::close(out);
  return outcome;
}

// Every entry of `entries` into the staging directory `stageFd`; with
// `atomic`, held files copied from `heldFd` (the tree `name` holds, or
// -1) and the directories' modes and mtimes set, deepest first; without,
// held files are left where they are (publishInPlace keeps them).
Result<void> writeStaging(int bundleFd, const std::vector<TreeEntry>& entries, int stageFd, bool atomic, int heldFd) {
  DirWalk dirs(stageFd);
  std::optional<DirWalk> held;
  if (heldFd >= 0) held.emplace(heldFd);
  for (const TreeEntry& e : entries) {
    const bool isHeld = isHeldEntry(e);
    if (isHeld && !atomic) continue;
    auto dirFd = dirs.open(dirName(e.path));
    auto written = !dirFd  ? Result<void>(dirFd.error())
                   : isHeld ? copyHeld(held ? &*held : nullptr, *dirFd, e)
                            : writeEntry(bundleFd, *dirFd, e);
    if (!written) return Error{"cannot write \"" + printable(e.path) + "\": " + written.error().message};
  }
  for (std::size_t k = entries.size(); atomic && k-- > 0;) {
    const TreeEntry& e = entries[k];
    if (e.kind != TreeEntryKind::kDirectory) continue;
    auto dirFd = dirs.open(dirName(e.path));
    auto set = dirFd ? setDirectoryMeta(*dirFd, std::string(baseName(e.path)), e.mode, e.mtimeNs)
                     : Result<void>(dirFd.error());
    if (!set) return Error{"cannot finish the directory \"" + printable(e.path) + "\": " + set.error().message};
  }
  return {};
}

// The staging directory takes `name`'s place in one rename.
Result<UnpackedTree> publishAtomic(const std::vector<TreeEntry>& entries, int parentFd, const std::string& name,
                                   const std::string& staging, int stageFd, const std::string& displayPath) {
  const std::string where = displayPath + "/" + printable(name);
  UnpackedTree out;
  for (const TreeEntry& e : entries) {
    if (isHeldEntry(e)) ++out.held;
    else if (e.kind == TreeEntryKind::kFile) ++out.files, out.bytes += e.size;
  }
  struct stat old {};
  if (::fstatat(parentFd, name.c_str(), &old, AT_SYMLINK_NOFOLLOW) != 0) {
    // The top has no entry of its own: a new one is 0755.
    ::fchmod(stageFd, 0755);
    if (::renameat2(parentFd, staging.c_str(), parentFd, name.c_str(), RENAME_NOREPLACE) != 0)
      return Error{errno == EEXIST ? where + " appeared while the tree was unpacked; send again"
                                   : "cannot rename the unpacked tree to " + where + ": " + std::strerror(errno)};
    return out;
  }
  if (!S_ISDIR(old.st_mode))
    return Error{where + (S_ISLNK(old.st_mode) ? " is a symlink" : " is a file") +
                 "; remove it or send to another --dest"};
  // What the tree replaces: its files whose paths hold a file or symlink in the old tree.
  if (const int oldFd = ::openat(parentFd, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); oldFd >= 0) {
    DirWalk oldDirs(oldFd);
    for (const TreeEntry& e : entries) {
      if (e.kind != TreeEntryKind::kFile || isHeldEntry(e)) continue;
      auto dirFd = oldDirs.open(dirName(e.path));
      struct stat there {};
      if (dirFd && ::fstatat(*dirFd, std::string(baseName(e.path)).c_str(), &there, AT_SYMLINK_NOFOLLOW) == 0 &&
          !S_ISDIR(there.st_mode))
        ++out.replaced;
    }
    ::close(oldFd);
  }
  ::fchmod(stageFd, old.st_mode & 07777);  // the top keeps the mode it had
  if (::renameat2(parentFd, staging.c_str(), parentFd, name.c_str(), RENAME_EXCHANGE) != 0)
    return Error{"cannot swap the unpacked tree with " + where + ": " + std::strerror(errno) +
                 "; send without atomic"};
  // The old tree now has the staging name: what it held that the new one
  // does not name is counted deleted (hnow's temp names aside), then all
  // of it removed.
  if (const int oldFd = ::openat(parentFd, staging.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); oldFd >= 0) {
    std::vector<TreeProblem> unlisted;  // a count only: what it cannot list is removed all the same
    out.deleted = pruneUnnamed(oldFd, entries, false, unlisted);
    ::close(oldFd);
  }
  dropStaging(parentFd, staging, displayPath);
  return out;
}

}  // namespace

Result<UnpackedTree> unpackTree(int bundleFd, int parentFd, const std::string& name, const std::string& displayPath,
                                bool atomic, bool deleteOthers) {
  const std::string where = displayPath + "/" + printable(name);
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos)
    return Error{"cannot unpack a tree as \"" + printable(name) + "\" in " + displayPath + ": not a single name"};
  auto index = readTreeIndex(bundleFd);
  if (!index) return Error{"cannot unpack the tree into " + where + ": " + index.error().message};
  struct stat existing {};
  if (::fstatat(parentFd, name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(existing.st_mode))
    return Error{where + (S_ISLNK(existing.st_mode) ? " is a symlink" : " is a file") +
                 "; remove it or send to another --dest"};
  const std::string staging = stagingNameFor(name);
  if (::mkdirat(parentFd, staging.c_str(), 0700) != 0)
    return Error{"cannot create the staging directory " + displayPath + "/" + printable(staging) + ": " +
                 std::strerror(errno)};
  const int stageFd = ::openat(parentFd, staging.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  auto fail = [&](const std::string& message) -> Result<UnpackedTree> {
    if (stageFd >= 0) ::close(stageFd);
    dropStaging(parentFd, staging, displayPath);
    return Error{message};
  };
  if (stageFd < 0)
    return fail("cannot open the staging directory " + displayPath + "/" + printable(staging) + ": " +
                std::strerror(errno));
  const std::vector<TreeEntry>& entries = index->entries;
  // With `atomic`, held files come from the tree `name` holds now.
  const bool anyHeld = std::any_of(entries.begin(), entries.end(), isHeldEntry);
  const int heldFd = atomic && anyHeld ? ::openat(parentFd, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                                       : -1;
  auto written = writeStaging(bundleFd, entries, stageFd, atomic, heldFd);
  if (heldFd >= 0) ::close(heldFd);
  if (!written) {
    const std::string& why = written.error().message;
    // A held file gone or changed says so last ("send again"); where the staging was matters only for the rest.
    const bool heldChanged = why.size() >= kHeldChanged.size() &&
                             why.compare(why.size() - kHeldChanged.size(), kHeldChanged.size(), kHeldChanged) == 0;
    return fail("cannot unpack the tree into " + where + ": " + why +
                (heldChanged ? std::string() : " (in " + displayPath + "/" + printable(staging) + ")"));
  }
  if (::syncfs(stageFd) != 0)
    return fail("cannot sync the tree unpacked for " + where + ": " + std::strerror(errno));
  if (atomic) {
    auto published = publishAtomic(entries, parentFd, name, staging, stageFd, displayPath);
    if (!published) return fail(published.error().message);
    ::close(stageFd);
    return published;
  }
  if (::mkdirat(parentFd, name.c_str(), 0777) != 0 && errno != EEXIST)
    return fail("cannot create " + where + ": " + std::strerror(errno));
  const int destFd = ::openat(parentFd, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (destFd < 0)
    return fail(errno == ENOTDIR || errno == ELOOP ? where + " is not a directory; remove it or send to another --dest"
                                                   : "cannot open " + where + ": " + std::strerror(errno));
  UnpackedTree out = publishInPlace(entries, stageFd, destFd, deleteOthers);
  ::close(destFd);
  ::close(stageFd);
  dropStaging(parentFd, staging, displayPath);  // what was not published, and the directories
  return out;
}

}  // namespace hnow::transport::data
