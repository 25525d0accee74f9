// Only what changed, at the agent (transport/data/tree_bundle.h): held
// entries kept in place or copied into an atomic tree, a held file gone
// or changed, files already there kept, and deleteOthers.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <openssl/sha.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "transport/data/tree_held.h"
#include "transport/tree_fixture.h"

using namespace hnow::transport::data;
using namespace hnow::testing;

namespace {

// `dest` in `s` made a copy of `s`/tree (its modes and mtimes kept).
void copyTree(const Scratch& s, const std::string& dest) {
  Packed whole(s / "tree", s / "whole");
  REQUIRE(whole.tree.ok());
  auto copied = unpackInto(whole.fd, s.path, dest, true);
  REQUIRE_MESSAGE(copied.ok(), messageOf(copied));
}

// The failed entries as "path: why".
std::vector<std::string> failuresOf(const UnpackedTree& t) {
  std::vector<std::string> out;
  for (const TreeProblem& p : t.failed) out.push_back(p.path + ": " + p.why);
  return out;
}

}  // namespace

TEST_CASE("an unpack in place keeps a held file where it is with its inode and sets the mode and mtime the index names") {
  Scratch s;
  makeSmallTree(s / "tree");
  copyTree(s, "dest");
  ::chmod((s / "dest/d/b.bin").c_str(), 0644);   // another mode
  setMtime(s / "dest/a.txt", 1'234'567'890, 0);  // the same bytes, another mtime
  writeFile(s / "tree/d/e/c", "GAMMA!", 0640);   // changed at the source: sent
  TreeDigestCache cache;
  const ScannedTree now = scanOf(s / "tree", cache);
  const std::vector<std::uint32_t> missing = missingIn(queryEntries(now), s.path, "dest");
  REQUIRE(missing == std::vector<std::uint32_t>{ordinalOf(now.entries, "d/e/c")});
  const ino_t inoA = lstatOf(s / "dest/a.txt").st_ino, inoB = lstatOf(s / "dest/d/b.bin").st_ino;
  // a.txt is held by its digest: hnowd lists it.
  PackedScan packed(s / "tree", now, sendOnly(now, {"d/e/c"}), s / "bundle", sendOnly(now, {"a.txt"}));
  REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
  auto unpacked = unpackInto(packed.fd, s.path, "dest", false);
  REQUIRE_MESSAGE(unpacked.ok(), messageOf(unpacked));
  CHECK(failuresOf(*unpacked).empty());
  CHECK(unpacked->held == 3);   // a.txt, d/b.bin, and the empty file already there
  CHECK(unpacked->files == 1);  // d/e/c
  CHECK(unpacked->replaced == 1);
  CHECK(lstatOf(s / "dest/a.txt").st_ino == inoA);
  CHECK(lstatOf(s / "dest/d/b.bin").st_ino == inoB);
  CHECK((lstatOf(s / "dest/d/b.bin").st_mode & 07777) == 0600);
  CHECK(mtimeNsOf(s / "dest/a.txt") == 1'600'000'000'000'000'001);
  CHECK(readFile(s / "dest/d/e/c") == "GAMMA!");
  CHECK(!hasStaging(s.path));
}

TEST_CASE("a held file deleted or changed on the agent before the unpack fails that entry and says to send again") {
  Scratch s;
  makeSmallTree(s / "tree");
  copyTree(s, "dest");
  TreeDigestCache cache;
  const ScannedTree scan = scanOf(s / "tree", cache);
  PackedScan packed(s / "tree", scan, std::vector<bool>(scan.entries.size(), false), s / "bundle");
  REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
  ::unlink((s / "dest/a.txt").c_str());
  writeFile(s / "dest/d/e/c", "GAMMA", 0640);  // same size, other bytes and mtime
  auto unpacked = unpackInto(packed.fd, s.path, "dest", false);
  REQUIRE_MESSAGE(unpacked.ok(), messageOf(unpacked));
  CHECK(failuresOf(*unpacked) == std::vector<std::string>{
                                     "a.txt: changed on this agent since hnowd asked; send again",
                                     "d/e/c: changed on this agent since hnowd asked; send again",
                                 });
  CHECK(unpacked->held == 2);   // d/b.bin, and the empty file (always in the bundle) already there
  CHECK(unpacked->files == 0);
  CHECK(!exists(s / "dest/a.txt"));
  CHECK(readFile(s / "dest/d/e/c") == "GAMMA");
  CHECK(!hasStaging(s.path));
}

TEST_CASE("an atomic unpack copies held files from the old tree into the new one and removes the old tree") {
  Scratch s;
  makeSmallTree(s / "tree");
  copyTree(s, "dest");
  writeFile(s / "dest/extra", "not in the tree");
  setMtime(s / "dest/a.txt", 1'234'567'890, 0);  // the same bytes, another mtime: checked by digest
  TreeDigestCache cache;
  const ScannedTree scan = scanOf(s / "tree", cache);
  PackedScan packed(s / "tree", scan, sendOnly(scan, {"d/e/c"}), s / "bundle", sendOnly(scan, {"a.txt"}));
  REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
  const ino_t oldIno = lstatOf(s / "dest/d/b.bin").st_ino;
  auto unpacked = unpackInto(packed.fd, s.path, "dest", true);
  REQUIRE_MESSAGE(unpacked.ok(), messageOf(unpacked));
  CHECK(unpacked->held == 2);
  CHECK(unpacked->files == 2);  // d/e/c and the empty file
  CHECK(unpacked->bytes == 5);
  CHECK(unpacked->deleted == 1);  // extra
  CHECK(failuresOf(*unpacked).empty());
  CHECK(!exists(s / "dest/extra"));
  CHECK(readFile(s / "dest/a.txt") == readFile(s / "tree/a.txt"));
  CHECK(readFile(s / "dest/d/b.bin") == readFile(s / "tree/d/b.bin"));
  CHECK(lstatOf(s / "dest/d/b.bin").st_ino != oldIno);  // a copy in the new tree
  CHECK((lstatOf(s / "dest/d/b.bin").st_mode & 07777) == 0600);
  CHECK(mtimeNsOf(s / "dest/a.txt") == 1'600'000'000'000'000'001);
  CHECK(namesIn(s.path) == std::set<std::string>{"bundle", "dest", "tree", "whole"});
}

TEST_CASE("an atomic unpack whose held file changed on the agent fails as a whole, names the file and leaves the old tree") {
  Scratch s;
  makeSmallTree(s / "tree");
  copyTree(s, "dest");
  TreeDigestCache cache;
  const ScannedTree scan = scanOf(s / "tree", cache);
  PackedScan packed(s / "tree", scan, sendOnly(scan, {"a.txt"}), s / "bundle");
  REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
  writeFile(s / "dest/d/e/c", "GAMMA", 0640);
  auto unpacked = unpackInto(packed.fd, s.path, "dest", true);
  REQUIRE_FALSE(unpacked.ok());
  CHECK(unpacked.error().message == "cannot unpack the tree into " + s / "dest" +
                                        ": cannot write \"d/e/c\": its bytes are no longer those this agent held: "
                                        "changed on this agent since hnowd asked; send again");
  CHECK(readFile(s / "dest/d/e/c") == "GAMMA");
  CHECK(namesIn(s.path) == std::set<std::string>{"bundle", "dest", "tree", "whole"});
  // No tree there at all: the same, for the first held file.
  auto none = unpackInto(packed.fd, s.path, "elsewhere", true);
  REQUIRE_FALSE(none.ok());
  CHECK_MESSAGE(none.error().message.find("\"d/b.bin\": this agent no longer holds it: changed on this agent since "
                                          "hnowd asked; send again") != std::string::npos,
                messageOf(none));
  CHECK(namesIn(s.path) == std::set<std::string>{"bundle", "dest", "tree", "whole"});
}

TEST_CASE("deleteOthers removes an extra file, directory tree and symlink, and keeps what the tree names and hnow's temp files") {
  Scratch s;
  makeSmallTree(s / "tree");
  copyTree(s, "dest");
  ::mkdir((s / "outside").c_str(), 0755);
  writeFile(s / "outside/target", "never touched");
  writeFile(s / "dest/extra.txt", "extra");
  ::mkdir((s / "dest/d/extra-dir").c_str(), 0755);
  ::mkdir((s / "dest/d/extra-dir/sub").c_str(), 0500);
  writeFile(s / "dest/d/extra-dir/sub/f", "deep");
  ::symlink((s / "outside").c_str(), (s / "dest/d/e/out-link").c_str());
  ::symlink((s / "outside/target").c_str(), (s / "dest/file-link").c_str());
  ::mkdir((s / "dest/.x.hnow-stage-0123456789abcdef").c_str(), 0700);
  writeFile(s / "dest/d/.f.hnow-0123456789abcdef.part", "under way");
  TreeDigestCache cache;
  const ScannedTree scan = scanOf(s / "tree", cache);
  PackedScan packed(s / "tree", scan, std::vector<bool>(scan.entries.size(), false), s / "bundle");
  REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
  auto unpacked = unpackInto(packed.fd, s.path, "dest", false, true);
  REQUIRE_MESSAGE(unpacked.ok(), messageOf(unpacked));
  CHECK(failuresOf(*unpacked).empty());
  CHECK(unpacked->deleted == 4);
  CHECK(unpacked->held == 4);  // every file: three held, the empty one already there
  CHECK(namesIn(s / "dest") == std::set<std::string>{".x.hnow-stage-0123456789abcdef", "a.txt", "d", "empty", "link"});
  CHECK(namesIn(s / "dest/d") == std::set<std::string>{".f.hnow-0123456789abcdef.part", "b.bin", "e"});
  CHECK(namesIn(s / "dest/d/e") == std::set<std::string>{"c"});
  CHECK(readFile(s / "outside/target") == "never touched");
  CHECK(namesIn(s / "outside") == std::set<std::string>{"target"});
  // The directories' mtimes are the tree's, set after the removals.
  CHECK(mtimeNsOf(s / "dest/d") == mtimeNsOf(s / "tree/d"));
  // Without the flag nothing is removed.
  writeFile(s / "dest/extra.txt", "extra");
  auto kept = unpackInto(packed.fd, s.path, "dest", false);
  REQUIRE_MESSAGE(kept.ok(), messageOf(kept));
  CHECK(kept->deleted == 0);
  CHECK(exists(s / "dest/extra.txt"));
}

TEST_CASE("a file of the bundle already there with the same size and mtime is kept and counted held, not replaced") {
  Scratch s;
  makeSmallTree(s / "tree");
  copyTree(s, "dest");
  ::chmod((s / "dest/a.txt").c_str(), 0600);
  writeFile(s / "dest/d/e/c", "GAMMA", 0640);  // same size, another mtime: replaced
  const ino_t inoA = lstatOf(s / "dest/a.txt").st_ino;
  Packed packed(s / "tree", s / "bundle");
  REQUIRE(packed.tree.ok());
  auto unpacked = unpackInto(packed.fd, s.path, "dest", false);
  REQUIRE_MESSAGE(unpacked.ok(), messageOf(unpacked));
  CHECK(failuresOf(*unpacked).empty());
  CHECK(unpacked->held == 3);  // a.txt, d/b.bin, empty
  CHECK(unpacked->files == 1);
  CHECK(unpacked->replaced == 1);
  CHECK(unpacked->bytes == 5);
  CHECK(lstatOf(s / "dest/a.txt").st_ino == inoA);
  CHECK((lstatOf(s / "dest/a.txt").st_mode & 07777) == 0644);
  CHECK(readFile(s / "dest/d/e/c") == "gamma");
  CHECK(!hasStaging(s.path));
}

TEST_CASE("a held entry without a digest is kept when its size and mtime match, in place and atomic") {
  Scratch s;
  makeSmallTree(s / "tree");
  copyTree(s, "dest");
  TreeDigestCache cache;
  const ScannedTree scan = scanOf(s / "tree", cache);
  PackedScan packed(s / "tree", scan, std::vector<bool>(scan.entries.size(), false), s / "bundle");
  REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
  auto index = readTreeIndex(packed.fd);
  REQUIRE_MESSAGE(index.ok(), messageOf(index));
  for (const TreeEntry& e : index->entries) CHECK_FALSE(e.withSha256);
  auto inPlace = unpackInto(packed.fd, s.path, "dest", false);
  REQUIRE_MESSAGE(inPlace.ok(), messageOf(inPlace));
  CHECK(failuresOf(*inPlace).empty());
  CHECK(inPlace->held == 4);
  auto atomic = unpackInto(packed.fd, s.path, "dest", true);
  REQUIRE_MESSAGE(atomic.ok(), messageOf(atomic));
  CHECK(atomic->held == 3);
  CHECK(readFile(s / "dest/d/b.bin") == readFile(s / "tree/d/b.bin"));
}

TEST_CASE("a held entry without a digest fails when its mtime differs on the agent, even with the same bytes") {
  Scratch s;
  makeSmallTree(s / "tree");
  copyTree(s, "dest");
  TreeDigestCache cache;
  const ScannedTree scan = scanOf(s / "tree", cache);
  PackedScan packed(s / "tree", scan, std::vector<bool>(scan.entries.size(), false), s / "bundle");
  REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
  setMtime(s / "dest/a.txt", 1'234'567'890, 0);  // the same bytes, another mtime: no digest to tell
  auto inPlace = unpackInto(packed.fd, s.path, "dest", false);
  REQUIRE_MESSAGE(inPlace.ok(), messageOf(inPlace));
  CHECK(failuresOf(*inPlace) ==
        std::vector<std::string>{"a.txt: changed on this agent since hnowd asked; send again"});
  CHECK(mtimeNsOf(s / "dest/a.txt") == 1'234'567'890'000'000'000);
  auto atomic = unpackInto(packed.fd, s.path, "dest", true);
  REQUIRE_FALSE(atomic.ok());
  CHECK_MESSAGE(atomic.error().message.find("\"a.txt\": its bytes are no longer those this agent held: changed on "
                                            "this agent since hnowd asked; send again") != std::string::npos,
                messageOf(atomic));
}

TEST_CASE("a held entry some agent holds by digest carries its SHA-256 in the bundle and is kept with another mtime") {
  Scratch s;
  makeSmallTree(s / "tree");
  copyTree(s, "dest");
  setMtime(s / "dest/a.txt", 1'234'567'890, 0);
  TreeDigestCache cache;
  const ScannedTree scan = scanOf(s / "tree", cache);
  PackedScan packed(s / "tree", scan, std::vector<bool>(scan.entries.size(), false), s / "bundle",
                    sendOnly(scan, {"a.txt"}));
  REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
  auto index = readTreeIndex(packed.fd);
  REQUIRE_MESSAGE(index.ok(), messageOf(index));
  for (const TreeEntry& e : index->entries) {
    CAPTURE(e.path);
    CHECK(e.withSha256 == (e.path == "a.txt"));
    if (e.path == "a.txt") CHECK(e.sha256 == scan.entries[ordinalOf(scan.entries, "a.txt")].sha256);
  }
  auto unpacked = unpackInto(packed.fd, s.path, "dest", false);
  REQUIRE_MESSAGE(unpacked.ok(), messageOf(unpacked));
  CHECK(failuresOf(*unpacked).empty());
  CHECK(mtimeNsOf(s / "dest/a.txt") == 1'600'000'000'000'000'001);
}

TEST_CASE("a single file's destination is told apart: nothing, another size, the same size without a digest, the same bytes, other bytes, a directory, a symlink or a fifo") {
  Scratch s;
  const std::string bytes = "the course's image, version 2\n";
  Sha256 digest{};
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest.data());
  Sha256 otherDigest = digest;
  otherDigest[0] ^= 1;
  writeFile(s / "same", bytes);
  writeFile(s / "longer", bytes + "x");
  std::string flipped = bytes;
  flipped[0] = 'T';
  writeFile(s / "flipped", flipped);
  REQUIRE(::mkdir((s / "dir").c_str(), 0755) == 0);
  REQUIRE(::symlink((s / "same").c_str(), (s / "link").c_str()) == 0);
  REQUIRE(::mkfifo((s / "fifo").c_str(), 0644) == 0);
  const int dir = ::open(s.path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(dir >= 0);
  const std::uint64_t size = bytes.size();
  CHECK(destHolding(dir, "none", size, nullptr) == DestHolding::kAbsent);
  CHECK(destHolding(dir, "none", size, &digest) == DestHolding::kAbsent);
  CHECK(destHolding(dir, "longer", size, nullptr) == DestHolding::kOther);  // no read: the size tells
  CHECK(destHolding(dir, "same", size, nullptr) == DestHolding::kSameSize);
  CHECK(destHolding(dir, "same", size, &digest) == DestHolding::kSame);
  CHECK(destHolding(dir, "same", size, &otherDigest) == DestHolding::kOther);
  CHECK(destHolding(dir, "flipped", size, nullptr) == DestHolding::kSameSize);
  CHECK(destHolding(dir, "flipped", size, &digest) == DestHolding::kOther);
  CHECK(destHolding(dir, "dir", size, &digest) == DestHolding::kDirectory);
  // A symlink to the same bytes is not followed: it is not the file, and a send replaces the link itself.
  CHECK(destHolding(dir, "link", size, &digest) == DestHolding::kOther);
  CHECK(destHolding(dir, "fifo", 0, &digest) == DestHolding::kOther);  // never opened: no wait for a writer
  ::close(dir);
}

TEST_CASE("a file moved inside the tree on the agent is found by its digest, not sent, and copied from where it is, in place and atomic") {
  for (const bool atomic : {false, true}) {
    CAPTURE(atomic);
    Scratch s;
    makeSmallTree(s / "tree");
    copyTree(s, "dest");
    // On the agent, d/b.bin went to old/b.moved.
    REQUIRE(::mkdir((s / "dest/old").c_str(), 0755) == 0);
    REQUIRE(::rename((s / "dest/d/b.bin").c_str(), (s / "dest/old/b.moved").c_str()) == 0);
    TreeDigestCache cache;
    const ScannedTree scan = scanOf(s / "tree", cache);
    // Round one names no digests: not at its path, a file of its size elsewhere, so asked again.
    const auto plain = queryEntries(scan, false);
    const HeldFiles first = heldIn(plain, s.path, "dest");
    const std::uint32_t b = ordinalOf(plain, "d/b.bin");
    CHECK(std::find(first.missing.begin(), first.missing.end(), b) == first.missing.end());
    CHECK(std::find(first.sameSize.begin(), first.sameSize.end(), b) != first.sameSize.end());
    // Round two, with digests: found under its other path, so not missing.
    const auto withDigests = queryEntries(scan, true);
    const HeldFiles second = heldIn(withDigests, s.path, "dest");
    CHECK(std::find(second.missing.begin(), second.missing.end(), ordinalOf(withDigests, "d/b.bin")) ==
          second.missing.end());
    // The bundle carries none of the files' bytes; b.bin is held by its digest.
    PackedScan packed(s / "tree", scan, std::vector<bool>(scan.entries.size(), false), s / "bundle",
                      sendOnly(scan, {"d/b.bin"}));
    REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
    auto unpacked = unpackInto(packed.fd, s.path, "dest", atomic);
    REQUIRE_MESSAGE(unpacked.ok(), messageOf(unpacked));
    CHECK(failuresOf(*unpacked).empty());
    CHECK(unpacked->copied == 1);
    CHECK(unpacked->bytes == 0);  // only the empty file is in the bundle
    CHECK(readFile(s / "dest/d/b.bin") == std::string(70000, 'b'));
    CHECK(mtimeNsOf(s / "dest/d/b.bin") == 1'600'000'001'000'000'002);
    CHECK((lstatOf(s / "dest/d/b.bin").st_mode & 07777) == 0600);
    // In place, what the tree does not name stays; an atomic tree replaces the old one whole.
    CHECK(exists(s / "dest/old/b.moved") == !atomic);
    CHECK_FALSE(hasStaging(s.path));
  }
}

TEST_CASE("a file held under another tree of the search root is found by its digest, and without the search root it is missing") {
  Scratch s;
  makeSmallTree(s / "tree");
  copyTree(s, "last-term");  // the agent holds the files under another tree of its root
  TreeDigestCache cache;
  const ScannedTree scan = scanOf(s / "tree", cache);
  const auto plain = queryEntries(scan, false);
  const std::uint32_t b = ordinalOf(plain, "d/b.bin");
  // Only the tree itself: nothing there, so every non-empty file is missing.
  const HeldFiles alone = heldIn(plain, s.path, "dest");
  CHECK(std::find(alone.missing.begin(), alone.missing.end(), b) != alone.missing.end());
  // The whole root: a file of its size elsewhere asks for the digest, which then finds it.
  const HeldFiles first = heldIn(plain, s.path, "dest", s.path);
  CHECK(std::find(first.sameSize.begin(), first.sameSize.end(), b) != first.sameSize.end());
  const auto withDigests = queryEntries(scan, true);
  const HeldFiles second = heldIn(withDigests, s.path, "dest", s.path);
  CHECK(std::find(second.missing.begin(), second.missing.end(), ordinalOf(withDigests, "d/b.bin")) ==
        second.missing.end());
}

TEST_CASE("a moved file whose bytes changed before the unpack is not copied: that entry fails and says to send again") {
  Scratch s;
  makeSmallTree(s / "tree");
  copyTree(s, "dest");
  REQUIRE(::rename((s / "dest/d/b.bin").c_str(), (s / "dest/b.moved").c_str()) == 0);
  TreeDigestCache cache;
  const ScannedTree scan = scanOf(s / "tree", cache);
  PackedScan packed(s / "tree", scan, std::vector<bool>(scan.entries.size(), false), s / "bundle",
                    sendOnly(scan, {"d/b.bin"}));
  REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
  writeFile(s / "dest/b.moved", std::string(70000, 'c'), 0600);  // same size, other bytes
  auto unpacked = unpackInto(packed.fd, s.path, "dest", false);
  REQUIRE_MESSAGE(unpacked.ok(), messageOf(unpacked));
  REQUIRE(unpacked->failed.size() == 1);
  CHECK(unpacked->failed[0].path == "d/b.bin");
  CHECK(unpacked->failed[0].why.find(kHeldChanged) != std::string::npos);
  CHECK(unpacked->copied == 0);
  CHECK_FALSE(exists(s / "dest/d/b.bin"));
  CHECK(readFile(s / "dest/b.moved") == std::string(70000, 'c'));
}
