// An agent that restarts gives back what it computed (agent/job_runner.h
// restoreHeld): the same hnowd, seeing it again, revives the attempt it
// gave up when it lost the agent (JobRun::revive) and collects that
// result instead of waiting for the share's reissue.
#include <doctest/doctest.h>

#include "daemon/core/job_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::jobtest;

TEST_CASE("an agent that restarts gives its finished result back to the same hnowd, which collects it") {
  Lab lab;
  RunRequest request = lab.count();
  request.rounds = 1;
  auto started = lab.jobs.start(request);
  REQUIRE(started.ok());
  stepUntil(lab, [&] { return lab.jobs.status(*started)->phase == "running"; });
  lab.agents["a1"]->hangs = true;  // its share's answer never comes: the agent dies before it
  stepUntil(lab, [&] { return !lab.agents["a1"]->running.empty() && lab.turns.empty(); });
  REQUIRE(lab.agents["a1"]->running.size() == 1);
  const auto [token, lines] = *lab.agents["a1"]->running.begin();
  // The others hang from now on: the lost share's reissue never ends, only the result given back can.
  for (const char* other : {"a2", "a3"}) lab.agents[other]->hangs = true;
  lab.detachAgent("a1");
  lab.jobs.tick();
  lab.attachAgent("a1");  // started again: the result its last process finished is on its disk
  CountingAgent& back = *lab.agents["a1"];
  back.files[token] = std::to_string(lines) + "\n";
  back.results.insert(token);
  stepUntil(lab, [&] { return lab.jobs.status(*started)->finished; });
  CHECK(lab.jobs.status(*started)->phase == "done");
  CHECK(back.awaited == 1);
  CHECK(back.runs == 0);  // nothing computed on it again
  CHECK(totalOf(lab.files.outputs.files.at("run-" + std::to_string(*started) + ".out")) == 3000);
}
