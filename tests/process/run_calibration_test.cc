// `hnow run`'s calibration on a local cluster of real processes: ordinary
// filters that fail on no input (grep exits 1 when it finds nothing) are
// calibrated on the sample; a command failing on the sample fails the run
// saying which run, where, and what to do.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "process/child_process.h"
#include "process/test_cluster.h"

using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TestCluster;
namespace fs = std::filesystem;

namespace {

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
