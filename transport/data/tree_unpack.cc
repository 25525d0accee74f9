// unpackTree (tree_bundle.h), and the end of every unpack: the staging
// (tree_staging.h) is completed, synced once, then published, in one
// rename (atomic) or entry by entry (tree_publish.h). Nothing is written
// outside the staging or `name`, nor through a symlink.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/printable.h"
#include "transport/data/tree_bundle.h"
#include "transport/data/tree_fs.h"
#include "transport/data/tree_held.h"
#include "transport/data/tree_publish.h"
#include "transport/data/tree_staging.h"

namespace hnow::transport::data {

namespace {

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
  removeStaging(parentFd, staging, displayPath);
  return out;
}

}  // namespace

Result<UnpackedTree> TreeStaging::finish(int bundleFd, bool deleteOthers) {
  if (failed_) return *failed_;
  auto index = readTreeIndex(bundleFd, bundleSize_);
  if (!index) return Error{"cannot unpack the tree into " + where() + ": " + index.error().message};
  if (!index_) {
    if (auto adopted = adoptIndex(std::move(index).value()); !adopted) return adopted.error();
  } else if (index->entries != index_->entries || index->dataStart != index_->dataStart) {
    return Error{"cannot unpack the tree into " + where() +
                 ": its index differs from the one read as the bundle landed; send again"};
  }
  if (auto written = writeRest(bundleFd); !written) return written.error();
  if (::syncfs(stageFd_) != 0)
    return Error{"cannot sync the tree unpacked for " + where() + ": " + std::strerror(errno)};
  return publish(deleteOthers);
}

Result<UnpackedTree> TreeStaging::publish(bool deleteOthers) {
  const std::vector<TreeEntry>& entries = index_->entries;
  if (atomic_) {
    auto published = publishAtomic(entries, parentFd_, name_, staging_, stageFd_, displayPath_);
    published_ = published.ok();  // the staging is the tree now (its old self removed)
    if (published) {
      published.value().held -= copied_;
      published.value().copied = copied_;
      published.value().clearedModes = index_->clearedModes;
    }
    return published;
  }
  if (::mkdirat(parentFd_, name_.c_str(), 0777) != 0 && errno != EEXIST)
    return Error{"cannot create " + where() + ": " + std::strerror(errno)};
  const int destFd = ::openat(parentFd_, name_.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (destFd < 0)
    return Error{errno == ENOTDIR || errno == ELOOP ? where() + " is not a directory; remove it or send to another --dest"
                                                   : "cannot open " + where() + ": " + std::strerror(errno)};
  UnpackedTree out = publishInPlace(entries, stageFd_, destFd, deleteOthers);
  out.clearedModes = index_->clearedModes;
  ::close(destFd);
  return out;  // the destructor removes what was not published, and the directories
}

Result<UnpackedTree> unpackTree(int bundleFd, int parentFd, const std::string& name, const std::string& displayPath,
                                bool atomic, bool deleteOthers) {
  struct stat info {};
  if (::fstat(bundleFd, &info) != 0)
    return Error{"cannot unpack the tree into " + displayPath + "/" + printable(name) +
                 ": cannot stat the tree's bundle: " + std::strerror(errno)};
  // A malformed bundle fails finish() and takes the staging with it.
  auto staging = TreeStaging::open(parentFd, name, displayPath, static_cast<std::uint64_t>(info.st_size), atomic);
  if (!staging) return staging.error();
  return (*staging)->finish(bundleFd, deleteOthers);
}

}  // namespace hnow::transport::data
