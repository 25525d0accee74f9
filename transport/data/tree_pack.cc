// packTree (tree_bundle.h) in two passes: the walk (tree_walk.h), or a
// scan made before, lists what the tree holds (stat sizes), which fixes
// every file's offset and so the index (packed files carry no digest);
// then each file's bytes are copied and hashed, and the index written at
// the front. A file refused while read leaves its room as zeros and its
// entry out of the index, which then must still fit the room planned.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "transport/data/tree_bundle.h"
#include "transport/data/tree_fs.h"
#include "transport/data/tree_walk.h"

namespace hnow::transport::data {

namespace {

// The index of `entries` and where the data starts: the smallest start
// whose index fits before it (offsets are varints, so the index's length
// depends on the start it names; growing the start until it fits ends).
std::pair<std::string, std::uint64_t> planIndex(std::vector<TreeEntry>& entries, const std::vector<bool>& packed) {
  std::uint64_t start = kTreeHeaderBytes;
  for (;;) {
    std::uint64_t at = start;
    for (std::size_t k = 0; k < entries.size(); ++k)
      if (packed[k]) entries[k].offset = at, at += entries[k].size;
    std::string index = encodeTreeIndex(entries);
    if (kTreeHeaderBytes + index.size() <= start) return {std::move(index), start};
    start = kTreeHeaderBytes + index.size();
  }
}

// The second pass over `entries` (found in `topFd`, the tree `dir`): the
// files with `send` (nullptr: all; size 0: always) copied into `outFd`,
// the others listed held (with their digest where `withSha256` says).
// `fromScan`: the entries carry a scan's digests, which each copy must match.
Result<PackedTree> writeBundle(const std::string& dir, int topFd, std::vector<TreeEntry> entries,
                               const std::vector<FileStamp>& stamps, const std::vector<bool>* send,
                               const std::vector<bool>* withSha256, bool fromScan, std::vector<TreeProblem> refused,
                               int outFd) {
  std::vector<bool> packs(entries.size(), false);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    TreeEntry& e = entries[k];
    if (e.kind != TreeEntryKind::kFile) continue;
    packs[k] = send == nullptr || (*send)[k] || e.size == 0;
    e.withSha256 = !packs[k] && withSha256 != nullptr && (*withSha256)[k];
    if (!packs[k]) e.offset = kHeldOffset;  // the digest stays the scan's
  }
  auto [planned, dataStart] = planIndex(entries, packs);
  if (planned.size() > kMaxTreeIndexBytes)
    return Error{"the index of " + dir + " would take " + std::to_string(planned.size()) + " bytes, more than " +
                 std::to_string(kMaxTreeIndexBytes) + "; send it in parts"};
  struct stat bundle {};
  const bool bundleKnown = ::fstat(outFd, &bundle) == 0;
  PackedTree packed;
  packed.refused = std::move(refused);
  const std::size_t refusedBefore = packed.refused.size();
  packed.entries.reserve(entries.size());
  std::uint64_t end = dataStart;  // past the last file kept
  std::vector<char> buffer(1 << 20);
  DirWalk dirs(topFd);
  // A refused file's room becomes zeros: nothing half-read stays in the bundle.
  auto clear = [&](const TreeEntry& e) -> Result<void> {
    std::fill(buffer.begin(), buffer.end(), '\0');
    for (std::uint64_t done = 0; done < e.size;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), e.size - done));
      if (auto written = writeBundleBytes(outFd, buffer.data(), n, e.offset + done); !written) return written;
      done += n;
    }
    return {};
  };
  for (std::size_t k = 0; k < entries.size(); ++k) {
    TreeEntry& e = entries[k];
    if (packs[k]) {
      const FileStamp& stamp = stamps[k];
      const char* why = nullptr;
      FileRead read;
      if (fromScan && bundleKnown && stamp.dev == static_cast<std::uint64_t>(bundle.st_dev) &&
          stamp.ino == static_cast<std::uint64_t>(bundle.st_ino)) {
        why = "it is the bundle being written";
      } else {
        auto dirFd = dirs.open(dirName(e.path));
        auto outcome = dirFd ? readTreeFile(*dirFd, std::string(baseName(e.path)), stamp, outFd, e.offset, buffer)
                             : Result<FileRead>(FileRead{dirFd.error().message, {}});
        if (!outcome) return outcome.error();
        read = std::move(outcome).value();
        if (read.refused.empty() && fromScan && read.sha256 != e.sha256) read.refused = std::string(kChangedWhileRead);
      }
      if (why != nullptr || !read.refused.empty()) {
        packed.refused.push_back({e.path, why != nullptr ? std::string(why) : read.refused});
        if (why == nullptr)
          if (auto cleared = clear(e); !cleared) return cleared.error();
        continue;
      }
      e.sha256 = read.sha256;
      end = e.offset + e.size;
      packed.fileBytes += e.size;
      ++packed.files;
    }
    packed.entries.push_back(std::move(e));
  }
  const std::string index = packed.refused.size() == refusedBefore ? planned : encodeTreeIndex(packed.entries);
  if (kTreeHeaderBytes + index.size() > dataStart)
    return Error{"files of " + dir + " changed while they were read, and the index without them no longer fits "
                 "the room planned for it; send again"};
  std::string front(kTreeMagic);
  const std::uint64_t region = dataStart - kTreeHeaderBytes;  // the frame and the zeros after it
  for (int i = 0; i < 8; ++i) front += static_cast<char>((region >> (8 * i)) & 0xff);
  front += index;
  front.resize(dataStart, '\0');
  if (auto written = writeBundleBytes(outFd, front.data(), front.size(), 0); !written) return written.error();
  if (::ftruncate(outFd, static_cast<off_t>(end)) != 0)
    return Error{std::string("cannot write the tree's bundle: ") + std::strerror(errno)};
  packed.size = end;
  return packed;
}

}  // namespace

Result<PackedTree> packTree(const std::string& dir, int outFd) {
  auto walked = walkTree(dir, outFd);
  if (!walked) return walked.error();
  WalkedTree& tree = walked.value();
  return writeBundle(dir, tree.topFd, std::move(tree.entries), tree.stamps, nullptr, nullptr, false,
                     std::move(tree.refused), outFd);
}

Result<PackedTree> packTree(const std::string& dir, const ScannedTree& scan, const std::vector<bool>& send,
                            const std::vector<bool>& withSha256, int outFd) {
  if (scan.stamps.size() != scan.entries.size() || send.size() != scan.entries.size() ||
      withSha256.size() != scan.entries.size())
    return Error{"cannot pack " + dir + ": the scan lists " + std::to_string(scan.entries.size()) + " entries, " +
                 std::to_string(scan.stamps.size()) + " stamps, " + std::to_string(send.size()) +
                 " choices to send and " + std::to_string(withSha256.size()) + " of digests (a bug in hnowd)"};
  auto top = openTreeTop(dir);
  if (!top) return top.error();
  // Refused: only what this pass leaves out; the scan's are the scan's to report.
  auto packed = writeBundle(dir, *top, scan.entries, scan.stamps, &send, &withSha256, true, {}, outFd);
  ::close(*top);
  return packed;
}

}  // namespace hnow::transport::data
