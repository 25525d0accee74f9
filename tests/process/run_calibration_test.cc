// `hnow run`'s calibration on a local cluster of real processes: ordinary
// filters that fail on no input (grep exits 1 when it finds nothing) are
// calibrated on the sample; a command failing on the sample fails the run
// saying which run, where, and what to do; an agent whose command hangs is
// left out at the calibration deadline, its command killed.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process/child_process.h"
#include "process/test_cluster.h"

using hnow::testing::eventually;
using hnow::testing::processAlive;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TestCluster;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// The pid written in `file`, once it is there.
pid_t pidIn(const fs::path& file) {
  eventually([&] { return fs::exists(file) && !readWhole(file).empty(); }, 20s);
  return static_cast<pid_t>(std::stol("0" + readWhole(file)));
}

// 1..n, one a line; and how many lines hold a 7 (what grep -c 7 counts).
std::string numbers(int n, long& sevens) {
  std::string text;
  sevens = 0;
  for (int i = 1; i <= n; ++i) {
    const std::string line = std::to_string(i);
    text += line + "\n";
    if (line.find('7') != std::string::npos) ++sevens;
  }
  return text;
}

long sumOfLines(const std::string& text) {
  std::istringstream in(text);
  long total = 0;
  for (long n; in >> n;) total += n;
  return total;
}

}  // namespace

TEST_CASE("hnow run: grep -c 7, which exits 1 on empty input, is calibrated on the sample and counts right") {
  TestCluster cluster("--agents 3");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path input = cluster.dir.path / "numbers.txt";
  long sevens = 0;
  std::ofstream(input) << numbers(60000, sevens);  // any 10 lines in a row hold a 7: so does every share

  auto r = runCommand(cluster.hnow("run --input " + input.string() + " --cmd 'grep -c 7' --concat"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(sumOfLines(r.out) == sevens);
  // The empty-input run's exit is noted, not fatal.
  CHECK(cluster.logHas("hnowd", "run 1: calibrating on agent-1: the run on empty input failed ('grep -c 7' exited "
                                "with status 1); it measures start-up only"));

  // On the sample itself a failure is the command's: the run fails, saying
  // which run, on which agent, and how to see why.
  auto none = runCommand(cluster.hnow("run --input " + input.string() + " --cmd 'grep -c zzz' --concat"));
  CHECK(none.status == 1);
  CHECK_MESSAGE(none.err.find("calibrating on agent-") != std::string::npos, none.err);
  CHECK_MESSAGE(none.err.find(": the run on a sample of ") != std::string::npos, none.err);
  CHECK_MESSAGE(none.err.find(" units) failed: 'grep -c zzz' exited with status 1. Every share runs the command on a "
                              "part of the input like this one") != std::string::npos,
                none.err);
  const std::string hint = "head -c ";
  const auto at = none.err.find(hint);
  REQUIRE_MESSAGE(at != std::string::npos, none.err);
  // The hint runs as printed: the sample's bytes through the command, here as on an agent.
  std::string command = none.err.substr(at);
  command = command.substr(0, command.find('\n'));
  auto tried = runCommand(command);
  CHECK(tried.status == 1);
  CHECK(tried.out == "0\n");
}

TEST_CASE("hnow run: a command that hangs in calibration on one agent only leaves that agent out at the deadline, its processes killed") {
  TestCluster cluster("--agents 3");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path input = cluster.dir.path / "numbers.txt";
  long sevens = 0;
  std::ofstream(input) << numbers(60000, sevens);
  const fs::path marks = cluster.dir.path / "marks";
  fs::create_directories(marks);
  // Only on agent-3 (its job files, stdin here, lie under its own root) the
  // command hangs: it starts a sleep and waits for it, its pids noted.
  const std::string hang = "case $(readlink /proc/$$/fd/0) in */agent-3/*) echo $$ > " + marks.string() +
                           "/shell; sleep 1000 & echo $! > " + marks.string() + "/sleep; wait;; esac; grep -c 7";
  const auto start = std::chrono::steady_clock::now();
  auto r = runCommand(cluster.hnow("run --input " + input.string() + " --shell --cmd '" + hang + "' --concat --json --output " +
                                   (cluster.dir.path / "out.txt").string()));
  const auto took = std::chrono::steady_clock::now() - start;
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(sumOfLines(readWhole(cluster.dir.path / "out.txt")) == sevens);
  // The others calibrate in well under a second: the deadline is the 10 s floor.
  CHECK(took >= 9s);
  CHECK(took < 40s);
  const auto report = nlohmann::json::parse(r.out);
  for (const auto& a : report["agents"]) {
    if (a["name"] != "agent-3") continue;
    CHECK(a["units"] == 0);
    REQUIRE(a["failures"].size() == 1);
    const std::string why = a["failures"][0];
    CHECK_MESSAGE(why.rfind("left out: the run on empty input did not finish within 10 s, the calibration deadline", 0) == 0, why);
    CHECK_MESSAGE(why.find("its command killed. Check that the command ends on its own there") != std::string::npos, why);
  }
  CHECK(cluster.logHas("hnowd", "run 1: agent-3 left out: the run on empty input did not finish within 10 s"));
  // Its command and what it started are gone.
  const pid_t shell = pidIn(marks / "shell"), sleeper = pidIn(marks / "sleep");
  REQUIRE(shell > 0);
  REQUIRE(sleeper > 0);
  CHECK(eventually([&] { return !processAlive(shell) && !processAlive(sleeper); }, 5s));
  for (const char* name : {"hnowd", "agent-1", "agent-2", "agent-3"}) CHECK(processAlive(cluster.pid(name)));
}
