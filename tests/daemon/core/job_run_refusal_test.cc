// A share an agent's owner refuses ([jobs] allow on the agent), in one
// job's state machine (daemon/core/jobs/job_run.h): the refusing agent takes no
// share of the run again, the shares waiting for it go elsewhere, and when
// every agent refuses the failure names each one's reason.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/jobs/job_run.h"
#include "daemon/core/job_recorder.h"

using namespace hnow;
using namespace hnow::daemon;

namespace {

const Result<std::string> kDigest = std::string("same");

using Recorder = hnow::testing::JobRecorder;

JobShare shareOn(const std::string& agent, int k) {
  JobShare s;
  s.firstUnit = 10u * static_cast<unsigned>(k);
  s.units = 10;
  s.agent = agent;
  s.plannedServeStart = k;
  s.plannedComputeEnd = k + 5;
  return s;
}

using Log = std::vector<std::string>;

}  // namespace

TEST_CASE("an agent that refuses the command gets no share of the run again and its waiting shares move") {
  ManualClock clock;
  Recorder actions;
  JobRun run(clock, actions, {shareOn("a", 0), shareOn("b", 1), shareOn("b", 2)}, {0, 1, 2}, {"a", "b", "c"});
  run.start();
  run.served(0, {});
  run.served(1, {});
  run.served(2, {});  // b computes share 2 after share 1: received, waiting
  CHECK(actions.take() == Log{"serve 0", "compute 0", "serve 1", "compute 1", "serve 2"});
  run.computed(1, 0, Error{"/usr/bin/tr is not in [jobs] allow (\"/usr/bin/wc\")"}, true);
  // Share 2 left b before b could refuse it too; both go to agents that run it.
  const Log moved = actions.take();
  CHECK(moved.front() == "drop 2");
  CHECK(std::find(moved.begin(), moved.end(), "compute 2") == moved.end());
  CHECK(run.attempts()[1].state == JobAttempt::State::kFailed);
  CHECK(run.attempts()[2].state == JobAttempt::State::kDropped);
  for (std::size_t id = 3; id < run.attempts().size(); ++id) CHECK(run.attempts()[id].agent != "b");
  // Everything lands through a and c.
  for (int guard = 0; guard < 20 && !run.finished(); ++guard) {
    for (std::size_t id = 0; id < run.attempts().size(); ++id) {
      const auto& a = run.attempts()[id];
      if (a.state == JobAttempt::State::kServing) run.served(static_cast<int>(id), {});
      else if (a.state == JobAttempt::State::kComputing) run.computed(static_cast<int>(id), 1, kDigest);
      else if (a.state == JobAttempt::State::kCollecting) run.collected(static_cast<int>(id), {});
    }
  }
  CHECK(run.finished());
  CHECK_FALSE(run.failure());
  for (std::size_t id = 3; id < run.attempts().size(); ++id) CHECK(run.attempts()[id].agent != "b");
}

TEST_CASE("when every agent refuses the command the run fails with each agent's reason") {
  ManualClock clock;
  Recorder actions;
  JobRun run(clock, actions, {shareOn("a", 0)}, {0}, {"a", "b"});
  run.start();
  run.served(0, {});
  run.computed(0, 0, Error{"/usr/bin/curl is not in [jobs] allow (\"/usr/bin/wc\")"}, true);
  REQUIRE(run.attempts().size() == 2);
  CHECK(run.attempts()[1].agent == "b");
  run.served(1, {});
  run.computed(1, 0, Error{"it runs through a shell (hnow run --shell) and [jobs] shell = false here"}, true);
  REQUIRE(run.finished());
  REQUIRE(run.failure());
  const std::string& why = run.failure()->message;
  CHECK(why.find("share 1 of 1 failed") == 0);
  CHECK(why.find("a: /usr/bin/curl is not in [jobs] allow") != std::string::npos);
  CHECK(why.find("b: it runs through a shell") != std::string::npos);
}
