// A share an earlier hnowd started, adopted by a resumed job's run
// (JobRun::adopt): its agent computes it before its planned shares, its
// result does not hold the others' return back, and a task the agent no
// longer has is reissued like any failed attempt.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/jobs/job_run.h"
#include "daemon/core/job_recorder.h"

using namespace hnow;
using namespace hnow::daemon;

namespace {

using Log = std::vector<std::string>;
const Result<std::string> kDigest = std::string("same");

std::vector<JobShare> planned() {
  std::vector<JobShare> shares(2);
  const char* agents[] = {"a", "b"};
  for (int k = 0; k < 2; ++k) {
    shares[k].firstUnit = 10u + 10u * k;
    shares[k].units = 10;
    shares[k].agent = agents[k];
    shares[k].plannedServeStart = k;
    shares[k].plannedComputeEnd = k + 5;
  }
  return shares;
}

JobShare heldByA() {
  JobShare share;
  share.firstUnit = 0;
  share.units = 10;
  share.agent = "a";
  share.plannedComputeEnd = 5;
  return share;
}

}  // namespace

TEST_CASE("an adopted share is computed first on its agent, needs no serve, and is collected out of order") {
  ManualClock clock;
  testing::JobRecorder actions;
  JobRun run(clock, actions, planned(), {0, 1}, {"a", "b"});
  run.start();
  const int adopted = run.adopt(heldByA());
  CHECK(adopted == 2);
  CHECK(actions.take() == Log{"serve 0", "compute 2"});
  run.served(0, {});  // a is busy with the adopted share: its planned one waits
  CHECK(actions.take() == Log{"serve 1"});
  run.served(1, {});
  CHECK(actions.take() == Log{"compute 1"});
  run.computed(1, 1.0, kDigest);  // b's share returns although a's come first in the plan
  CHECK(actions.take().empty());  // share 0 (planned first) holds the return order, not the adopted one
  run.computed(2, 1.0, kDigest);
  CHECK(actions.take() == Log{"compute 0", "collect 2"});
  run.collected(2, {});
  run.computed(0, 1.0, kDigest);
  CHECK(actions.take() == Log{"collect 0"});
  run.collected(0, {});
  CHECK(actions.take() == Log{"collect 1"});
  run.collected(1, {});
  CHECK(run.finished());
  CHECK_FALSE(run.failure());
  CHECK(run.shares().size() == 3);
  CHECK(run.shares()[2].firstUnit == 0);
  CHECK(run.reissued() == 0);
}

TEST_CASE("an adopted share its agent no longer holds is reissued to another agent") {
  ManualClock clock;
  testing::JobRecorder actions;
  JobRun run(clock, actions, {}, {}, {"a", "b"});
  run.start();
  const int adopted = run.adopt(heldByA());
  CHECK(actions.take() == Log{"compute 0"});
  run.computed(adopted, 0.0, Error{"this agent runs no task under that token"});
  CHECK(run.reissued() == 1);
  const Log log = actions.take();
  REQUIRE(log.size() == 1);
  CHECK(log[0] == "serve 1");
  CHECK(run.attempts()[1].agent == "b");
  CHECK_FALSE(run.finished());
}
