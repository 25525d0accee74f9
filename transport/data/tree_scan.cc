// scanTree, queryIndexOf and TreeDigestCache (tree_bundle.h): what hnowd
// learns of a tree before it asks the agents what they already hold.
#include <vector>

#include "transport/data/tree_bundle.h"
#include "transport/data/tree_fs.h"
#include "transport/data/tree_walk.h"

namespace hnow::transport::data {

const Sha256* TreeDigestCache::find(const std::string& path, const FileStamp& stamp) const {
  const auto it = entries_.find(path);
  return it != entries_.end() && it->second.first == stamp ? &it->second.second : nullptr;
}

void TreeDigestCache::put(const std::string& path, const FileStamp& stamp, const Sha256& sha256) {
  // Bounded by forgetting all at once: the next scans read their files again.
  if (entries_.size() >= kMaxTreeEntries && entries_.count(path) == 0) entries_.clear();
  entries_[path] = {stamp, sha256};
}

Result<ScannedTree> scanTree(const std::string& dir, TreeDigestCache& cache, const std::string& cacheName) {
  auto walked = walkTree(dir, -1);
  if (!walked) return walked.error();
  WalkedTree& tree = walked.value();
  ScannedTree scan;
  scan.refused = std::move(tree.refused);
  scan.entries.reserve(tree.entries.size());
  scan.stamps.reserve(tree.entries.size());
  const std::string& named = cacheName.empty() ? dir : cacheName;
  const std::string top = named.size() > 1 && named.back() == '/' ? named.substr(0, named.size() - 1) : named;
  std::vector<char> buffer(1 << 20);
  DirWalk dirs(tree.topFd);
  for (std::size_t k = 0; k < tree.entries.size(); ++k) {
    TreeEntry& e = tree.entries[k];
    const FileStamp& stamp = tree.stamps[k];
    if (e.kind == TreeEntryKind::kFile) {
      const std::string key = (top == "/" ? std::string() : top) + "/" + e.path;
      if (const Sha256* known = cache.find(key, stamp)) {
        e.sha256 = *known;
      } else {
        auto dirFd = dirs.open(dirName(e.path));
        bool unchanged = false;
        auto read = dirFd ? readTreeFile(*dirFd, std::string(baseName(e.path)), stamp, -1, 0, buffer, &unchanged)
                          : Result<FileRead>(FileRead{dirFd.error().message, {}});
        if (!read || !read->refused.empty()) {
          scan.refused.push_back({e.path, read ? read->refused : read.error().message});
          continue;
        }
        e.sha256 = read->sha256;
        // Remembered only when nothing of the stamp moved while it was read.
        if (unchanged) cache.put(key, stamp, e.sha256);
      }
      e.offset = kHeldOffset;
      ++scan.files;
      scan.fileBytes += e.size;
    }
    scan.entries.push_back(std::move(e));
    scan.stamps.push_back(stamp);
  }
  return scan;
}

std::string queryIndexOf(const std::vector<TreeEntry>& scanned, bool withSha256) {
  std::vector<TreeEntry> entries = scanned;
  for (TreeEntry& e : entries)
    if (e.kind == TreeEntryKind::kFile) e.offset = kHeldOffset, e.withSha256 = withSha256;
  return encodeTreeIndex(entries);
}

}  // namespace hnow::transport::data
