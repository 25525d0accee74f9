// An agent that logged in again between two looks (JobRun::sessionLost):
// the attempts sent to its earlier session fail and their shares go
// elsewhere, as when an agent is lost, but the agent stays in the run.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/jobs/job_run.h"
#include "daemon/core/job_recorder.h"

using namespace hnow;
using namespace hnow::daemon;

namespace {

using Log = std::vector<std::string>;
using State = JobAttempt::State;
const Result<std::string> kDigest = std::string("same");

std::vector<JobShare> threeShares() {
  std::vector<JobShare> shares(3);
  const char* agents[] = {"a", "b", "c"};
  for (int k = 0; k < 3; ++k) {
    shares[k].firstUnit = 10u * k;
    shares[k].units = 10;
    shares[k].agent = agents[k];
    shares[k].plannedServeStart = k;
    shares[k].plannedComputeEnd = k + 5;
  }
  return shares;
}

}  // namespace

TEST_CASE("an agent's earlier session lost - the attempts sent to it go elsewhere, a late answer from it is ignored, and the agent still takes reissues") {
  ManualClock clock;
  testing::JobRecorder actions;
  JobRun run(clock, actions, threeShares(), {0, 1, 2}, {"a", "b", "c"});
  run.start();
  for (int id : {0, 1, 2}) run.served(id, {});
  actions.take();
  run.sessionLost("b", {1});
  CHECK(run.attempts()[1].state == State::kFailed);
  CHECK(run.attempts()[1].error.find("logged in again") != std::string::npos);
  REQUIRE(run.attempts().size() == 4);
  CHECK(run.attempts()[3].share == 1);
  CHECK(run.attempts()[3].agent != "b");
  CHECK(actions.take() == Log{"serve 3"});
  run.computed(1, 1, kDigest);  // the earlier session's answer, late: that attempt is over
  CHECK(run.attempts()[1].state == State::kFailed);
  CHECK(actions.take().empty());
  // a's own share fails: b, idle and not lost, takes it (a lost agent would not).
  run.computed(0, 0, Error{"killed by signal 9"});
  REQUIRE(run.attempts().size() == 5);
  CHECK(run.attempts()[4].share == 0);
  CHECK(run.attempts()[4].agent == "b");
}

TEST_CASE("an agent's earlier session lost - another agent's attempts and the agent's finished ones are untouched") {
  ManualClock clock;
  testing::JobRecorder actions;
  JobRun run(clock, actions, threeShares(), {0, 1, 2}, {"a", "b", "c"});
  run.start();
  for (int id : {0, 1, 2}) run.served(id, {});
  run.computed(0, 1, kDigest);
  run.collected(0, {});
  actions.take();
  run.sessionLost("b", {0, 2});  // a's collected result and c's attempt: none of them b's
  CHECK(run.attempts()[0].state == State::kDone);
  CHECK(run.attempts()[2].state == State::kComputing);
  CHECK(run.reissued() == 0);
  CHECK(actions.take().empty());
}

TEST_CASE("an agent's earlier session lost with a result not yet collected - the share is open again and goes elsewhere") {
  ManualClock clock;
  testing::JobRecorder actions;
  JobRun run(clock, actions, threeShares(), {0, 1, 2}, {"a", "b", "c"});
  run.start();
  for (int id : {0, 1, 2}) run.served(id, {});
  run.computed(1, 1, kDigest);  // accepted, waiting behind share 0 to be collected
  actions.take();
  run.sessionLost("b", {1});
  CHECK_FALSE(run.shares()[1].accepted);
  REQUIRE(run.attempts().size() == 4);
  CHECK(run.attempts()[3].share == 1);
  run.computed(0, 1, kDigest);
  run.computed(2, 1, kDigest);
  run.served(3, {});
  run.computed(3, 1, kDigest);
  for (int id : {0, 3, 2}) run.collected(id, {});
  CHECK(run.finished());
  CHECK_FALSE(run.failure());
}
