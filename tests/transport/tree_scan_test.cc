// Only what changed (transport/data/tree_bundle.h): scanTree and its
// digest cache, the query index, packTree from a scan with held files,
// held entries in decodeTreeIndex, and missingFiles. Unpacking held
// entries and deleteOthers: tree_held_test.cc.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <vector>

#include "transport/data/tree_walk.h"
#include "transport/tree_fixture.h"

using namespace hnow::transport::data;
using namespace hnow::testing;

TEST_CASE("scanTree finds the digests packTree computes, lists every file held, and its query index decodes") {
  Scratch s;
  makeSmallTree(s / "tree");
  TreeDigestCache cache;
  const ScannedTree scan = scanOf(s / "tree", cache);
  Packed packed(s / "tree", s / "bundle");
  REQUIRE(packed.tree.ok());
  REQUIRE(scan.entries.size() == packed.tree->entries.size());
  CHECK(scan.refused.empty());
  CHECK(scan.stamps.size() == scan.entries.size());
  CHECK(scan.files == 4);
  CHECK(scan.fileBytes == 11 + 70000 + 5);
  for (std::size_t k = 0; k < scan.entries.size(); ++k) {
    const TreeEntry &a = scan.entries[k], &b = packed.tree->entries[k];
    CAPTURE(a.path);
    CHECK(a.path == b.path);
    CHECK(a.kind == b.kind);
    CHECK(a.mode == b.mode);
    CHECK(a.mtimeNs == b.mtimeNs);
    CHECK(a.sha256 == b.sha256);
    if (a.kind == TreeEntryKind::kFile) {
      CHECK(a.offset == kHeldOffset);
      CHECK(scan.stamps[k].size == a.size);
      CHECK(scan.stamps[k].ino == lstatOf(s / "tree/" + a.path).st_ino);
    }
  }
  CHECK(cache.size() == 4);
  for (const bool withSha256 : {false, true}) {
    const std::vector<TreeEntry> query = queryEntries(scan, withSha256);
    REQUIRE(query.size() == scan.entries.size());
    for (std::size_t k = 0; k < query.size(); ++k) {
      const TreeEntry& e = query[k];
      if (e.kind != TreeEntryKind::kFile) continue;
      CHECK(e.offset == kHeldOffset);  // an empty file too: 0 bytes at offset 0
      CHECK(e.withSha256 == (withSha256 && e.size > 0));
      if (e.withSha256) CHECK(e.sha256 == scan.entries[k].sha256);
    }
  }
}

TEST_CASE("a second scanTree takes a remembered digest without reading the file and reads it again once its mtime changes") {
  Scratch s;
  makeSmallTree(s / "tree");
  TreeDigestCache cache;
  const ScannedTree first = scanOf(s / "tree", cache);
  const std::uint32_t k = ordinalOf(first.entries, "d/b.bin");
  REQUIRE(k < first.entries.size());
  const Sha256 right = first.entries[k].sha256;
  // A digest only the cache knows: returned, the file was not read.
  Sha256 wrong = right;
  wrong[0] ^= 0xff;
  cache.put(s / "tree/d/b.bin", first.stamps[k], wrong);
  CHECK(cache.size() == 4);
  const ScannedTree second = scanOf(s / "tree", cache);
  CHECK(second.entries[k].sha256 == wrong);
  CHECK(second.entries[ordinalOf(second.entries, "a.txt")].sha256 ==
        first.entries[ordinalOf(first.entries, "a.txt")].sha256);
  // Another mtime is another stamp: read again, and remembered anew.
  setMtime(s / "tree/d/b.bin", 1'700'000'000, 0);
  const ScannedTree third = scanOf(s / "tree", cache);
  CHECK(third.entries[k].sha256 == right);
  CHECK(third.entries[k].mtimeNs == 1'700'000'000'000'000'000);
  const Sha256* remembered = cache.find(s / "tree/d/b.bin", third.stamps[k]);
  REQUIRE(remembered != nullptr);
  CHECK(*remembered == right);
  CHECK(cache.find(s / "tree/d/b.bin", first.stamps[k]) == nullptr);
}

TEST_CASE("a tree scanned through a descriptor of it finds the digests remembered under the name given") {
  Scratch s;
  makeSmallTree(s / "tree");
  TreeDigestCache cache;
  const ScannedTree first = scanOf(s / "tree", cache);
  const std::uint32_t k = ordinalOf(first.entries, "d/b.bin");
  Sha256 wrong = first.entries[k].sha256;
  wrong[0] ^= 0xff;
  cache.put(s / "tree/d/b.bin", first.stamps[k], wrong);  // only the cache knows it: proof the file was not read
  const int fd = ::open((s / "tree").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  const std::string pinned = "/proc/self/fd/" + std::to_string(fd);
  auto named = scanTree(pinned, cache, s / "tree");
  auto unnamed = scanTree(pinned, cache);
  ::close(fd);
  REQUIRE(named);
  REQUIRE(unnamed);
  CHECK(named->entries[k].sha256 == wrong);
  CHECK(unnamed->entries[k].sha256 == first.entries[k].sha256);
}

TEST_CASE("packTree from a scan writes only the bytes of the files to send and lists the others held at offset 0") {
  Scratch s;
  makeSmallTree(s / "tree");
  ::mkfifo((s / "tree/fifo").c_str(), 0644);
  TreeDigestCache cache;
  const ScannedTree scan = scanOf(s / "tree", cache);
  REQUIRE(scan.refused.size() == 1);
  PackedScan packed(s / "tree", scan, sendOnly(scan, {"d/e/c"}), s / "bundle");
  REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
  CHECK(packed.tree->refused.empty());  // the scan's refused are the scan's to report
  CHECK(packed.tree->files == 2);  // d/e/c and the empty file, always packed
  CHECK(packed.tree->fileBytes == 5);
  CHECK(static_cast<std::uint64_t>(lstatOf(s / "bundle").st_size) == packed.tree->size);
  auto index = readTreeIndex(packed.fd);
  REQUIRE_MESSAGE(index.ok(), messageOf(index));
  CHECK(packed.tree->size == index->dataStart + 5);
  REQUIRE(index->entries.size() == scan.entries.size());
  for (std::size_t k = 0; k < scan.entries.size(); ++k) {
    const TreeEntry& e = index->entries[k];
    CAPTURE(e.path);
    CHECK_FALSE(e.withSha256);  // no agent held a file by its digest
    if (e.path == "a.txt" || e.path == "d/b.bin") CHECK(e.offset == kHeldOffset);
    if (e.path == "d/e/c") {
      CHECK(e.offset == index->dataStart);
      CHECK(readFile(s / "bundle").substr(e.offset) == "gamma");
    }
  }
  CHECK(packed.tree->entries.size() == index->entries.size());
}

TEST_CASE("packTree from a scan refuses a file modified between the scan and the pack, even one with its old size and mtime") {
  Scratch s;
  makeSmallTree(s / "tree");
  TreeDigestCache cache;
  const ScannedTree scan = scanOf(s / "tree", cache);
  writeFile(s / "tree/a.txt", "a longer alpha now");
  writeFile(s / "tree/d/e/c", "GAMMA", 0640);  // the same size, then the same mtime: only the digest tells
  setMtime(s / "tree/d/e/c", 1'600'000'002, 3);
  std::vector<bool> all(scan.entries.size(), true);
  PackedScan packed(s / "tree", scan, all, s / "bundle");
  REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
  std::vector<std::string> refused;
  for (const TreeProblem& p : packed.tree->refused) refused.push_back(p.path + ": " + p.why);
  CHECK(refused == std::vector<std::string>{"a.txt: changed while it was read; send again",
                                            "d/e/c: changed while it was read; send again"});
  CHECK(packed.tree->files == 2);
  CHECK(packed.tree->fileBytes == 70000);
  CHECK(ordinalOf(packed.tree->entries, "a.txt") == packed.tree->entries.size());
  auto index = readTreeIndex(packed.fd);
  REQUIRE_MESSAGE(index.ok(), messageOf(index));
  CHECK(index->entries.size() == scan.entries.size() - 2);
  // A scan that does not fit its choices is refused.
  PackedScan mismatched(s / "tree", scan, std::vector<bool>(1, true), s / "bundle2");
  CHECK_FALSE(mismatched.tree.ok());
}

TEST_CASE("decodeTreeIndex accepts held files without a byte range and still refuses overlapping files with bytes") {
  auto file = [](const std::string& path, std::uint64_t offset, std::uint64_t size) {
    TreeEntry e;
    e.kind = TreeEntryKind::kFile;
    e.path = path;
    e.mode = 0644;
    e.offset = offset;
    e.size = size;
    return e;
  };
  const std::vector<TreeEntry> held = {file("a", kHeldOffset, 1 << 20), file("b", kHeldOffset, 1 << 20),
                                       file("c", 1000, 10), file("d", 1010, 0)};
  auto decoded = decodeTreeIndex(encodeTreeIndex(held), 1000, 1010);
  REQUIRE_MESSAGE(decoded.ok(), messageOf(decoded));
  CHECK(decoded->at(0).offset == kHeldOffset);
  CHECK(decoded->at(1).size == 1 << 20);
  auto overlap = decodeTreeIndex(encodeTreeIndex({file("a", kHeldOffset, 5), file("f", 1000, 10), file("g", 1009, 10)}),
                                 1000, 2000);
  REQUIRE_FALSE(overlap.ok());
  CHECK(overlap.error().message.find("overlap those of entry 1 (\"f\")") != std::string::npos);
  auto emptyAtZero = decodeTreeIndex(encodeTreeIndex({file("e", 0, 0)}), 1000, 2000);
  REQUIRE_FALSE(emptyAtZero.ok());
  CHECK(emptyAtZero.error().message.find("lie outside the bundle's data") != std::string::npos);
}

TEST_CASE("missingFiles lists every file of a missing destination and none of an identical one") {
  Scratch s;
  makeSmallTree(s / "tree");
  TreeDigestCache cache;
  const std::vector<TreeEntry> entries = queryEntries(scanOf(s / "tree", cache));
  const std::vector<std::uint32_t> all = {ordinalOf(entries, "a.txt"), ordinalOf(entries, "d/b.bin"),
                                          ordinalOf(entries, "d/e/c"), ordinalOf(entries, "empty")};
  CHECK(missingIn(entries, s.path, "dest") == all);
  CHECK(missingIn(entries, s.path, "../x") == all);
  Packed packed(s / "tree", s / "bundle");
  REQUIRE(packed.tree.ok());
  REQUIRE(unpackInto(packed.fd, s.path, "dest", true).ok());
  CHECK(missingIn(entries, s.path, "dest").empty());
  // The source itself holds all of it too.
  CHECK(missingIn(entries, s.path, "tree").empty());
}

TEST_CASE("missingFiles with digests lists a file whose bytes changed and not one whose mtime alone changed") {
  Scratch s;
  makeSmallTree(s / "tree");
  TreeDigestCache cache;
  const std::vector<TreeEntry> entries = queryEntries(scanOf(s / "tree", cache));
  Packed packed(s / "tree", s / "bundle");
  REQUIRE(packed.tree.ok());
  REQUIRE(unpackInto(packed.fd, s.path, "dest", false).ok());
  writeFile(s / "dest/d/e/c", "GAMMA", 0640);  // same size, other bytes and mtime
  setMtime(s / "dest/a.txt", 1'234'567'890, 0);  // same bytes, another mtime
  CHECK(missingIn(entries, s.path, "dest") == std::vector<std::uint32_t>{ordinalOf(entries, "d/e/c")});
  writeFile(s / "dest/d/e/c", "gamma!", 0640);  // another size
  setMtime(s / "dest/d/e/c", 1'600'000'002, 3);
  CHECK(missingIn(entries, s.path, "dest") == std::vector<std::uint32_t>{ordinalOf(entries, "d/e/c")});
  ::unlink((s / "dest/d/e/c").c_str());
  ::mkdir((s / "dest/d/e/c").c_str(), 0755);  // a directory in its place
  CHECK(missingIn(entries, s.path, "dest") == std::vector<std::uint32_t>{ordinalOf(entries, "d/e/c")});
}

TEST_CASE("missingFiles follows no symlink: files reached through a symlinked directory are missing") {
  Scratch s;
  makeSmallTree(s / "tree");
  TreeDigestCache cache;
  const std::vector<TreeEntry> entries = queryEntries(scanOf(s / "tree", cache));
  Packed packed(s / "tree", s / "bundle");
  REQUIRE(packed.tree.ok());
  REQUIRE(unpackInto(packed.fd, s.path, "real", true).ok());
  ::mkdir((s / "dest").c_str(), 0755);
  ::rename((s / "real/a.txt").c_str(), (s / "dest/a.txt").c_str());
  ::rename((s / "real/empty").c_str(), (s / "dest/empty").c_str());
  ::symlink((s / "real/d").c_str(), (s / "dest/d").c_str());
  CHECK(missingIn(entries, s.path, "dest") ==
        std::vector<std::uint32_t>{ordinalOf(entries, "d/b.bin"), ordinalOf(entries, "d/e/c")});
  // A destination that is itself a symlink holds nothing.
  ::symlink((s / "tree").c_str(), (s / "linked").c_str());
  CHECK(missingIn(entries, s.path, "linked").size() == 4);
}

TEST_CASE("missingFiles without digests names a file of the same size and another mtime apart, to be asked again") {
  Scratch s;
  makeSmallTree(s / "tree");
  TreeDigestCache cache;
  const ScannedTree scan = scanOf(s / "tree", cache);
  const std::vector<TreeEntry> first = queryEntries(scan, false);
  Packed packed(s / "tree", s / "bundle");
  REQUIRE(packed.tree.ok());
  REQUIRE(unpackInto(packed.fd, s.path, "dest", false).ok());
  writeFile(s / "dest/d/e/c", "GAMMA", 0640);  // same size, other bytes and mtime
  setMtime(s / "dest/a.txt", 1'234'567'890, 0);  // same bytes, another mtime
  writeFile(s / "dest/d/b.bin", "short", 0600);  // another size
  const HeldFiles held = heldIn(first, s.path, "dest");
  CHECK(held.missing == std::vector<std::uint32_t>{ordinalOf(first, "d/b.bin")});
  CHECK(held.sameSize == std::vector<std::uint32_t>{ordinalOf(first, "a.txt"), ordinalOf(first, "d/e/c")});
  // Asked again with digests: only the file whose bytes changed is missing.
  const std::vector<TreeEntry> second = queryEntries(scan, true);
  const HeldFiles again = heldIn(second, s.path, "dest");
  CHECK(again.missing == std::vector<std::uint32_t>{ordinalOf(second, "d/b.bin"), ordinalOf(second, "d/e/c")});
  CHECK(again.sameSize.empty());
}

TEST_CASE("a tree's listing digest is the same for a copy with the same names, modes, mtimes and sizes, and changes with any of them") {
  Scratch s;
  makeSmallTree(s / "a");
  auto first = treeListingDigest(s / "a");
  REQUIRE_MESSAGE(first.ok(), messageOf(first));
  REQUIRE(std::system(("cp -a " + s / "a" + " " + s / "b").c_str()) == 0);
  auto copy = treeListingDigest(s / "b");
  REQUIRE(copy.ok());
  CHECK(*copy == *first);  // another place, the same listing
  CHECK(*treeListingDigest(s / "a") == *first);
  setMtime(s / "b/d/e/c", 1'600'000'002, 4);  // one nanosecond
  CHECK(*treeListingDigest(s / "b") != *first);
  setMtime(s / "b/d/e/c", 1'600'000'002, 3);
  CHECK(*treeListingDigest(s / "b") == *first);
  ::chmod((s / "b/a.txt").c_str(), 0600);
  CHECK(*treeListingDigest(s / "b") != *first);
  ::chmod((s / "b/a.txt").c_str(), 0644);
  writeFile(s / "b/new", "");
  CHECK(*treeListingDigest(s / "b") != *first);
  CHECK_FALSE(treeListingDigest(s / "missing").ok());
}
