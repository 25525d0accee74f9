// packTree (tree_bundle.h) in two passes: the walk (tree_walk.h), or a
// scan made before, lists what the tree holds (stat sizes), which fixes
// the index's length, since its fields are fixed-width; then each file's
// bytes are copied and hashed, and the index written at the front with the
// final offsets and digests.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "transport/data/tree_bundle.h"
#include "transport/data/tree_fs.h"
#include "transport/data/tree_walk.h"

namespace hnow::transport::data {

namespace {

std::string headerOf(std::uint64_t indexLength) {
  std::string header(kTreeMagic);
  for (int i = 0; i < 8; ++i) header += static_cast<char>((indexLength >> (8 * i)) & 0xff);
  return header;
}

// The second pass over `entries` (found in `topFd`, the tree `dir`): the
// files with `send` (nullptr: all; size 0: always) copied into `outFd`,
// the others listed held. `fromScan`: the entries carry a scan's digests,
// which each copy must match.
Result<PackedTree> writeBundle(const std::string& dir, int topFd, std::vector<TreeEntry> entries,
                               const std::vector<FileStamp>& stamps, const std::vector<bool>* send, bool fromScan,
                               std::vector<TreeProblem> refused, int outFd) {
  // Room for the index of every entry found: leaving files out only
  // shortens it, and a held entry takes as many bytes as a packed one.
  const std::uint64_t reserved = encodeTreeIndex(entries).size();
  if (reserved > kMaxTreeIndexBytes)
    return Error{"the index of " + dir + " would take " + std::to_string(reserved) + " bytes, more than " +
                 std::to_string(kMaxTreeIndexBytes) + "; send it in parts"};
  struct stat bundle {};
  const bool bundleKnown = ::fstat(outFd, &bundle) == 0;
  PackedTree packed;
  packed.refused = std::move(refused);
  packed.entries.reserve(entries.size());
  std::uint64_t at = kTreeHeaderBytes + reserved;
  std::vector<char> buffer(1 << 20);
  DirWalk dirs(topFd);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    TreeEntry& e = entries[k];
    if (e.kind == TreeEntryKind::kFile) {
      if (send != nullptr && !(*send)[k] && e.size > 0) {
        e.offset = kHeldOffset;  // the digest stays the scan's
        packed.entries.push_back(std::move(e));
        continue;
      }
      const FileStamp& stamp = stamps[k];
      if (fromScan && bundleKnown && stamp.dev == static_cast<std::uint64_t>(bundle.st_dev) &&
          stamp.ino == static_cast<std::uint64_t>(bundle.st_ino)) {
        packed.refused.push_back({e.path, "it is the bundle being written"});
        continue;
      }
      auto dirFd = dirs.open(dirName(e.path));
      auto outcome = dirFd ? readTreeFile(*dirFd, std::string(baseName(e.path)), stamp, outFd, at, buffer)
                           : Result<FileRead>(FileRead{dirFd.error().message, {}});
      if (!outcome) return outcome.error();
      FileRead& read = outcome.value();
      if (read.refused.empty() && fromScan && read.sha256 != e.sha256) read.refused = std::string(kChangedWhileRead);
      if (!read.refused.empty()) {
        // Its bytes, if any were written, are overwritten by the next file's or cut by the truncate below.
        packed.refused.push_back({e.path, read.refused});
        continue;
      }
      e.offset = at;
      e.sha256 = read.sha256;
      at += e.size;
      packed.fileBytes += e.size;
      ++packed.files;
    }
    packed.entries.push_back(std::move(e));
  }
  const std::string index = encodeTreeIndex(packed.entries);
  std::string front = headerOf(index.size()) + index;
  front.resize(kTreeHeaderBytes + reserved, '\0');  // the padding tree_bundle.h describes
  if (auto written = writeBundleBytes(outFd, front.data(), front.size(), 0); !written) return written.error();
  if (::ftruncate(outFd, static_cast<off_t>(at)) != 0)
    return Error{std::string("cannot write the tree's bundle: ") + std::strerror(errno)};
  packed.size = at;
  return packed;
}

}  // namespace

Result<PackedTree> packTree(const std::string& dir, int outFd) {
  auto walked = walkTree(dir, outFd);
  if (!walked) return walked.error();
  WalkedTree& tree = walked.value();
  return writeBundle(dir, tree.topFd, std::move(tree.entries), tree.stamps, nullptr, false, std::move(tree.refused),
                     outFd);
}

Result<PackedTree> packTree(const std::string& dir, const ScannedTree& scan, const std::vector<bool>& send, int outFd) {
  if (scan.stamps.size() != scan.entries.size() || send.size() != scan.entries.size())
    return Error{"cannot pack " + dir + ": the scan lists " + std::to_string(scan.entries.size()) + " entries, " +
                 std::to_string(scan.stamps.size()) + " stamps and " + std::to_string(send.size()) +
                 " choices to send (a bug in hnowd)"};
  auto top = openTreeTop(dir);
  if (!top) return top.error();
  // Refused: only what this pass leaves out; the scan's are the scan's to report.
  auto packed = writeBundle(dir, *top, scan.entries, scan.stamps, &send, true, {}, outFd);
  ::close(*top);
  return packed;
}

}  // namespace hnow::transport::data
