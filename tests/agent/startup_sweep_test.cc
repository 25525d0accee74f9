// What an agent sweeps at start (agent/startup_sweep.h): receive
// temp files anywhere under its roots and everything in .hnow-jobs/, and
// nothing else - not a user's file that merely looks alike, not what a
// symlink points at.
#include "agent/startup_sweep.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "agent/dest_path.h"
#include "cli/run_process.h"

using hnow::agent::isReceiveTempName;
using hnow::agent::sweepLeftovers;
using hnow::testing::TempDir;
namespace fs = std::filesystem;

namespace {
void touch(const fs::path& path) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "x";
}
}  // namespace

TEST_CASE("the temp names dest_path gives are recognised, look-alikes are not") {
  CHECK(isReceiveTempName(".copy.bin.hnow-0123456789abcdef.part"));
  CHECK(isReceiveTempName(".a.hnow-ffffffffffffffff.part"));
  CHECK_FALSE(isReceiveTempName("copy.bin.hnow-0123456789abcdef.part"));    // no leading dot
  CHECK_FALSE(isReceiveTempName(".copy.bin.hnow-0123456789abcdeg.part"));   // not hex
  CHECK_FALSE(isReceiveTempName(".copy.bin.hnow-0123456789abcde.part"));    // 15 digits
  CHECK_FALSE(isReceiveTempName(".copy.bin.hnow-0123456789abcdef.partx"));
  CHECK_FALSE(isReceiveTempName(".hnow-0123456789abcdef.part"));            // no name
  CHECK_FALSE(isReceiveTempName(".hnow-jobs"));
  CHECK_FALSE(isReceiveTempName("report.part"));

  TempDir dir;
  auto target = hnow::agent::openDestination({dir.path.string()}, "sub/copy.bin");
  REQUIRE(target.ok());
  auto& t = target.value();
  CHECK(isReceiveTempName(t.tempName));  // the sweep and dest_path agree
  ::close(t.fileFd);
  ::close(t.dirFd);
}

TEST_CASE("an agent's start sweeps receive temp files under every root and its .hnow-jobs files, nothing else") {
  TempDir dir;
  const fs::path data = dir.path / "data", other = dir.path / "other", outside = dir.path / "outside";
  touch(data / ".big.iso.hnow-0123456789abcdef.part");
  touch(data / "deep" / "er" / ".x.hnow-00000000000000aa.part");
  touch(other / ".y.hnow-00000000000000bb.part");
  touch(data / ".hnow-jobs" / "4f2a9c");
  touch(data / ".hnow-jobs" / "4f2a9c.err");
  touch(data / ".hnow-jobs" / "77.in");
  // Kept: finished files, look-alikes, and anything reached through a symlink.
  touch(data / "big.iso");
  touch(data / "notes.hnow-draft.part");
  touch(outside / ".z.hnow-00000000000000cc.part");
  fs::create_directory_symlink(outside, data / "link");

  auto swept = sweepLeftovers({data.string(), other.string()});
  CHECK(swept.tempFiles == 3);
  CHECK(swept.jobFiles == 3);
  CHECK(swept.errors.empty());
  CHECK_FALSE(fs::exists(data / ".big.iso.hnow-0123456789abcdef.part"));
  CHECK_FALSE(fs::exists(data / "deep" / "er" / ".x.hnow-00000000000000aa.part"));
  CHECK_FALSE(fs::exists(other / ".y.hnow-00000000000000bb.part"));
  CHECK(fs::is_empty(data / ".hnow-jobs"));
  CHECK(fs::exists(data / "big.iso"));
  CHECK(fs::exists(data / "notes.hnow-draft.part"));
  CHECK(fs::exists(outside / ".z.hnow-00000000000000cc.part"));

  // A root that does not exist (yet) is not an error; a second sweep finds nothing.
  auto again = sweepLeftovers({data.string(), (dir.path / "missing").string()});
  CHECK(again.tempFiles == 0);
  CHECK(again.jobFiles == 0);
  CHECK(again.errors.empty());

  // A .hnow-jobs that is a symlink is reported, and what it points at is left alone.
  fs::remove_all(data / ".hnow-jobs");
  touch(outside / "precious");
  fs::create_directory_symlink(outside, data / ".hnow-jobs");
  auto linked = sweepLeftovers({data.string()});
  CHECK(linked.jobFiles == 0);
  REQUIRE(linked.errors.size() == 1);
  CHECK(linked.errors[0].find("is a symlink") != std::string::npos);
  CHECK(fs::exists(outside / "precious"));
}

TEST_CASE("an agent's start removes the staging directories of trees it never published, and a tree's bundle temp file") {
  TempDir dir;
  const fs::path data = dir.path / "data", outside = dir.path / "outside";
  touch(data / "courses" / ".c1.hnow-stage-0123456789abcdef" / "lib" / "a.txt");
  touch(outside / "precious");
  fs::create_directory_symlink(outside, data / "courses" / ".c1.hnow-stage-0123456789abcdef" / "lib" / "link");
  fs::create_directory_symlink(outside, data / ".c2.hnow-stage-00000000000000aa");  // a link by that name: kept
  touch(data / "courses" / "c1" / "kept.txt");

  auto tree = hnow::agent::openTreeDestination({data.string()}, "courses/c3");
  REQUIRE(tree.ok());
  CHECK(isReceiveTempName(tree->bundle.tempName));
  CHECK(isReceiveTempName(tree->bundle.finalName));  // the bundle, whole or not, is a temp file to the sweep
  ::close(tree->bundle.fileFd);
  ::close(tree->bundle.dirFd);
  ::close(tree->parentFd);

  auto swept = sweepLeftovers({data.string()});
  CHECK(swept.stagingDirs == 1);
  CHECK(swept.tempFiles == 1);
  CHECK(swept.errors.empty());
  CHECK_FALSE(fs::exists(data / "courses" / ".c1.hnow-stage-0123456789abcdef"));
  CHECK(fs::exists(outside / "precious"));  // a symlink inside the staging is removed as a link
  CHECK(fs::is_symlink(data / ".c2.hnow-stage-00000000000000aa"));
  CHECK(fs::exists(data / "courses" / "c1" / "kept.txt"));
}

TEST_CASE("the temp file of a 255-byte name is swept at start, and the user's files of long names beside it stay") {
  TempDir dir;
  const fs::path data = dir.path / "data";
  const std::string name(255, 'n');
  fs::create_directories(data);
  auto target = hnow::agent::openDestination({data.string()}, "in/" + name);
  REQUIRE_MESSAGE(target.ok(), target.error().message);
  ::close(target->fileFd);
  ::close(target->dirFd);
  touch(data / "in" / name);  // an earlier copy, finished
  // A user's names that share the temp name's start, or its marker without the hex.
  const std::string cut = target->tempName.substr(0, target->tempName.size() - 5);
  touch(data / "in" / (cut + ".txt"));
  touch(data / "in" / ("." + std::string(227, 'n') + ".hnow-draft.part"));
  auto swept = sweepLeftovers({data.string()});
  CHECK(swept.tempFiles == 1);
  CHECK(swept.errors.empty());
  CHECK_FALSE(fs::exists(data / "in" / target->tempName));
  CHECK(fs::exists(data / "in" / name));
  CHECK(fs::exists(data / "in" / (cut + ".txt")));
  CHECK(fs::exists(data / "in" / ("." + std::string(227, 'n') + ".hnow-draft.part")));
}
