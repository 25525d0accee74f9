#include <doctest/doctest.h>

#include <deque>

#include "core/jobs/job_calibration.h"

using hnow::Error;
using hnow::ManualClock;
using hnow::daemon::AgentLink;
using hnow::daemon::CalibrationCache;
using hnow::daemon::CalibrationOutcome;
using hnow::daemon::CalibrationRuns;
using hnow::daemon::calibrateAgent;
using hnow::daemon::calibrationDeadlineS;
using hnow::daemon::calibrationFrom;
using hnow::daemon::calibrationSampleUnits;
using hnow::daemon::JobCalibration;
using namespace std::chrono_literals;

namespace {

// An agent that records what it was asked and answers when the test says.
struct ScriptedAgent final : AgentLink {
  void setEmulatedRates(const hnow::daemon::EmulatedRates&, Done done) override { done({}); }
  void probeNow() override {}
  void fetchJobFile(const JobFileOrder& file, Done done) override {
    calls.push_back("fetch " + file.token);
    fetches.push_back(std::move(done));
  }
  void runJobTask(const JobTaskOrder& task, TaskDone done) override {
    calls.push_back("run " + (task.inputs.empty() ? std::string("-") : task.inputs[0]) + " > " + task.resultToken);
    runs.push_back(std::move(done));
  }
  std::vector<std::string> calls;
  std::deque<Done> fetches;
  std::deque<TaskDone> runs;
};

AgentLink::JobTaskAnswer ran(double computeS, std::uint64_t size) {
  AgentLink::JobTaskAnswer r;
  r.exitCode = 0;
  r.computeS = computeS;
  r.size = size;
  return r;
}

const CalibrationRuns kRuns{{"sample", 1000, "sha", "hnowd:7000"}, {"wc", "-l"}, "empty-out", "sample-out"};

}  // namespace

namespace {
// The sample's units over `size` bytes cut by `split`.
std::uint64_t sampleUnits(std::size_t size, const char* split, std::size_t agents) {
  const std::string input(size, 'x');
  auto read = [&input](std::uint64_t offset, std::size_t length) -> hnow::Result<std::string> {
    return input.substr(std::min<std::uint64_t>(offset, input.size()), length);
  };
  auto index = hnow::conf::UnitIndex::scan(hnow::conf::parseSplitSpec(split).value(), size, read);
  REQUIRE(index);
  return calibrationSampleUnits(*index, read, agents).value();
}
}  // namespace

TEST_CASE("the calibration sample takes units up to an eighth of an even share, within 16-256 KiB, at least one") {
  CHECK(sampleUnits(8 << 20, "bytes:1024", 4) == 256);    // 8 MiB / 32 = 256 KiB, the most
  CHECK(sampleUnits(8 << 20, "bytes:1024", 16) == 64);    // 8 MiB / 128 = 64 KiB
  CHECK(sampleUnits(8 << 20, "bytes:1024", 1024) == 16);  // 8 KiB would be too little: 16 KiB
  CHECK(sampleUnits(2 << 20, "bytes:1048576", 2) == 1);   // big units: one
  CHECK(sampleUnits(20, "bytes:10", 2) == 2);             // a small input: all of it
}

TEST_CASE("a calibration is the sample run less the empty run, per unit, and the result bytes per input byte") {
  const JobCalibration c = calibrationFrom(0.05, ran(0.25, 500), 10, 1000);
  CHECK(c.fixedS == doctest::Approx(0.05));
  CHECK(c.secondsPerUnit == doctest::Approx(0.02));
  CHECK(c.resultRatio == doctest::Approx(0.5));
  // Start-up noise larger than the work: a tenth of the sample run still counts as work.
  CHECK(calibrationFrom(0.3, ran(0.2, 0), 10, 1000).secondsPerUnit == doctest::Approx(0.002));
}

TEST_CASE("a calibration is reused for its lifetime, per agent and command, and then measured again") {
  ManualClock clock;
  CalibrationCache cache(clock, 5min);
  const std::string key = CalibrationCache::keyOf("wc -l", "lines", false);
  JobCalibration c;
  c.secondsPerUnit = 0.01;
  c.at = clock.now();
  cache.store("a1", key, c);
  clock.advance(4min);
  REQUIRE(cache.find("a1", key));
  CHECK(cache.find("a1", key)->secondsPerUnit == 0.01);
  CHECK_FALSE(cache.find("a2", key));
  CHECK_FALSE(cache.find("a1", CalibrationCache::keyOf("wc -l", "bytes:4096", false)));
  CHECK_FALSE(cache.find("a1", CalibrationCache::keyOf("wc -l", "lines", true)));
  clock.advance(1min);
  CHECK_FALSE(cache.find("a1", key));
}

TEST_CASE("an agent's calibration fetches the sample, runs the command on nothing, then on the sample") {
  ScriptedAgent agent;
  std::vector<CalibrationOutcome> outcomes;
  calibrateAgent([&]() -> AgentLink* { return &agent; }, kRuns, [] { return true; },
                 [&](const CalibrationOutcome& o) { outcomes.push_back(o); });
  REQUIRE(agent.fetches.size() == 1);
  agent.fetches.front()({});
  REQUIRE(agent.runs.size() == 1);
  agent.runs.front()(ran(0.05, 0));
  REQUIRE(agent.runs.size() == 2);
  agent.runs.back()(ran(0.3, 700));
  CHECK(agent.calls == std::vector<std::string>{"fetch sample", "run - > empty-out", "run sample > sample-out"});
  REQUIRE(outcomes.size() == 1);
  REQUIRE(outcomes[0].ran);
  CHECK(outcomes[0].ran->emptyS == 0.05);
  CHECK(outcomes[0].ran->sample.size == 700);
}

TEST_CASE("the command failing is the command's fault, the agent not answering or gone is the agent's") {
  ScriptedAgent agent;
  bool connected = true;
  std::vector<CalibrationOutcome> outcomes;
  auto start = [&] {
    calibrateAgent([&]() -> AgentLink* { return connected ? &agent : nullptr; }, kRuns, [] { return true; },
                   [&](const CalibrationOutcome& o) { outcomes.push_back(o); });
  };
  SUBCASE("the fetch fails") {
    start();
    agent.fetches.front()(hnow::Error{"connection refused"});
    REQUIRE(outcomes.size() == 1);
    CHECK_FALSE(outcomes[0].commandFailed);
    CHECK(outcomes[0].ran.error().message == "fetching the calibration sample of 1000 bytes: connection refused");
  }
  SUBCASE("the command exits non-zero on the sample") {
    start();
    agent.fetches.front()({});
    agent.runs.front()(ran(0.05, 0));
    AgentLink::JobTaskAnswer failed = ran(0.1, 0);
    failed.exitCode = 2;
    failed.ended = Error{"the command exited with 2"};
    agent.runs.back()(failed);
    REQUIRE(outcomes.size() == 1);
    CHECK(outcomes[0].commandFailed);
    CHECK(outcomes[0].ran.error().message == "the run on a sample of 1000 bytes failed: the command exited with 2");
  }
  SUBCASE("the agent never answers the empty run") {
    start();
    agent.fetches.front()({});
    agent.runs.front()(hnow::Error{"disconnected"});
    REQUIRE(outcomes.size() == 1);
    CHECK_FALSE(outcomes[0].commandFailed);
    CHECK(outcomes[0].ran.error().message == "the run on empty input: disconnected");
  }
  SUBCASE("the agent is gone after the fetch") {
    start();
    connected = false;
    agent.fetches.front()({});
    REQUIRE(outcomes.size() == 1);
    CHECK_FALSE(outcomes[0].commandFailed);
    CHECK(outcomes[0].ran.error().message == "the run on empty input: not connected");
  }
  SUBCASE("the agent is not connected at all") {
    connected = false;
    start();
    REQUIRE(outcomes.size() == 1);
    CHECK(agent.calls.empty());
  }
}

// `grep -c 7` exits 1 on no input (it found nothing): that run measures
// start-up only, so its failure is noted and its time kept as start-up.
TEST_CASE("the command failing on empty input (grep finding nothing) is noted and the calibration goes on with the sample") {
  ScriptedAgent agent;
  std::vector<CalibrationOutcome> outcomes;
  CalibrationRuns runs = kRuns;
  runs.sampleUnits = 40;
  calibrateAgent([&]() -> AgentLink* { return &agent; }, runs, [] { return true; },
                 [&](const CalibrationOutcome& o) { outcomes.push_back(o); });
  agent.fetches.front()({});
  AgentLink::JobTaskAnswer nothingFound = ran(0.04, 0);
  nothingFound.exitCode = 1;
  nothingFound.ended = Error{"'grep -c 7' exited with status 1"};
  agent.runs.front()(nothingFound);
  REQUIRE(agent.runs.size() == 2);  // the sample still runs
  agent.runs.back()(ran(0.24, 3));
  REQUIRE(outcomes.size() == 1);
  REQUIRE(outcomes[0].ran);
  CHECK(outcomes[0].ran->emptyS == 0.04);
  REQUIRE_FALSE(outcomes[0].ran->emptyRun.ok());
  CHECK(outcomes[0].ran->emptyRun.error().message == "'grep -c 7' exited with status 1");
  CHECK(outcomes[0].ran->sample.size == 3);
  CHECK(calibrationFrom(outcomes[0].ran->emptyS, outcomes[0].ran->sample, 40, 1000).secondsPerUnit ==
        doctest::Approx(0.005));

  SUBCASE("the same command failing on the sample fails, naming that run") {
    ScriptedAgent again;
    std::vector<CalibrationOutcome> failed;
    calibrateAgent([&]() -> AgentLink* { return &again; }, runs, [] { return true; },
                   [&](const CalibrationOutcome& o) { failed.push_back(o); });
    again.fetches.front()({});
    again.runs.front()(nothingFound);
    again.runs.back()(nothingFound);
    REQUIRE(failed.size() == 1);
    CHECK(failed[0].commandFailed);
    CHECK(failed[0].ran.error().message ==
          "the run on a sample of 1000 bytes (the input's first 40 units) failed: 'grep -c 7' exited with status 1");
  }
  SUBCASE("a limit of the agent's ending the empty run leaves the agent out, naming the run") {
    ScriptedAgent limited;
    std::vector<CalibrationOutcome> out;
    calibrateAgent([&]() -> AgentLink* { return &limited; }, runs, [] { return true; },
                   [&](const CalibrationOutcome& o) { out.push_back(o); });
    limited.fetches.front()({});
    AgentLink::JobTaskAnswer killed = ran(0.3, 0);
    killed.ended = Error{"'grep -c 7' was killed at its wall-time limit (wall_s = 0.3)"};
    killed.limited = true;
    limited.runs.front()(killed);
    REQUIRE(out.size() == 1);
    CHECK(out[0].agentRefused);
    CHECK_FALSE(out[0].commandFailed);
    CHECK(out[0].ran.error().message ==
          "the run on empty input: 'grep -c 7' was killed at its wall-time limit (wall_s = 0.3)");
  }
}

TEST_CASE("an answer that no longer matters (the job ended, the agent was left out) is dropped") {
  ScriptedAgent agent;
  bool wanted = true;
  int outcomes = 0;
  calibrateAgent([&]() -> AgentLink* { return &agent; }, kRuns, [&] { return wanted; },
                 [&](const CalibrationOutcome&) { ++outcomes; });
  agent.fetches.front()({});
  wanted = false;
  agent.runs.front()(ran(0.05, 0));
  CHECK(agent.runs.size() == 1);  // no run on the sample either
  CHECK(outcomes == 0);
}

TEST_CASE("a calibration's deadline is calibration_max_s until an agent finished, then 10 x the longest, within 10 s and the maximum") {
  CHECK(calibrationDeadlineS({}, 120) == 120);
  CHECK(calibrationDeadlineS({0.05, 0.4}, 120) == 10);  // the floor: start-up on a loaded machine
  CHECK(calibrationDeadlineS({0.5, 3.0}, 120) == doctest::Approx(30));
  CHECK(calibrationDeadlineS({20}, 120) == 120);
  CHECK(calibrationDeadlineS({0.5}, 5) == 5);  // never past the configured maximum
}
