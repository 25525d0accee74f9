#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>

#include "agent/dest_path.h"
#include "agent/startup_sweep.h"
#include "cli/run_process.h"

using hnow::agent::openDestination;
using hnow::testing::TempDir;
using hnow::transport::data::ReceiveTarget;
namespace fs = std::filesystem;

namespace {
void closeTarget(const ReceiveTarget& t) {
  ::close(t.fileFd);
  ::close(t.dirFd);
}
std::string refusal(const std::vector<std::string>& roots, const std::string& dest) {
  auto r = openDestination(roots, dest);
  if (r) {
    auto* t = &r.value();
    closeTarget(*t);
    return "";
  }
  return r.error().message;
}
}  // namespace

TEST_CASE("a relative destination goes under the data root, directories created, a temp file beside it") {
  TempDir dir;
  fs::create_directories(dir.path / "root");
  auto r = openDestination({(dir.path / "root").string()}, "a/b/file.bin");
  auto* t = r ? &r.value() : nullptr;
  REQUIRE(t);
  CHECK(t->path == fs::canonical(dir.path / "root").string() + "/a/b/file.bin");
  CHECK(t->finalName == "file.bin");
  CHECK(fs::exists(dir.path / "root" / "a" / "b" / t->tempName));
  CHECK_FALSE(fs::exists(dir.path / "root" / "a" / "b" / "file.bin"));
  closeTarget(*t);
}

TEST_CASE("'..', paths outside every root and symlinked directories are refused") {
  TempDir dir;
  fs::create_directories(dir.path / "root");
  fs::create_directories(dir.path / "other");
  const std::vector<std::string> roots{(dir.path / "root").string(), (dir.path / "other").string()};
  CHECK(refusal(roots, "../x").find("'..'") != std::string::npos);
  CHECK(refusal(roots, "a/../../x").find("'..'") != std::string::npos);
  CHECK(refusal(roots, "/etc/passwd").find("outside") != std::string::npos);
  CHECK(refusal(roots, (dir.path / "rootx" / "f").string()).find("outside") != std::string::npos);
  CHECK(refusal(roots, "dir/").find("must name a file") != std::string::npos);
  fs::create_directory_symlink(dir.path, dir.path / "root" / "link");
  CHECK(refusal(roots, "link/f").find("symlink") != std::string::npos);
  CHECK(refusal(roots, (dir.path / "other" / "f").string()).empty());  // inside the second root
  CHECK_FALSE(fs::exists(dir.path / "f"));
}

TEST_CASE("a compressed file's destination holds a scratch file and the temp file it expands into, both named as the startup sweep removes") {
  TempDir dir;
  fs::create_directories(dir.path / "root" / "in");
  auto r = hnow::agent::openCompressedDestination({(dir.path / "root").string()}, "in/log.txt");
  REQUIRE(r);
  auto& d = r.value();
  const fs::path in = dir.path / "root" / "in";
  CHECK(d.name == "log.txt");
  CHECK(d.parentPath == fs::canonical(in).string());
  CHECK_FALSE(d.scratch.durable);
  CHECK(d.scratch.path == d.parentPath + "/" + d.scratch.finalName);
  for (const std::string& name : {d.scratch.tempName, d.scratch.finalName, d.outputName}) {
    CHECK(name.rfind(".log.txt.hnow-", 0) == 0);
    CHECK(name.size() == std::string(".log.txt.hnow-").size() + 16 + 5);
  }
  CHECK(fs::exists(in / d.scratch.tempName));
  CHECK(fs::exists(in / d.outputName));
  CHECK_FALSE(fs::exists(in / "log.txt"));
  closeTarget(d.scratch);
  ::close(d.outputFd);
  ::close(d.parentFd);
  // A directory where the file would go is refused before anything is made.
  fs::create_directories(in / "taken");
  auto taken = hnow::agent::openCompressedDestination({(dir.path / "root").string()}, "in/taken");
  REQUIRE_FALSE(taken);
  CHECK(taken.error().message.find("is a directory") != std::string::npos);
}

TEST_CASE("a destination named with 255 bytes gets temp and scratch names that fit NAME_MAX, which the startup sweep recognizes") {
  TempDir dir;
  fs::create_directories(dir.path / "root" / "in");
  const std::vector<std::string> roots{(dir.path / "root").string()};
  // 227 bytes fitted before (228 with the 28 a temp name adds); 228 to 255 did not. And one cut inside a
  // two-byte UTF-8 letter: the temp name keeps whole letters.
  const std::string ascii(255, 'n'), letters = std::string(1, 'x') + [] {
    std::string s;
    for (int i = 0; i < 127; ++i) s += "\xc3\xa9";  // é
    return s;
  }();
  for (const std::string& name : {std::string(228, 'n'), ascii, letters}) {
    CAPTURE(name.size());
    auto r = openDestination(roots, "in/" + name);
    REQUIRE_MESSAGE(r, r.error().message);
    const ReceiveTarget& t = r.value();
    CHECK(t.finalName == name);
    CHECK(t.tempName.size() <= 255);
    CHECK(hnow::agent::isReceiveTempName(t.tempName));
    CHECK(t.tempName.rfind("." + name.substr(0, 100), 0) == 0);  // still says which file it is for
    CHECK(fs::exists(dir.path / "root" / "in" / t.tempName));
    closeTarget(r.value());
    auto c = hnow::agent::openCompressedDestination(roots, "in/" + name);
    REQUIRE_MESSAGE(c, c.error().message);
    for (const std::string& scratch : {c->scratch.tempName, c->scratch.finalName, c->outputName}) {
      CHECK(scratch.size() <= 255);
      CHECK(hnow::agent::isReceiveTempName(scratch));
    }
    closeTarget(c->scratch);
    ::close(c->outputFd);
    ::close(c->parentFd);
    auto tree = hnow::agent::openTreeDestination(roots, "in/" + name);
    REQUIRE_MESSAGE(tree, tree.error().message);
    CHECK(tree->bundle.tempName.size() <= 255);
    CHECK(hnow::agent::isReceiveTempName(tree->bundle.finalName));
    closeTarget(tree->bundle);
    ::close(tree->parentFd);
  }
  for (const auto& e : fs::directory_iterator(dir.path / "root" / "in")) {
    const std::string name = e.path().filename().string();
    const bool wholeLetters = name.find("\xc3\x2e") == std::string::npos;  // no é cut before the marker
    CHECK(wholeLetters);
  }
}
