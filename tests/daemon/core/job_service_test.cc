// JobService in memory (job_lab.h): a whole job from calibration to its
// output, without a socket or a process.
#include <doctest/doctest.h>

#include <deque>
#include <map>
#include <numeric>
#include <sstream>

#include "daemon/core/job_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::jobtest;

TEST_CASE("a job calibrates on every agent, runs its shares and concatenates the results in input order") {
  Lab lab;
  auto started = lab.jobs.start(lab.count());
  REQUIRE_MESSAGE(started.ok(), (started.ok() ? "" : started.error().message));
  lab.settle();
  auto status = lab.jobs.status(*started);
  REQUIRE(status);
  CHECK(status->finished);
  CHECK(status->error.empty());
  CHECK(status->units == 3000);
  for (const auto& [name, agent] : lab.agents) CHECK(agent->runs >= 2);  // the empty run and the sample
  // The output: one count per share, in input order, adding up to every line.
  const std::string output = lab.files.outputs.files.at("run-1.out");
  std::istringstream lines(output);
  long total = 0;
  for (long n; lines >> n;) total += n;
  CHECK(total == 3000);
  CHECK(status->outputSize == output.size());
  auto kept = lab.jobs.outputPath(*started);  // what hnowd serves the client
  REQUIRE(kept);
  CHECK(*kept == "/var/lib/hnow/jobs/run-1.out");
  CHECK(lab.plane.served.empty());                           // hnowd serves nothing once it ended
  CHECK(lab.files.work.files.empty());                       // its work directory is gone
  for (const auto& [name, agent] : lab.agents) CHECK(agent->files.empty());  // agents dropped every file
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].kind == "run");
  CHECK(ops[0].status == "done");
}

TEST_CASE("a command that fails on the sample fails the job, naming the agent, and a missing input is refused") {
  Lab lab;
  lab.agents["a2"]->failing = true;
  auto started = lab.jobs.start(lab.count());
  REQUIRE(started.ok());
  lab.settle();
  auto status = lab.jobs.status(*started);
  REQUIRE(status);
  CHECK(status->finished);
  // Which run, on which agent, and what to do.
  CHECK(status->error.find("calibrating on a2: the run on a sample of ") == 0);
  CHECK(status->error.find(" bytes (the input's first ") != std::string::npos);
  CHECK(status->error.find(" units) failed: 'count' exited with status 1. Every share runs the command on a part of "
                           "the input like this one, so the run stops: to see why, run it on those bytes: head -c ") !=
        std::string::npos);
  CHECK(status->error.find(" '/data/lines.txt' | sh -c 'count'") != std::string::npos);
  CHECK_FALSE(lab.jobs.outputPath(*started).ok());

  RunRequest missing = lab.count();
  missing.input = "/data/none.txt";
  auto refused = lab.jobs.start(missing);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message == "cannot open --input /data/none.txt: No such file or directory");
}

TEST_CASE("a run under --max-rate paces hnowd's uplink and downlink at most at it and plans its shares so") {
  Lab free;
  auto unlimited = free.jobs.start(free.count());
  REQUIRE(unlimited.ok());
  free.settle();
  const auto freeStatus = free.jobs.status(*unlimited);
  REQUIRE(freeStatus);
  CHECK(freeStatus->maxRateBytesPerSecond == 0);
  REQUIRE_FALSE(free.plane.paced.empty());
  CHECK(free.plane.paced.back().first == doctest::Approx(12.5e6).epsilon(0.1));  // hnowd's own uplink

  Lab lab;
  RunRequest request = lab.count();
  request.maxRateBytesPerSecond = 2e4;  // 160 kbit/s: the 27 kB input takes 1.4 s to serve
  auto started = lab.jobs.start(request);
  REQUIRE(started.ok());
  lab.settle();
  const auto status = lab.jobs.status(*started);
  REQUIRE(status);
  CHECK(status->finished);
  CHECK(status->error.empty());
  CHECK(status->maxRateBytesPerSecond == 2e4);
  REQUIRE_FALSE(lab.plane.paced.empty());
  for (const auto& [up, down] : lab.plane.paced) {
    CHECK(up > 0);
    CHECK(up <= 2e4);
    CHECK(down > 0);
    CHECK(down <= 2e4);
  }
  // The plan knows: serving the shares at 20 kB/s takes a second longer than at hnowd's 12.5 MB/s.
  CHECK(status->predictedS > freeStatus->predictedS + 0.5);
}

TEST_CASE("a command that exits non-zero on empty input (grep -c finding nothing) is calibrated on the sample and the job lands") {
  Lab lab;
  for (auto& [name, agent] : lab.agents) agent->failsOnEmpty = true;
  auto started = lab.jobs.start(lab.count());
  REQUIRE(started.ok());
  lab.settle();
  auto status = lab.jobs.status(*started);
  REQUIRE(status);
  CHECK(status->finished);
  CHECK_MESSAGE(status->error.empty(), status->error);
  for (const auto& a : status->agents) {
    CHECK(a.secondsPerUnit > 0);
    CHECK(a.failures.empty());
  }
  std::istringstream lines(lab.files.outputs.files.at("run-1.out"));
  long total = 0;
  for (long n; lines >> n;) total += n;
  CHECK(total == 3000);
}

TEST_CASE("an agent whose command hangs in calibration is left out at the deadline, its command killed, and the run lands on the others") {
  Lab lab;
  lab.agents["a3"]->hangs = true;
  const TimePoint start = lab.clock.now();
  auto started = lab.jobs.start(lab.count());
  REQUIRE(started.ok());
  lab.settleFor(std::chrono::seconds(60));
  auto status = lab.jobs.status(*started);
  REQUIRE(status);
  CHECK(status->finished);
  CHECK_MESSAGE(status->error.empty(), status->error);
  // The others calibrate at once: the deadline is the 10 s floor, not calibration_max_s.
  CHECK(seconds(lab.clock.now() - start) < 12);
  for (const auto& a : status->agents) {
    if (a.name != "a3") {
      CHECK(a.units > 0);
      continue;
    }
    CHECK(a.units == 0);
    REQUIRE(a.failures.size() == 1);
    CHECK(a.failures[0].rfind("left out: the run on empty input did not finish within 10 s, the calibration deadline "
                              "(10 x the longest other agent's calibration, ", 0) == 0);
    CHECK(a.failures[0].find("at most [run] calibration_max_s = 120): left out of the run, its command killed. Check "
                             "that the command ends on its own there (it must read stdin to its end and exit), or raise "
                             "[run] calibration_max_s in hnowd's config for a slow agent") != std::string::npos);
  }
  // Its job files were dropped at the deadline: that kills the command running on them.
  CHECK(lab.agents["a3"]->dropped.size() >= 3);
  // A late answer changes nothing.
  for (auto& done : lab.agents["a3"]->hung) done(hnow::Error{"the task was dropped"});
  lab.settle();
  CHECK(lab.jobs.status(*started)->error.empty());
}

TEST_CASE("when every agent's calibration hangs the run fails at calibration_max_s with each agent's reason") {
  Lab lab;
  for (auto& [name, agent] : lab.agents) agent->hangs = true;
  const TimePoint start = lab.clock.now();
  auto started = lab.jobs.start(lab.count());
  REQUIRE(started.ok());
  lab.settleFor(std::chrono::seconds(100));
  REQUIRE_FALSE(lab.jobs.status(*started)->finished);  // 120 s: nobody finished to bound it
  lab.settleFor(std::chrono::seconds(60));
  auto status = lab.jobs.status(*started);
  REQUIRE(status);
  CHECK(status->finished);
  CHECK(seconds(lab.clock.now() - start) < 121);
  CHECK(status->error.rfind("no agent finished its calibration in time: a1: the run on empty input did not finish "
                            "within 120 s, the calibration deadline ([run] calibration_max_s = 120 in hnowd's config)",
                            0) == 0);
  CHECK(status->error.find("; a3: the run on empty input did not finish within 120 s") != std::string::npos);
  CHECK(status->error.find("its command killed. Check that the command ends on its own there") != std::string::npos);
  CHECK(status->error.find("Check that") == status->error.rfind("Check that"));  // said once
  for (const auto& [name, agent] : lab.agents) CHECK(agent->dropped.size() >= 3);
}
