// daemon/server/output_temps.h: the marker of an --output temp file, and
// the start-up sweep removing what a crash left, never anything else.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "server/output_temps.h"

using namespace hnow::daemon;
namespace fs = std::filesystem;

namespace {

struct Scratch {
  fs::path root;
  Scratch() {
    char name[] = "/tmp/hnow-output-temps-XXXXXX";
    root = ::mkdtemp(name);
  }
  ~Scratch() { fs::remove_all(root); }
  void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
};

}  // namespace

TEST_CASE("output temp names are hnowd's pattern only") {
  CHECK(outputTempName("out.txt", 12) == ".out.txt.hnow-12.part");
  CHECK(isOutputTempName(outputTempName("r", 3)));
  CHECK(isOutputTempName(".out.txt.hnow-12.part"));
  CHECK(isOutputTempName(".x.hnow-1.part"));
  CHECK_FALSE(isOutputTempName("out.txt.hnow-12.part"));  // not hidden
  CHECK_FALSE(isOutputTempName(".out.txt.hnow-.part"));   // no job number
  CHECK_FALSE(isOutputTempName(".out.txt.hnow-1a.part"));
  CHECK_FALSE(isOutputTempName(".out.txt.part"));
  CHECK_FALSE(isOutputTempName(".hnow-1.part"));  // no output name
  CHECK_FALSE(isOutputTempName(".out.hnow-1.part.bak"));
  CHECK_FALSE(isOutputTempName(""));
}

TEST_CASE("a marker names its temp file while it lives") {
  Scratch s;
  const std::string jobs = (s.root / "jobs").string();
  {
    OutputTempMarker marker(jobs, 7, "/data/out", ".r.hnow-7.part");
    std::ifstream in(jobs + "/output-7.temp");
    std::string dir, name;
    REQUIRE(std::getline(in, dir));
    REQUIRE(std::getline(in, name));
    CHECK(dir == "/data/out");
    CHECK(name == ".r.hnow-7.part");
  }
  CHECK_FALSE(fs::exists(jobs + "/output-7.temp"));
}

TEST_CASE("the start-up sweep removes the marked temp files inside the run roots and nothing else") {
  Scratch s;
  const fs::path root = s.root / "runs", outside = s.root / "elsewhere", jobs = s.root / "jobs";
  fs::create_directories(jobs);
  s.write(root / "a" / ".r.hnow-3.part", "half a result");              // a crash's leftover
  s.write(root / "a" / "r", "an earlier, finished output");               // never touched
  s.write(outside / ".r.hnow-4.part", "not under a root");
  s.write(root / "b" / "precious", "a user's file");
  fs::create_symlink(root / "b" / "precious", root / "b" / ".p.hnow-5.part");  // a symlink, not a file of ours
  fs::create_directories(root / "real");
  s.write(root / "real" / ".q.hnow-6.part", "reached through a symlinked directory");
  fs::create_directory_symlink(root / "real", root / "linked");
  auto mark = [&](int job, const fs::path& dir, const std::string& name) {
    s.write(jobs / ("output-" + std::to_string(job) + ".temp"), dir.string() + "\n" + name + "\n");
  };
  mark(3, root / "a", ".r.hnow-3.part");
  mark(4, outside, ".r.hnow-4.part");
  mark(5, root / "b", ".p.hnow-5.part");
  mark(6, root / "linked", ".q.hnow-6.part");
  mark(8, root / "a", "r");                        // a name hnowd never writes
  s.write(jobs / "output-9.temp", (root / "a").string());  // cut short by the crash
  mark(10, root / "gone", ".z.hnow-10.part");      // already renamed, directory gone
  s.write(jobs / "job-3-1234" / ".share.part", "a share");  // jobs/ itself is the caller's

  const OutputTempSweep swept = sweepOutputTemps(jobs.string(), {root.string()});
  REQUIRE(swept.removed.size() == 1);
  CHECK(swept.removed[0] == (root / "a" / ".r.hnow-3.part").string());
  CHECK_FALSE(fs::exists(root / "a" / ".r.hnow-3.part"));
  CHECK(fs::exists(root / "a" / "r"));
  CHECK(fs::exists(outside / ".r.hnow-4.part"));
  CHECK(fs::exists(root / "b" / "precious"));
  CHECK(fs::is_symlink(root / "b" / ".p.hnow-5.part"));
  CHECK(fs::exists(root / "real" / ".q.hnow-6.part"));
  CHECK(swept.skipped.size() >= 4);  // outside, symlinked directory, bad name, cut short (and the gone directory)
  CHECK(fs::exists(jobs / "job-3-1234" / ".share.part"));
}

TEST_CASE("the start-up sweep of a missing jobs directory does nothing") {
  const OutputTempSweep swept = sweepOutputTemps("/nonexistent/hnow-jobs", {"/tmp"});
  CHECK(swept.removed.empty());
  CHECK(swept.skipped.empty());
}
