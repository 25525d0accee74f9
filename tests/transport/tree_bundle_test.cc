// A directory tree as one bundle (transport/data/tree_bundle.h): the
// index's encoding and everything its decoder refuses, the staging names,
// and what packTree leaves out of a tree. Unpacking: tree_unpack_test.cc.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <vector>

#include "transport/tree_fixture.h"

using namespace hnow::transport::data;
using namespace hnow::testing;

namespace {

constexpr std::uint64_t kStart = 1000, kEnd = 100000;  // the data region the table's indices use

TreeEntry dirEntry(const std::string& path, std::uint32_t mode = 0755) {
  TreeEntry e;
  e.kind = TreeEntryKind::kDirectory;
  e.path = path;
  e.mode = mode;
  e.mtimeNs = 1'700'000'000'123'456'789;
  return e;
}

TreeEntry fileEntry(const std::string& path, std::uint64_t offset, std::uint64_t size, std::uint32_t mode = 0644) {
  TreeEntry e = dirEntry(path, mode);
  e.kind = TreeEntryKind::kFile;
  e.offset = offset;
  e.size = size;  // no digest: a packed file's bytes are checked by the bundle's SHA-256
  return e;
}

TreeEntry symlinkEntry(const std::string& path, const std::string& target) {
  TreeEntry e = dirEntry(path, 0777);
  e.kind = TreeEntryKind::kSymlink;
  e.target = target;
  return e;
}

bool sameEntry(const TreeEntry& a, const TreeEntry& b) {
  return a.kind == b.kind && a.path == b.path && a.mode == b.mode && a.mtimeNs == b.mtimeNs && a.size == b.size &&
         a.offset == b.offset && a.sha256 == b.sha256 && a.target == b.target;
}

std::string errorOf(const std::string& index) {
  auto decoded = decodePlainTreeIndex(index, kStart, kEnd);
  return decoded ? std::string("(accepted)") : decoded.error().message;
}

}  // namespace

TEST_CASE("an index keeps every field of directories, files and symlinks through encoding and decoding") {
  const std::vector<TreeEntry> entries = {dirEntry("a", 0750), fileEntry("a/f", kStart, 10, 0600), fileEntry("a/empty", kStart + 10, 0),
                                          symlinkEntry("a/l", "f"), symlinkEntry("up", "a/../a/f"), fileEntry("top", kStart + 10, 5)};
  const std::string bytes = encodePlainTreeIndex(entries);
  auto decoded = decodePlainTreeIndex(bytes, kStart, kEnd);
  REQUIRE_MESSAGE(decoded.ok(), messageOf(decoded));
  REQUIRE(decoded->size() == entries.size());
  for (std::size_t k = 0; k < entries.size(); ++k) CHECK(sameEntry(decoded.value()[k], entries[k]));
  CHECK(encodePlainTreeIndex(*decoded) == bytes);
  CHECK(decodePlainTreeIndex(encodePlainTreeIndex({}), kStart, kEnd)->empty());
}

TEST_CASE("decodeTreeIndex refuses each malformed index and says which entry and what is wrong") {
  std::string unknownKind = encodePlainTreeIndex({dirEntry("a")});
  unknownKind[1] = 0;
  std::string tooMany = encodePlainTreeIndex({});
  tooMany = std::string("\x81\xad\xe2\x04", 4);  // 10,000,001 entries
  std::string countTooHigh = encodePlainTreeIndex({dirEntry("a")});
  countTooHigh[0] = 2;
  struct Case {
    const char* what;
    std::string index;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"an unknown kind", unknownKind, "entry 0: unknown kind 0"},
      {"an empty path", encodePlainTreeIndex({dirEntry("")}), "its path is empty"},
      {"an absolute path", encodePlainTreeIndex({dirEntry("/etc")}), "its path is absolute"},
      {"an empty component", encodePlainTreeIndex({dirEntry("a"), dirEntry("a//b")}), "its path has an empty component"},
      {"a trailing slash", encodePlainTreeIndex({dirEntry("a/")}), "its path has an empty component"},
      {"a . component", encodePlainTreeIndex({dirEntry("./a")}), "its path has a \".\" component"},
      {"a .. component", encodePlainTreeIndex({dirEntry("a"), dirEntry("a/../b")}), "its path has a \"..\" component"},
      {"a NUL byte", encodePlainTreeIndex({dirEntry(std::string("a\0b", 3))}), "its path holds a NUL byte"},
      {"a path too long", encodePlainTreeIndex({dirEntry(std::string(4097, 'x'))}), "its path is longer than 4096 bytes"},
      {"a name too long", encodePlainTreeIndex({dirEntry(std::string(256, 'x'))}), "a component of 256 bytes, more than 255"},
      {"a duplicate", encodePlainTreeIndex({dirEntry("a"), fileEntry("a", kStart, 1)}), "entry 1 (\"a\"): its path is listed twice"},
      {"a missing parent", encodePlainTreeIndex({fileEntry("a/f", kStart, 1)}), "its directory \"a\" is not listed before it"},
      {"a parent listed after", encodePlainTreeIndex({fileEntry("a/f", kStart, 1), dirEntry("a")}), "\"a\" is not listed before it"},
      {"an entry under a file", encodePlainTreeIndex({fileEntry("a", kStart, 1), dirEntry("a/b")}),
       "it lies under \"a\", which is a file, not a directory"},
      {"an entry under a symlink", encodePlainTreeIndex({dirEntry("d"), symlinkEntry("l", "d"), fileEntry("l/f", kStart, 1)}),
       "it lies under \"l\", which is a symlink, not a directory"},
      {"an absolute symlink", encodePlainTreeIndex({symlinkEntry("l", "/etc/passwd")}), "symlink target \"/etc/passwd\" is absolute"},
      {"a symlink climbing out", encodePlainTreeIndex({symlinkEntry("l", "../x")}), "\"../x\" leads outside the tree"},
      {"a symlink climbing out from below", encodePlainTreeIndex({dirEntry("d"), symlinkEntry("d/l", "x/../../../y")}),
       "leads outside the tree"},
      {"an empty symlink target", encodePlainTreeIndex({symlinkEntry("l", "")}), "symlink target \"\" is empty"},
      {"a NUL in a symlink target", encodePlainTreeIndex({symlinkEntry("l", std::string("a\0b", 3))}), "target holds a NUL byte"},
      {"a symlink target too long", encodePlainTreeIndex({symlinkEntry("l", std::string(4097, 'x'))}), "longer than 4096 bytes"},
      {"bytes before the data", encodePlainTreeIndex({fileEntry("f", kStart - 1, 1)}), "lie outside the bundle's data [1000, 100000)"},
      {"bytes past the bundle", encodePlainTreeIndex({fileEntry("f", kEnd - 1, 2)}), "lie outside the bundle's data"},
      {"an offset that wraps", encodePlainTreeIndex({fileEntry("f", ~0ull - 1, 4)}), "lie outside the bundle's data"},
      {"an empty file past the end", encodePlainTreeIndex({fileEntry("f", kEnd + 1, 0)}), "lie outside the bundle's data"},
      {"overlapping files", encodePlainTreeIndex({fileEntry("f", kStart, 10), fileEntry("g", kStart + 9, 10)}),
       "entry 1 (\"g\"): its bytes from offset 1009 overlap those of entry 0 (\"f\")"},
      {"a mode beyond 07777", encodePlainTreeIndex({dirEntry("a", 010000)}), "its mode 4096 has bits beyond 07777"},
      {"trailing bytes", encodePlainTreeIndex({dirEntry("a")}) + "x", "1 bytes after its last entry"},
      {"too many entries", tooMany, "lists 10000001 entries, more than 10000000"},
      {"fewer entries than counted", countTooHigh, "ends inside entry 1, before its kind"},
      {"no count", std::string("\x80", 1), "shorter than its entry count"},
      {"a name printed safely", encodePlainTreeIndex({dirEntry("a\nb\xff"), dirEntry("a\nb\xff")}),
       "entry 1 (\"a\\x0ab\\xff\"): its path is listed twice"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const std::string error = errorOf(c.index);
    CHECK_MESSAGE(error.find(c.says) != std::string::npos, error);
  }
}

TEST_CASE("an index cut short anywhere is refused, and file bytes ending exactly at the bundle's end are accepted") {
  const std::string whole =
      encodePlainTreeIndex({dirEntry("d"), fileEntry("d/f", kStart, 3), symlinkEntry("d/l", "f"), fileEntry("g", kEnd - 5, 5)});
  REQUIRE(decodePlainTreeIndex(whole, kStart, kEnd).ok());
  for (std::size_t cut = 0; cut < whole.size(); ++cut) {
    CAPTURE(cut);
    auto decoded = decodePlainTreeIndex(whole.substr(0, cut), kStart, kEnd);
    REQUIRE_FALSE(decoded.ok());
    CHECK(!decoded.error().message.empty());
  }
}

TEST_CASE("a symlink stays inside the tree only while its .. components never climb above the top") {
  CHECK(treeSymlinkStaysInside("l", "a/b"));
  CHECK(treeSymlinkStaysInside("d/e/l", "../../x"));
  CHECK(treeSymlinkStaysInside("d/l", "./../x//y/"));
  CHECK(treeSymlinkStaysInside("l", "a/../b"));
  CHECK_FALSE(treeSymlinkStaysInside("d/e/l", "../../../x"));
  CHECK_FALSE(treeSymlinkStaysInside("l", ".."));
  CHECK_FALSE(treeSymlinkStaysInside("l", "a/../../b"));
  CHECK_FALSE(treeSymlinkStaysInside("l", "/tmp"));
  CHECK_FALSE(treeSymlinkStaysInside("l", ""));
}

TEST_CASE("isTreeStagingName matches only .NAME.hnow-stage- and 16 lowercase hex digits") {
  CHECK(isTreeStagingName(".data.hnow-stage-0123456789abcdef"));
  CHECK(isTreeStagingName(".a.b.hnow-stage-ffffffffffffffff"));
  CHECK_FALSE(isTreeStagingName("..hnow-stage-0123456789abcdef"));  // no name
  CHECK_FALSE(isTreeStagingName("data.hnow-stage-0123456789abcdef"));
  CHECK_FALSE(isTreeStagingName(".data.hnow-stage-0123456789ABCDEF"));
  CHECK_FALSE(isTreeStagingName(".data.hnow-stage-0123456789abcde"));
  CHECK_FALSE(isTreeStagingName(".data.hnow-stage-0123456789abcdef0"));
  CHECK_FALSE(isTreeStagingName(".data.hnow-0123456789abcdef.part"));
  CHECK_FALSE(isTreeStagingName("data"));
}

TEST_CASE("packTree leaves out absolute and escaping symlinks and a fifo, lists each with why, and keeps the rest") {
  Scratch s;
  const std::string top = s / "tree";
  ::mkdir(top.c_str(), 0755);
  ::mkdir((top + "/d").c_str(), 0755);
  writeFile(top + "/d/f", "bytes");
  ::symlink("/etc/passwd", (top + "/abs").c_str());
  ::symlink("../../outside", (top + "/d/escape").c_str());
  ::symlink("../d/f", (top + "/d/inside").c_str());
  ::mkfifo((top + "/fifo").c_str(), 0644);
  Packed packed(top, s / "bundle");
  REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
  std::vector<std::string> paths;
  for (const TreeEntry& e : packed.tree->entries) paths.push_back(e.path);
  CHECK(paths == std::vector<std::string>{"d", "d/f", "d/inside"});
  REQUIRE(packed.tree->refused.size() == 3);
  CHECK(packed.tree->refused[0].path == "abs");
  CHECK(packed.tree->refused[0].why == "symlink to /etc/passwd leads outside the tree");
  CHECK(packed.tree->refused[1].path == "d/escape");
  CHECK(packed.tree->refused[1].why == "symlink to ../../outside leads outside the tree");
  CHECK(packed.tree->refused[2].path == "fifo");
  CHECK(packed.tree->refused[2].why == "not a regular file, directory or symlink");
  CHECK(packed.tree->files == 1);
  CHECK(packed.tree->fileBytes == 5);
  CHECK(packed.tree->size == static_cast<std::uint64_t>(lstatOf(s / "bundle").st_size));
  auto index = readTreeIndex(packed.fd);
  REQUIRE(index.ok());
  CHECK(index->entries.size() == 3);
}

TEST_CASE("packTree leaves out a file it cannot read (run as nobody when the tests run as root, who reads anything)") {
  Scratch s;
  const std::string top = s / "tree";
  ::chmod(s.path.c_str(), 0755);
  ::mkdir(top.c_str(), 0755);
  writeFile(top + "/secret", "no", 0000);
  writeFile(top + "/open", "yes", 0644);
  const int fd = ::open((s / "bundle").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  // The outcome as an exit status: 0 refused as expected, 1 not, 2 no pack, 3 could not become nobody.
  const auto check = [&]() -> int {
    auto packed = packTree(top, fd);
    if (!packed) return 2;
    const auto& r = packed->refused;
    const bool ok = r.size() == 1 && r[0].path == "secret" && r[0].why == "cannot read: Permission denied" &&
                    packed->entries.size() == 1 && packed->entries[0].path == "open";
    return ok ? 0 : 1;
  };
  int outcome = 0;
  if (::geteuid() != 0) {
    outcome = check();
  } else {
    const pid_t child = ::fork();
    if (child == 0) _exit(::setgid(65534) == 0 && ::setuid(65534) == 0 ? check() : 3);
    int status = 0;
    ::waitpid(child, &status, 0);
    outcome = WIFEXITED(status) ? WEXITSTATUS(status) : 4;
  }
  ::close(fd);
  if (outcome == 3) {
    MESSAGE("skipped: running as root and cannot become nobody; root reads any file");
    return;
  }
  CHECK(outcome == 0);
}

TEST_CASE("packTree writes the same bundle twice for the same tree, and fails for a missing directory or a file") {
  Scratch s;
  const std::string top = s / "tree";
  ::mkdir(top.c_str(), 0755);
  for (const char* name : {"b", "a", "a.txt", "c"}) writeFile(top + "/" + name, name);
  ::unlink((top + "/a").c_str());
  ::mkdir((top + "/a").c_str(), 0700);
  writeFile(top + "/a/inner", "inner");
  std::string first, second;
  {
    Packed p(top, s / "one");
    REQUIRE(p.tree.ok());
    std::vector<std::string> paths;
    for (const TreeEntry& e : p.tree->entries) paths.push_back(e.path);
    // Depth-first in byte order: a directory, then what it holds, then the names after it.
    CHECK(paths == std::vector<std::string>{"a", "a/inner", "a.txt", "b", "c"});
  }
  { Packed p(top, s / "two"); }
  CHECK(readFile(s / "one") == readFile(s / "two"));
  CHECK(readFile(s / "one").substr(0, 8) == "HNOWTRE2");
  {
    Packed missing(s / "missing", s / "three");
    REQUIRE_FALSE(missing.tree.ok());
    CHECK(missing.tree.error().message.find("cannot read the directory " + s / "missing") != std::string::npos);
    Packed notDir(top + "/b", s / "four");
    REQUIRE_FALSE(notDir.tree.ok());
    CHECK(notDir.tree.error().message == top + "/b is not a directory");
  }
}
