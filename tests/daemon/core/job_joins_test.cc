// Agents that come during a job in rounds (volunteer computing), in memory
// (job_lab.h): a new one is calibrated and takes shares from the next
// round; one lost and back takes part again.
#include <doctest/doctest.h>

#include "daemon/core/job_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::jobtest;

namespace {


// The agents' commands that never answered end now, failed (their shares
// go elsewhere), and the agents answer from now on.
void release(Lab& lab) {
  for (auto& [name, agent] : lab.agents) {
    agent->hangs = false;
    for (auto& done : agent->hung) {
      AgentLink::JobTaskAnswer r;
      r.exitCode = 1;
      r.ended = Error{"'count' exited with status 1"};
      done(r);
    }
    agent->hung.clear();
  }
}

std::uint64_t unitsOf(const RunStatus& s, const std::string& agent) {
  for (const auto& a : s.agents)
    if (a.name == agent) return a.units;
  return 0;
}

}  // namespace

TEST_CASE("an agent that logs in during a job in rounds is calibrated and takes shares from the next round") {
  Lab lab;
  lab.detachAgent("a3");
  RunRequest request = lab.count();
  request.rounds = 6;
  auto started = lab.jobs.start(request);
  REQUIRE(started.ok());
  // The first round's commands run on (they hang): the next rounds wait.
  stepUntil(lab, [&] { return lab.jobs.status(*started)->phase == "running"; });
  for (auto& [name, agent] : lab.agents) agent->hangs = true;
  stepUntil(lab, [&] { return lab.turns.empty(); });
  REQUIRE(lab.jobs.status(*started)->agents.size() == 2);
  lab.attachAgent("a3");
  lab.jobs.tick();
  stepUntil(lab, [&] { return lab.turns.empty(); });
  CHECK(lab.jobs.status(*started)->agents.size() == 3);  // calibrated, in the job
  release(lab);
  lab.settle();
  auto done = lab.jobs.status(*started);
  CHECK(done->phase == "done");
  REQUIRE(done->agents.size() == 3);
  CHECK(unitsOf(*done, "a3") > 0);
  CHECK(lab.agents.at("a3")->runs >= 2);  // its calibration, then shares
  CHECK(totalOf(lab.files.outputs.files.at("run-" + std::to_string(*started) + ".out")) == 3000);
}

TEST_CASE("a job does not take a newly logged-in agent that a queued job waits for, nor one in a one-shot plan") {
  Lab lab;
  lab.detachAgent("a3");
  RunRequest rounds = lab.count();
  rounds.rounds = 6;
  rounds.to = {"a1", "a2"};
  RunRequest waiting = lab.count();
  waiting.to = {"a2", "a3"};
  auto running = lab.jobs.start(rounds);
  auto queued = lab.jobs.start(waiting);
  REQUIRE((running.ok() && queued.ok()));
  stepUntil(lab, [&] { return lab.jobs.status(*running)->phase == "running"; });
  // a3 is not the running job's to take (its --to); and the queued one still waits for a2.
  lab.attachAgent("a3");
  lab.jobs.tick();
  CHECK(lab.jobs.status(*running)->agents.size() == 2);
  CHECK(lab.jobs.status(*queued)->phase == "queued");
  lab.settle();
  CHECK(lab.jobs.status(*running)->phase == "done");
  CHECK(lab.jobs.status(*queued)->phase == "done");

  RunRequest oneShot = lab.count();
  oneShot.rounds = 1;
  lab.detachAgent("a3");
  auto single = lab.jobs.start(oneShot);
  REQUIRE(single.ok());
  stepUntil(lab, [&] { return lab.jobs.status(*single)->phase == "running"; });
  lab.attachAgent("a3");
  lab.settle();
  CHECK(lab.jobs.status(*single)->phase == "done");
  CHECK(lab.jobs.status(*single)->agents.size() == 2);
}

TEST_CASE("an agent lost during a job in rounds and back takes part again") {
  Lab lab;
  RunRequest request = lab.count();
  request.rounds = 8;
  auto started = lab.jobs.start(request);
  REQUIRE(started.ok());
  stepUntil(lab, [&] { return lab.jobs.status(*started)->phase == "running"; });
  for (auto& [name, agent] : lab.agents) agent->hangs = true;
  stepUntil(lab, [&] { return lab.turns.empty(); });
  const std::uint64_t before = lab.plane.ranges.size();
  lab.detachAgent("a2");
  lab.jobs.tick();  // noticed lost: its shares go elsewhere
  stepUntil(lab, [&] { return lab.turns.empty(); });
  lab.attachAgent("a2");
  lab.jobs.tick();
  release(lab);
  lab.settle();
  auto done = lab.jobs.status(*started);
  CHECK(done->phase == "done");
  CHECK(lab.agents.at("a2")->runs > 0);  // the new link's agent ran shares of later rounds
  CHECK(lab.plane.ranges.size() > before);
  CHECK(totalOf(lab.files.outputs.files.at("run-" + std::to_string(*started) + ".out")) == 3000);
}
