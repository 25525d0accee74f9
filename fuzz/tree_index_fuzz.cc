// A tree bundle's index (transport/data/tree_bundle.h) as an agent reads it
// from a bundle hnowd or a relay sent: arbitrary bytes must give entries
// that unpackTree can write without leaving the tree, or one error that
// says what is wrong; never a crash or an allocation the input's length
// does not pay for (a zstd frame declaring more than kMaxTreeIndexBytes is
// refused unexpanded). The first 8 bytes choose the data region (little
// endian: the data's start, then the bytes after it); the 9th byte's low
// bit says whether the rest is the index as sent (a zstd frame, then
// zeros) or a plain index, compressed here first so the fuzzer reaches
// the entry decoder through the frame.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>

#include "fuzz/fuzz_check.h"
#include "transport/data/tree_bundle.h"

using namespace hnow::transport::data;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::uint64_t dataStart = 16, dataBytes = 1 << 20;
  if (size >= 8) {
    dataStart = dataBytes = 0;
    for (int i = 3; i >= 0; --i) dataStart = (dataStart << 8) | data[i];
    for (int i = 7; i >= 4; --i) dataBytes = (dataBytes << 8) | data[i];
    data += 8;
    size -= 8;
  }
  bool plain = false;
  if (size >= 1) {
    plain = (data[0] & 1) != 0;
    ++data;
    --size;
  }
  const std::uint64_t bundleSize = dataStart + dataBytes;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string index = plain ? compressTreeIndex(input) : std::string(input);
  auto decoded = decodeTreeIndex(index, dataStart, bundleSize);
  if (!decoded.ok()) {
    HNOW_FUZZ_CHECK(!decoded.error().message.empty(), "an error says what is wrong");
    return 0;
  }
  auto again = decodeTreeIndex(encodeTreeIndex(*decoded), dataStart, bundleSize);
  HNOW_FUZZ_CHECK(again.ok() && *again == *decoded, "an accepted index encodes to one that decodes the same");
  std::unordered_set<std::string> directories;
  for (const TreeEntry& e : *decoded) {
    HNOW_FUZZ_CHECK(!e.path.empty() && e.path.front() != '/' && e.path.size() <= kMaxTreePathBytes,
                    "a path is relative and bounded");
    HNOW_FUZZ_CHECK(e.mode <= 07777, "a mode is permission bits");
    const std::size_t slash = e.path.rfind('/');
    HNOW_FUZZ_CHECK(slash == std::string::npos || directories.count(e.path.substr(0, slash)) == 1,
                    "an entry's directory is listed before it");
    if (e.kind == TreeEntryKind::kDirectory) directories.insert(e.path);
    if (e.kind == TreeEntryKind::kFile)
      HNOW_FUZZ_CHECK(!e.withSha256 || (e.size > 0 && e.offset == kHeldOffset), "only a held file lists its digest");
    if (e.kind == TreeEntryKind::kFile && !(e.size > 0 && e.offset == kHeldOffset))
      HNOW_FUZZ_CHECK(e.offset >= dataStart && e.size <= bundleSize && e.offset <= bundleSize - e.size,
                      "a file's bytes lie in the data region, unless it is held (no bytes, offset 0)");
    if (e.kind == TreeEntryKind::kSymlink)
      HNOW_FUZZ_CHECK(treeSymlinkStaysInside(e.path, e.target), "a symlink stays inside the tree");
  }
  return 0;
}
