#include "transport/data/tree_publish.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <unordered_set>

#include "transport/data/tree_fs.h"
#include "transport/data/tree_held.h"
#include "transport/data/tree_walk.h"

namespace hnow::transport::data {

UnpackedTree publishInPlace(const std::vector<TreeEntry>& entries, int stageFd, int destFd, bool deleteOthers) {
  UnpackedTree out;
  // Directories not published: what an index lists under one fails with it
  // (listed after it, so checking the parent alone is enough).
  std::unordered_set<std::string> failedDirs;
  std::vector<bool> placed(entries.size(), false);
  DirWalk stage(stageFd), dest(destFd);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const TreeEntry& e = entries[k];
    const bool isDir = e.kind == TreeEntryKind::kDirectory;
    auto fail = [&](std::string why) {
      out.failed.push_back({e.path, std::move(why)});
      if (isDir) failedDirs.insert(e.path);
    };
    const std::string parent(dirName(e.path)), name(baseName(e.path));
    if (!parent.empty() && failedDirs.count(parent) > 0) {
      fail("its directory was not published");
      continue;
    }
    auto destDir = dest.open(parent);
    if (!destDir) {
      fail(destDir.error().message);
      continue;
    }
    struct stat there {};
    const bool exists = ::fstatat(*destDir, name.c_str(), &there, AT_SYMLINK_NOFOLLOW) == 0;
    if (isDir) {
      if (exists && !S_ISDIR(there.st_mode)) {
        fail(std::string(S_ISLNK(there.st_mode) ? "a symlink" : "a file") + " is in the way; nothing was removed");
        continue;
      }
      // 0700 until its mode is set, after what goes inside it.
      if (!exists && ::mkdirat(*destDir, name.c_str(), 0700) != 0) {
        fail(std::string("cannot create the directory: ") + std::strerror(errno));
        continue;
      }
      placed[k] = true;
      continue;
    }
    struct stat staged {};
    auto stageDir = stage.open(parent);
    // A held file this agent had under another path of the tree was copied into the staging (TreeStaging::writeRest).
    const bool copied = isHeldEntry(e) && stageDir &&
                        ::fstatat(*stageDir, name.c_str(), &staged, AT_SYMLINK_NOFOLLOW) == 0;
    if (isHeldEntry(e) && !copied) {
      // Nothing staged: the file there is kept, if it still is the one the agent held.
      const Holding holding = holdingOf(*destDir, name, e);
      if (holding == Holding::kNot || holding == Holding::kSameSize) {
        fail(std::string(kHeldChanged));
        continue;
      }
      if (auto kept = keepHeldFile(*destDir, name, e, holding); !kept) {
        fail(kept.error().message);
        continue;
      }
      ++out.held;
      continue;
    }
    if (exists && S_ISDIR(there.st_mode)) {
      fail("a directory is in the way");
      continue;
    }
    if (!copied && e.kind == TreeEntryKind::kFile && exists && S_ISREG(there.st_mode) &&
        static_cast<std::uint64_t>(there.st_size) == e.size && mtimeNsOf(there) == e.mtimeNs) {
      // Already there (size and mtime): kept, the staged copy dropped with the staging.
      if (auto kept = keepHeldFile(*destDir, name, e, Holding::kSame); !kept) {
        fail(kept.error().message);
        continue;
      }
      ++out.held;
      continue;
    }
    if (!stageDir) {
      fail(stageDir.error().message);
      continue;
    }
    // One rename: the file appears whole or not at all, and a file or
    // symlink at its path is replaced, never written through.
    if (::renameat(*stageDir, name.c_str(), *destDir, name.c_str()) != 0) {
      fail(std::string("cannot move it into place: ") + std::strerror(errno));
      continue;
    }
    if (copied) {
      ++out.copied;
    } else if (e.kind == TreeEntryKind::kFile) {
      ++out.files;
      out.bytes += e.size;
      if (exists) ++out.replaced;
    }
  }
  if (deleteOthers) out.deleted = pruneUnnamed(destFd, entries, true, out.failed);
  // Modes and mtimes after the renames (and removals) that changed the mtimes, children before parents.
  for (std::size_t k = entries.size(); k-- > 0;) {
    if (!placed[k]) continue;
    const TreeEntry& e = entries[k];
    auto destDir = dest.open(dirName(e.path));
    auto set = destDir ? setDirectoryMeta(*destDir, std::string(baseName(e.path)), e.mode, e.mtimeNs)
                       : Result<void>(destDir.error());
    if (!set) out.failed.push_back({e.path, set.error().message});
  }
  return out;
}

}  // namespace hnow::transport::data
