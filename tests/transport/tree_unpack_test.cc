// A packed tree unpacked beside its destination (transport/data/tree_bundle.h):
// what each publish leaves there, and that a failure leaves no staging.
#include <doctest/doctest.h>

#include <vector>

#include "transport/tree_fixture.h"

using namespace hnow::transport::data;
using namespace hnow::testing;

namespace {

// A tree with a bit of everything, at `top`.
void makeTree(const std::string& top) {
  ::mkdir(top.c_str(), 0755);
  ::mkdir((top + "/docs").c_str(), 0750);
  ::mkdir((top + "/docs/deep").c_str(), 0755);
  ::mkdir((top + "/docs/deep/er").c_str(), 0755);
  ::mkdir((top + "/empty").c_str(), 0700);
  writeFile(top + "/docs/deep/er/note.txt", "deep note\n", 0600);
  writeFile(top + "/empty-file", "", 0644);
  std::string big(3 << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 2654435761u) >> 13);
  writeFile(top + "/big.bin", big, 0755);
  ::symlink("docs/deep/er/note.txt", (top + "/note-link").c_str());
  ::symlink("../../big.bin", (top + "/docs/deep/big-link").c_str());
  setMtime(top + "/big.bin", 1'600'000'000, 123'456'789);
  setMtime(top + "/docs/deep/er/note.txt", 1'500'000'000, 1);
  setMtime(top + "/note-link", 1'400'000'000, 999'999'999);
  setMtime(top + "/docs/deep/er", 1'300'000'000, 42);
  setMtime(top + "/docs", 1'200'000'000, 7);
  setMtime(top + "/empty", 1'100'000'000, 500);
}

std::int64_t mtimeNs(const std::string& path) {
  const struct stat info = lstatOf(path);
  return static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
}

// Every path in `a` and `b` holds the same kind, bytes or target, mode and mtime.
void checkSameTree(const std::string& a, const std::string& b, const std::string& under = "") {
  CAPTURE(under);
  REQUIRE(namesIn(a + under) == namesIn(b + under));
  for (const std::string& name : namesIn(a + under)) {
    const std::string path = under + "/" + name;
    CAPTURE(path);
    const struct stat x = lstatOf(a + path), y = lstatOf(b + path);
    CHECK((x.st_mode & S_IFMT) == (y.st_mode & S_IFMT));
    if (!S_ISLNK(x.st_mode)) CHECK((x.st_mode & 07777) == (y.st_mode & 07777));
    if (S_ISDIR(x.st_mode)) checkSameTree(a, b, path);
    if (S_ISREG(x.st_mode)) CHECK(readFile(a + path) == readFile(b + path));
    if (S_ISLNK(x.st_mode)) {
      char t1[256] = {}, t2[256] = {};
      CHECK(::readlink((a + path).c_str(), t1, sizeof t1 - 1) == ::readlink((b + path).c_str(), t2, sizeof t2 - 1));
      CHECK(std::string(t1) == std::string(t2));
    }
    CHECK(mtimeNs(a + path) == mtimeNs(b + path));
  }
}

}  // namespace

TEST_CASE("a tree with nested and empty directories, an empty and a 3 MiB file and symlinks comes back whole") {
  Scratch s;
  makeTree(s / "tree");
  Packed packed(s / "tree", s / "bundle");
  REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
  CHECK(packed.tree->refused.empty());
  CHECK(packed.tree->files == 3);
  CHECK(packed.tree->fileBytes == (3u << 20) + 10);
  ::mkdir((s / "out").c_str(), 0755);
  auto unpacked = unpackInto(packed.fd, s / "out", "tree", true);
  REQUIRE_MESSAGE(unpacked.ok(), messageOf(unpacked));
  CHECK(unpacked->files == 3);
  CHECK(unpacked->bytes == (3u << 20) + 10);
  CHECK(unpacked->replaced == 0);
  CHECK(unpacked->failed.empty());
  checkSameTree(s / "tree", s / "out/tree");
  CHECK((lstatOf(s / "out/tree/big.bin").st_mode & 07777) == 0755);
  CHECK((lstatOf(s / "out/tree/docs/deep/er/note.txt").st_mode & 07777) == 0600);
  CHECK((lstatOf(s / "out/tree/docs").st_mode & 07777) == 0750);
  CHECK(mtimeNs(s / "out/tree/big.bin") == 1'600'000'000'123'456'789);
  CHECK(mtimeNs(s / "out/tree/docs/deep/er") == 1'300'000'000'000'000'042);
  CHECK(namesIn(s / "out") == std::set<std::string>{"tree"});
  // The same bundle in place into a missing destination: the same tree.
  auto inPlace = unpackInto(packed.fd, s / "out", "again", false);
  REQUIRE_MESSAGE(inPlace.ok(), messageOf(inPlace));
  CHECK(inPlace->files == 3);
  CHECK(inPlace->failed.empty());
  checkSameTree(s / "tree", s / "out/again");
  CHECK(namesIn(s / "out") == std::set<std::string>{"again", "tree"});
}

TEST_CASE("names with a newline and with invalid UTF-8 bytes come back as they were") {
  Scratch s;
  const std::string top = s / "tree";
  ::mkdir(top.c_str(), 0755);
  ::mkdir((top + "/dir\nwith newline").c_str(), 0755);
  writeFile(top + "/dir\nwith newline/bad\xff\xfe utf8", "odd");
  writeFile(top + "/caf\xc3\xa9", "ok");
  Packed packed(top, s / "bundle");
  REQUIRE(packed.tree.ok());
  CHECK(packed.tree->refused.empty());
  auto unpacked = unpackInto(packed.fd, s.path, "out", true);
  REQUIRE_MESSAGE(unpacked.ok(), messageOf(unpacked));
  CHECK(readFile(s / "out/dir\nwith newline/bad\xff\xfe utf8") == "odd");
  checkSameTree(top, s / "out");
}

TEST_CASE("an atomic unpack over an existing directory leaves exactly the tree and no staging directory") {
  Scratch s;
  makeTree(s / "tree");
  ::mkdir((s / "dest").c_str(), 0711);
  ::mkdir((s / "dest/old-dir").c_str(), 0500);  // removed even without write permission
  writeFile(s / "dest/old-dir/x", "x");
  writeFile(s / "dest/old.txt", "old");
  writeFile(s / "dest/big.bin", "an older big.bin");
  Packed packed(s / "tree", s / "bundle");
  REQUIRE(packed.tree.ok());
  auto unpacked = unpackInto(packed.fd, s.path, "dest", true);
  REQUIRE_MESSAGE(unpacked.ok(), messageOf(unpacked));
  CHECK(unpacked->replaced == 1);  // big.bin
  CHECK(!exists(s / "dest/old.txt"));
  CHECK(!exists(s / "dest/old-dir"));
  checkSameTree(s / "tree", s / "dest");
  CHECK((lstatOf(s / "dest").st_mode & 07777) == 0711);  // the top keeps its mode
  CHECK(namesIn(s.path) == std::set<std::string>{"bundle", "dest", "tree"});
}

TEST_CASE("an unpack in place keeps what the tree does not name, replaces a different file and counts it") {
  Scratch s;
  makeTree(s / "tree");
  ::mkdir((s / "dest").c_str(), 0755);
  ::mkdir((s / "dest/docs").c_str(), 0755);
  writeFile(s / "dest/keep.txt", "mine");
  writeFile(s / "dest/docs/keep-too", "mine too");
  writeFile(s / "dest/big.bin", "an older big.bin");
  ::symlink("/etc", (s / "dest/note-link").c_str());  // replaced as a link, never followed
  Packed packed(s / "tree", s / "bundle");
  REQUIRE(packed.tree.ok());
  auto unpacked = unpackInto(packed.fd, s.path, "dest", false);
  REQUIRE_MESSAGE(unpacked.ok(), messageOf(unpacked));
  CHECK(unpacked->files == 3);
  CHECK(unpacked->replaced == 1);
  CHECK(unpacked->failed.empty());
  CHECK(readFile(s / "dest/keep.txt") == "mine");
  CHECK(readFile(s / "dest/docs/keep-too") == "mine too");
  CHECK(readFile(s / "dest/big.bin") == readFile(s / "tree/big.bin"));
  char target[64] = {};
  ::readlink((s / "dest/note-link").c_str(), target, sizeof target - 1);
  CHECK(std::string(target) == "docs/deep/er/note.txt");
  CHECK(mtimeNs(s / "dest/docs") == 1'200'000'000'000'000'007);
  CHECK(!hasStaging(s.path));
}

TEST_CASE("an unpack in place lists a directory in a file's place and a file in a directory's place as failed and publishes the rest") {
  Scratch s;
  makeTree(s / "tree");
  ::mkdir((s / "dest").c_str(), 0755);
  ::mkdir((s / "dest/big.bin").c_str(), 0755);  // a directory where the tree has a file
  writeFile(s / "dest/big.bin/inside", "kept");
  writeFile(s / "dest/docs", "a file where the tree has a directory");
  Packed packed(s / "tree", s / "bundle");
  REQUIRE(packed.tree.ok());
  auto unpacked = unpackInto(packed.fd, s.path, "dest", false);
  REQUIRE_MESSAGE(unpacked.ok(), messageOf(unpacked));
  std::vector<std::string> failed;
  for (const TreeProblem& p : unpacked->failed) failed.push_back(p.path + ": " + p.why);
  CHECK(failed == std::vector<std::string>{
                      "big.bin: a directory is in the way",
                      "docs: a file is in the way; nothing was removed",
                      "docs/deep: its directory was not published",
                      "docs/deep/big-link: its directory was not published",
                      "docs/deep/er: its directory was not published",
                      "docs/deep/er/note.txt: its directory was not published",
                  });
  CHECK(unpacked->files == 1);  // empty-file
  CHECK(readFile(s / "dest/big.bin/inside") == "kept");
  CHECK(readFile(s / "dest/docs") == "a file where the tree has a directory");
  CHECK(exists(s / "dest/empty"));
  CHECK(exists(s / "dest/empty-file"));
  CHECK(exists(s / "dest/note-link"));
  CHECK(!hasStaging(s.path));
}

TEST_CASE("an unpack where the destination is a file fails, leaves the file alone and leaves no staging") {
  Scratch s;
  makeTree(s / "tree");
  writeFile(s / "dest", "a file");
  Packed packed(s / "tree", s / "bundle");
  REQUIRE(packed.tree.ok());
  for (bool atomic : {true, false}) {
    CAPTURE(atomic);
    auto unpacked = unpackInto(packed.fd, s.path, "dest", atomic);
    REQUIRE_FALSE(unpacked.ok());
    CHECK(unpacked.error().message == s / "dest is a file; remove it or send to another --dest");
    CHECK(readFile(s / "dest") == "a file");
    CHECK(namesIn(s.path) == std::set<std::string>{"bundle", "dest", "tree"});
  }
}

TEST_CASE("a truncated or damaged bundle fails the unpack and leaves neither the destination nor a staging directory") {
  Scratch s;
  makeTree(s / "tree");
  Packed packed(s / "tree", s / "bundle");
  REQUIRE(packed.tree.ok());
  const std::string whole = readFile(s / "bundle");
  struct Case {
    const char* what;
    std::string bytes;
    std::string says;
  };
  std::string badMagic = whole;
  badMagic[0] = 'X';
  std::string olderMagic = whole;
  olderMagic[7] = '1';
  const std::vector<Case> cases = {
      {"cut in the last file", whole.substr(0, whole.size() - 1), "lie outside the bundle's data"},
      {"cut in the index", whole.substr(0, 40), "the tree's index claims"},
      {"cut in the header", whole.substr(0, 10), "shorter than its header"},
      {"another magic", badMagic, "does not start with HNOWTRE2"},
      {"the older format", olderMagic, "of the format HNOWTRE1, from an older hnowd"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    writeFile(s / "damaged", c.bytes);
    const int fd = ::open((s / "damaged").c_str(), O_RDONLY | O_CLOEXEC);
    for (bool atomic : {true, false}) {
      auto unpacked = unpackInto(fd, s.path, "dest", atomic);
      REQUIRE_FALSE(unpacked.ok());
      CHECK_MESSAGE(unpacked.error().message.find(c.says) != std::string::npos, messageOf(unpacked));
      CHECK(unpacked.error().message.find("cannot unpack the tree into " + s / "dest") == 0);
      CHECK(namesIn(s.path) == std::set<std::string>{"bundle", "damaged", "tree"});
    }
    ::close(fd);
  }
}

TEST_CASE("a bundle whose symlink cannot be created fails as a whole and removes the staging written so far") {
  // A 4096-byte target passes the index's checks but not symlinkat (PATH_MAX counts the NUL).
  std::vector<TreeEntry> entries(3);
  entries[0].kind = TreeEntryKind::kDirectory, entries[0].path = "d", entries[0].mode = 0755;
  entries[1].kind = TreeEntryKind::kFile, entries[1].path = "d/f", entries[1].mode = 0644, entries[1].size = 4;
  entries[2].kind = TreeEntryKind::kSymlink, entries[2].path = "l", entries[2].target = std::string(4096, 'a');
  // The data at 1000: the index and zeros fill the room before it.
  constexpr std::uint64_t kDataStart = 1000;
  entries[1].offset = kDataStart;
  const std::string bundle = handMadeBundle(entries, kDataStart, "data");
  Scratch s;
  writeFile(s / "bundle", bundle);
  const int fd = ::open((s / "bundle").c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(readTreeIndex(fd).ok());
  for (bool atomic : {true, false}) {
    auto unpacked = unpackInto(fd, s.path, "dest", atomic);
    REQUIRE_FALSE(unpacked.ok());
    CHECK_MESSAGE(unpacked.error().message.find("cannot write \"l\": File name too long") != std::string::npos,
                  messageOf(unpacked));
    CHECK(namesIn(s.path) == std::set<std::string>{"bundle"});
  }
  ::close(fd);
}
