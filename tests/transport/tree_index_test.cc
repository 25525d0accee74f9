// The tree index's compact form (transport/data/tree_bundle.h): one zstd
// frame of prefix-coded entries, held files without digests unless some
// agent holds them by digest; what an agent refuses of a frame; what a
// second send of a large, mostly held tree costs in index bytes.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "transport/tree_fixture.h"

using namespace hnow::transport::data;
using namespace hnow::testing;

namespace {

TreeEntry entry(TreeEntryKind kind, const std::string& path, std::int64_t mtimeNs) {
  TreeEntry e;
  e.kind = kind;
  e.path = path;
  e.mode = kind == TreeEntryKind::kDirectory ? 0755 : 0644;
  e.mtimeNs = mtimeNs;
  return e;
}

// A tree as the bench generates one: 2000 files in 100 directories up to 4
// deep, sizes from a few bytes to 1 MiB, mtimes within 20 s at nanosecond
// resolution (files written one after another), every file held.
std::vector<TreeEntry> heldTree(std::size_t files) {
  std::mt19937_64 random(42);
  const std::int64_t start = 1'764'000'000'000'000'000;
  std::vector<TreeEntry> entries;
  std::vector<std::string> dirs;
  for (int d = 0; d < 100; ++d) {
    std::string path = d < 25 ? "" : dirs[static_cast<std::size_t>(random() % dirs.size())] + "/";
    if (std::count(path.begin(), path.end(), '/') >= 4) path = "";
    path += "dir" + std::to_string(d);
    dirs.push_back(path);
    entries.push_back(entry(TreeEntryKind::kDirectory, path, start));
  }
  std::int64_t mtime = start;
  for (std::size_t f = 0; f < files; ++f) {
    mtime += static_cast<std::int64_t>(random() % 10'000'000);
    TreeEntry e = entry(TreeEntryKind::kFile, dirs[f * dirs.size() / files] + "/file-" + std::to_string(f) + ".dat",
                        mtime);
    e.size = 1 + random() % (f % 10 == 0 ? 1 << 20 : 4096);
    e.offset = kHeldOffset;
    for (auto& b : e.sha256) b = static_cast<unsigned char>(random());
    entries.push_back(std::move(e));
  }
  return entries;
}

// A frame of `declared` bytes of content made of RLE blocks of zeros
// (RFC 8878 §3.1): 4 input bytes per 128 KiB of output, so a few KiB of
// input can claim gigabytes.
std::string zeroBomb(std::uint64_t declared, std::uint64_t actual) {
  std::string frame("\x28\xb5\x2f\xfd", 4);
  frame += static_cast<char>(0xc0);  // an 8-byte content size, windowed
  frame += static_cast<char>(0x38);  // a window of 2^17
  for (int i = 0; i < 8; ++i) frame += static_cast<char>((declared >> (8 * i)) & 0xff);
  constexpr std::uint64_t kBlock = 1 << 17;
  for (std::uint64_t done = 0; done < actual;) {
    const std::uint64_t n = std::min(kBlock, actual - done);
    done += n;
    const std::uint32_t header = (done == actual ? 1u : 0u) | (1u << 1) | static_cast<std::uint32_t>(n << 3);
    for (int i = 0; i < 3; ++i) frame += static_cast<char>((header >> (8 * i)) & 0xff);
    frame += '\0';
  }
  return frame;
}

}  // namespace

TEST_CASE("a compressed index keeps held files with and without a digest, packed files and an empty one") {
  std::vector<TreeEntry> entries = {entry(TreeEntryKind::kDirectory, "d", 5),
                                    entry(TreeEntryKind::kFile, "d/held", 7), entry(TreeEntryKind::kFile, "d/digest", 3),
                                    entry(TreeEntryKind::kFile, "d/packed", -1), entry(TreeEntryKind::kFile, "empty", 9)};
  entries[1].size = 10;
  entries[2].size = 20, entries[2].withSha256 = true, entries[2].sha256.fill(0xab);
  entries[3].size = 30, entries[3].offset = 1000;
  entries[4].offset = 1030;
  const std::string bytes = encodeTreeIndex(entries);
  auto decoded = decodeTreeIndex(bytes, 1000, 1030);
  REQUIRE_MESSAGE(decoded.ok(), messageOf(decoded));
  CHECK(*decoded == entries);
  // Zeros after the frame (packTree's room) are accepted, anything else not.
  CHECK(decodeTreeIndex(bytes + std::string(7, '\0'), 1000, 1030).ok());
  auto trailing = decodeTreeIndex(bytes + "x", 1000, 1030);
  REQUIRE_FALSE(trailing.ok());
  CHECK(trailing.error().message.find("1 bytes after its frame that are not zeros") != std::string::npos);
}

TEST_CASE("a packed file's digest is never in the index, and a digest flag on a file with bytes is refused") {
  std::vector<TreeEntry> entries = {entry(TreeEntryKind::kFile, "f", 1)};
  entries[0].size = 4, entries[0].offset = 1000, entries[0].withSha256 = true, entries[0].sha256.fill(1);
  auto decoded = decodeTreeIndex(encodeTreeIndex(entries), 1000, 1004);
  REQUIRE_MESSAGE(decoded.ok(), messageOf(decoded));
  CHECK_FALSE(decoded->at(0).withSha256);
  CHECK(decoded->at(0).sha256 == Sha256{});
  std::string plain = encodePlainTreeIndex(entries);
  plain[1] = static_cast<char>(2 | 8);  // a file with a digest, not held
  auto flagged = decodePlainTreeIndex(plain, 1000, 1004);
  REQUIRE_FALSE(flagged.ok());
  CHECK(flagged.error().message.find("unknown flags 8") != std::string::npos);
  plain[1] = static_cast<char>(1 | 4);  // a held directory
  CHECK_FALSE(decodePlainTreeIndex(plain, 1000, 1004).ok());
}

TEST_CASE("a held empty file and a file with bytes at offset 0 are refused") {
  std::vector<TreeEntry> entries = {entry(TreeEntryKind::kFile, "f", 1)};
  std::string plain = encodePlainTreeIndex(entries);  // empty, at offset 0: count, byte, path, mode, mtime, size, offset
  plain[1] = static_cast<char>(2 | 4);
  plain.pop_back();  // a held file lists no offset
  auto heldEmpty = decodePlainTreeIndex(plain, 0, 0);
  REQUIRE_FALSE(heldEmpty.ok());
  CHECK(heldEmpty.error().message.find("held and empty") != std::string::npos);
  entries[0].size = 3;
  plain = encodePlainTreeIndex(entries);
  plain[1] = 2;  // not held: its offset 0 follows
  plain += '\0';
  auto atZero = decodePlainTreeIndex(plain, 0, 100);
  REQUIRE_FALSE(atZero.ok());
  CHECK(atZero.error().message.find("its offset is 0") != std::string::npos);
}

TEST_CASE("a compressed index that claims more than the limit, hides its size or expands past it is refused unexpanded") {
  const std::string bomb = zeroBomb(kMaxTreeIndexBytes + 1, kMaxTreeIndexBytes + 1);
  CHECK(bomb.size() < 40'000);
  auto refused = decodeTreeIndex(bomb, 0, 0);
  REQUIRE_FALSE(refused.ok());
  CHECK_MESSAGE(refused.error().message.find("would expand to 1073741825 bytes, more than 1073741824") !=
                    std::string::npos,
                messageOf(refused));
  // A frame that declares 10 bytes and holds 128 KiB stops at the 10.
  auto past = decodeTreeIndex(zeroBomb(10, 1 << 17), 0, 0);
  REQUIRE_FALSE(past.ok());
  CHECK_MESSAGE(past.error().message.find("does not expand") != std::string::npos, messageOf(past));
  // A streamed frame without its size.
  std::string unsized = zeroBomb(0, 100);
  unsized[4] = 0x00;              // no content size field
  unsized.erase(6, 8);
  auto hidden = decodeTreeIndex(unsized, 0, 0);
  REQUIRE_FALSE(hidden.ok());
  CHECK_MESSAGE(hidden.error().message.find("does not say its size") != std::string::npos, messageOf(hidden));
  auto cut = decodeTreeIndex(encodeTreeIndex(heldTree(50)).substr(0, 20), 0, 0);
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.error().message.find("not a whole zstd frame") != std::string::npos);
}

// A second send's index lists every entry; what it costs is what a held
// file costs. Its 32-byte digest, and v1's fixed-width fields, were ~90 B:
// without them a held file is its name's tail, mode, an mtime difference
// and a size, and 25 B keeps a second send of 2000 files (1% changed, 1.2
// MB) within 1.1x even with the first round's query to each agent too.
TEST_CASE("the index of 2000 held files without digests takes under 25 bytes a file, and under 60 with them") {
  const std::vector<TreeEntry> entries = heldTree(2000);
  const std::string bytes = encodeTreeIndex(entries);
  MESSAGE("2000 held files: ", bytes.size(), " bytes, plain ", encodePlainTreeIndex(entries).size());
  CHECK(bytes.size() < 2000 * 25);
  const std::string query = queryIndexOf(entries, false);
  CHECK(query.size() == bytes.size());
  const std::string withDigests = queryIndexOf(entries, true);
  MESSAGE("with digests: ", withDigests.size(), " bytes");
  CHECK(withDigests.size() < 2000 * 60);
  auto decoded = decodeTreeIndex(withDigests, 0, 0);
  REQUIRE_MESSAGE(decoded.ok(), messageOf(decoded));
  CHECK(decoded->at(100).withSha256);
  CHECK(decoded->at(100).sha256 == entries[100].sha256);
}
