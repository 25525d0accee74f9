// The fault matrix, an agent's row: an agent SIGKILLed right after it
// finished its share, while its result waits behind the others' in the
// return order, and started again at once (as systemd's Restart= does).
// Its new process gives the result back to the same hnowd, which collects
// it: the share is not computed again, whether hnowd saw the agent gone
// (JobRun::revive) or only saw it log in again (job_service_returns.cc).
#include <doctest/doctest.h>

#include <random>

#include "process/fault_lab.h"

using hnow::testing::eventually;
using hnow::testing::FaultLab;
using hnow::testing::readWhole;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

std::size_t countIn(const fs::path& dir, const std::string& suffix = "") {
  std::size_t n = 0;
  std::error_code error;
  for (auto it = fs::directory_iterator(dir, error); !error && it != fs::directory_iterator(); it.increment(error)) {
    const std::string name = it->path().filename().string();
    n += name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  }
  return n;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

TEST_CASE("fault matrix: an agent killed after it finished its share and started again at once - its result is given back and collected, not computed again") {
  FaultLab lab(3, "--uplink-mbps 40 --source-uplink-mbps 40");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  const fs::path input = lab.dir.path / "words.txt", output = lab.dir.path / "words.out";
  const fs::path markers = lab.dir.path / "markers", scratch = lab.dir.path / "scratch";
  fs::create_directories(markers);
  fs::create_directories(scratch);
  // --strategy equal: a third each, in agent order, and results come back
  // in that order. The first two thirds are marked slow: agent-1 and
  // agent-2 compute 4 s, agent-3 at once, and its result waits for theirs.
  std::mt19937 random(7);
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    if (i < 1900) text += "slowmark ";
    for (int w = 0; w < 5; ++w) {
      for (int c = 0; c < 5; ++c) text += static_cast<char>('a' + random() % 26);
      text += w == 4 ? '\n' : ' ';
    }
  }
  std::ofstream(input) << text;
  const std::string in = scratch.string() + "/in.$$";
  const std::string command = "cat > " + in + "; touch " + markers.string() + "/$$; if grep -q slowmark " + in +
                              "; then sleep 4; fi; tr a-z A-Z < " + in + "; rm -f " + in;
  auto run = lab.startClient("run --input " + input.string() + " --shell --cmd '" + command +
                                 "' --strategy equal --rounds 1 --concat --output " + output.string(),
                             "run");
  // Its share ended: the outcome beside its result (agent/job_runner_held.cc).
  const fs::path jobs3 = lab.root(3) / ".hnow-jobs";
  auto phase = [&]() -> std::string {
    for (const auto& op : lab.ops())
      if (op.contains("progress")) return op["progress"];
    return "";
  };
  REQUIRE(eventually([&] { return phase().rfind("running", 0) == 0; }, 30s));
  REQUIRE(eventually([&] { return countIn(jobs3, ".done") > 0; }, 20s));
  CHECK(countIn(scratch) == 2);  // agent-1 and agent-2 still compute theirs
  const std::size_t runsAtKill = countIn(markers);
  REQUIRE(lab.kill("agent-3"));
  lab.restart("agent-3");

  auto status = run->waitExit(60s);
  REQUIRE(status.has_value());
  CHECK_MESSAGE(*status == 0, readWhole(lab.errPath("run")));
  CHECK(readWhole(output) == upper(text));
  CHECK(countIn(markers) == runsAtKill);  // no command ran after the kill
  const std::string log = readWhole(lab.dir.path / "logs" / "hnowd.log");
  const bool seenGone = log.find("agent-3 restarted and gave back the result") != std::string::npos;
  const bool heldOn = log.find("agent-3 logged in again and still holds the result") != std::string::npos;
  CHECK((seenGone || heldOn));
  MESSAGE("fault matrix: agent-3 killed with its result not yet collected and started again: hnowd "
          << std::string(heldOn ? "saw it log in again" : "saw it gone and back") << ", " << countIn(markers) - runsAtKill
          << " command runs after the kill");
  REQUIRE(lab.allReady());
  CHECK_MESSAGE(eventually([&] { return lab.leftovers() == 0; }, 5s), "job files left on the agents");
}

TEST_CASE("fault matrix: every agent killed during --reduce's reduction and started again at once - their share results are given back and reduced, no share is computed again") {
  FaultLab lab(3, "--uplink-mbps 40 --source-uplink-mbps 40");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  const fs::path input = lab.dir.path / "numbers.txt", output = lab.dir.path / "sum.txt";
  const fs::path shareMarks = lab.dir.path / "shares", reduceMarks = lab.dir.path / "reduces";
  fs::create_directories(shareMarks);
  fs::create_directories(reduceMarks);
  std::string lines;
  long long sum = 0;
  for (int i = 1; i <= 30000; ++i) lines += std::to_string(i * 7 % 1000) + "\n", sum += i * 7 % 1000;
  std::ofstream(input) << lines;
  // Each command run leaves a marker: a share's (calibration included) in
  // one directory, a combine's in the other; a combine takes 0.5 s, and at
  // the first one every agent is killed: all three hold their share's
  // result (a combine's inputs are dropped only once it succeeds).
  const std::string sumCmd = "awk '{s+=\\$1} END {print s+0}'";
  auto run = lab.startClient("run --input " + input.string() + " --shell --rounds 1 --cmd \"touch " +
                                 shareMarks.string() + "/\\$\\$; " + sumCmd + "\" --reduce \"touch " +
                                 reduceMarks.string() + "/\\$\\$; sleep 0.5; " + sumCmd + "\" --output " +
                                 output.string(),
                             "run");
  REQUIRE(eventually([&] { return countIn(reduceMarks) > 0; }, 30s));
  const std::size_t sharesAtKill = countIn(shareMarks);
  for (int k = 1; k <= lab.agents(); ++k) REQUIRE(lab.kill(FaultLab::name(k)));
  for (int k = 1; k <= lab.agents(); ++k) lab.restart(FaultLab::name(k));

  auto status = run->waitExit(60s);
  REQUIRE(status.has_value());
  CHECK_MESSAGE(*status == 0, readWhole(lab.errPath("run")));
  CHECK(readWhole(output) == std::to_string(sum) + "\n");
  CHECK(countIn(shareMarks) == sharesAtKill);  // no share's command ran after the kill
  const std::string log = readWhole(lab.dir.path / "logs" / "hnowd.log");
  CHECK(log.find("partial result(s) of the reduction: used, not computed again") != std::string::npos);
  MESSAGE("fault matrix: every agent killed during the reduction and started again: "
          << countIn(shareMarks) - sharesAtKill << " share command runs after the kill, " << countIn(reduceMarks)
          << " combine runs in all");
  REQUIRE(lab.allReady());
  CHECK_MESSAGE(eventually([&] { return lab.leftovers() == 0; }, 5s), "job files left on the agents");
}
