#include "transport/data/tree_query.h"

#include <map>
#include <set>

namespace hnow::transport::data {

namespace {

// Each part of a query stays well under one message (transport's 1 MiB).
constexpr std::size_t kQueryPartBytes = 512 * 1024;

// The most bytes one entry takes in a plain index (tree_bundle.h: varints
// of at most 10 bytes); parts are cut by these, so a part's frame, never
// larger than zstd's bound on 512 KiB, fits a message too.
std::size_t plainBytesAtMost(const TreeEntry& e) {
  return 1 + 10 + 10 + e.path.size() + 10 + 10 + (e.kind == TreeEntryKind::kFile ? 10 + 10 + 32 : 0) +
         (e.kind == TreeEntryKind::kSymlink ? 10 + e.target.size() : 0);
}

}  // namespace

QueryParts queryParts(const ScannedTree& scan, const std::vector<std::size_t>& files, bool withSha256) {
  std::map<std::string, std::int64_t> dirOf;  // a directory's path to its scan entry
  for (std::size_t k = 0; k < scan.entries.size(); ++k)
    if (scan.entries[k].kind == TreeEntryKind::kDirectory)
      dirOf[scan.entries[k].path] = static_cast<std::int64_t>(k);
  QueryParts out;
  std::vector<TreeEntry> part;
  std::vector<std::int64_t> ordinals;
  std::set<std::string> listed;
  std::size_t bytes = 0;
  auto close = [&] {
    if (part.empty()) return;
    out.parts.push_back(queryIndexOf(part, withSha256));
    out.ordinals.push_back(std::move(ordinals));
    part.clear(), ordinals.clear(), listed.clear(), bytes = 0;
  };
  for (std::size_t k : files) {
    const auto& e = scan.entries[k];
    if (e.kind != TreeEntryKind::kFile) continue;
    if (bytes > kQueryPartBytes) close();
    // Its directories, top first, each once per part.
    for (auto slash = e.path.find('/'); slash != std::string::npos; slash = e.path.find('/', slash + 1)) {
      const std::string dir = e.path.substr(0, slash);
      if (!listed.insert(dir).second) continue;
      const std::int64_t at = dirOf.at(dir);
      part.push_back(scan.entries[static_cast<std::size_t>(at)]);
      ordinals.push_back(-1);
      bytes += plainBytesAtMost(part.back());
    }
    part.push_back(e);
    ordinals.push_back(static_cast<std::int64_t>(k));
    bytes += plainBytesAtMost(e);
  }
  close();
  return out;
}


}  // namespace hnow::transport::data
