// The modes a tree brings (transport/data/tree_bundle.h, receivedMode): a
// receiver writes a tree as its own user (root, for an agent that runs as
// root), so no setuid or setgid bit lands from one, nor a file's sticky
// bit; a directory's sticky bit, which only restricts, stays. In a
// bundle's files and directories, in place and atomic, and on files held
// already, whose mode the index sets.
#include <doctest/doctest.h>

#include "transport/data/tree_bundle.h"
#include "transport/tree_fixture.h"

using namespace hnow::transport::data;
using namespace hnow::testing;

namespace {

mode_t modeOf(const std::string& path) { return lstatOf(path).st_mode & 07777; }

// A setuid copy of a program, a setgid and a sticky file, a setgid and a sticky directory.
void makePrivilegedTree(const std::string& top) {
  ::mkdir(top.c_str(), 0755);
  writeFile(top + "/id", "#!/bin/sh\nid\n");
  writeFile(top + "/both", "setuid and setgid");
  writeFile(top + "/sticky", "a sticky file");
  ::mkdir((top + "/shared").c_str(), 0755);
  ::mkdir((top + "/drop").c_str(), 0755);
  writeFile(top + "/shared/f", "f");
  ::chmod((top + "/id").c_str(), 04755);
  ::chmod((top + "/both").c_str(), 06750);
  ::chmod((top + "/sticky").c_str(), 01644);
  ::chmod((top + "/shared").c_str(), 02775);
  ::chmod((top + "/drop").c_str(), 01777);
}

}  // namespace

TEST_CASE("receivedMode drops setuid and setgid from every entry and the sticky bit from files only") {
  CHECK(receivedMode(TreeEntryKind::kFile, 04755) == 0755);
  CHECK(receivedMode(TreeEntryKind::kFile, 06750) == 0750);
  CHECK(receivedMode(TreeEntryKind::kFile, 01644) == 0644);
  CHECK(receivedMode(TreeEntryKind::kFile, 0600) == 0600);
  CHECK(receivedMode(TreeEntryKind::kDirectory, 02775) == 0775);
  CHECK(receivedMode(TreeEntryKind::kDirectory, 07777) == 01777);
  CHECK(receivedMode(TreeEntryKind::kDirectory, 01777) == 01777);
  CHECK(receivedMode(TreeEntryKind::kSymlink, 04777) == 0777);
}

TEST_CASE("a tree's setuid, setgid and sticky files land without those bits, in place and atomic, and the unpack counts them") {
  Scratch s;
  makePrivilegedTree(s / "tree");
  REQUIRE(modeOf(s / "tree/id") == 04755);  // the source keeps them: hnowd packs what it finds
  Packed packed(s / "tree", s / "bundle");
  REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
  for (bool atomic : {true, false}) {
    CAPTURE(atomic);
    const std::string name = atomic ? "atomic" : "in-place";
    auto unpacked = unpackInto(packed.fd, s.path, name, atomic);
    REQUIRE_MESSAGE(unpacked.ok(), messageOf(unpacked));
    CHECK(unpacked->failed.empty());
    CHECK(modeOf(s / name + "/id") == 0755);
    CHECK(modeOf(s / name + "/both") == 0750);
    CHECK(modeOf(s / name + "/sticky") == 0644);
    CHECK(modeOf(s / name + "/shared") == 0775);
    CHECK(modeOf(s / name + "/drop") == 01777);  // a sticky directory only keeps others from removing what is not theirs
    CHECK(readFile(s / name + "/id") == "#!/bin/sh\nid\n");
    CHECK(unpacked->clearedModes == 4);  // id, both, sticky, shared
  }
}

TEST_CASE("a held file named setuid by the tree keeps its bytes and inode and gets the mode without the bit") {
  Scratch s;
  makePrivilegedTree(s / "tree");
  Packed first(s / "tree", s / "bundle");
  REQUIRE(first.tree.ok());
  auto sent = unpackInto(first.fd, s.path, "dest", false);
  REQUIRE(sent.ok());
  ::chmod((s / "dest/id").c_str(), 0700);  // changed on the agent since
  const ino_t ino = lstatOf(s / "dest/id").st_ino;
  TreeDigestCache cache;
  const ScannedTree now = scanOf(s / "tree", cache);
  CHECK(missingIn(queryEntries(now), s.path, "dest").empty());
  PackedScan held(s / "tree", now, sendOnly(now, {}), s / "held.bundle");
  REQUIRE_MESSAGE(held.tree.ok(), messageOf(held.tree));
  auto again = unpackInto(held.fd, s.path, "dest", false);
  REQUIRE_MESSAGE(again.ok(), messageOf(again));
  CHECK(again->held == 4);
  CHECK(lstatOf(s / "dest/id").st_ino == ino);
  CHECK(modeOf(s / "dest/id") == 0755);
}
