#include <doctest/doctest.h>

#include "planner/worksharing/worksharing_check.h"
#include "support/why.h"

using hnow::testing::why;
using namespace hnow::planner;

namespace {

// Two workers, tau = 1 and 2, R = 1, delta = 0.5, one unit each:
// serve [0,1] and [1,3]; computed at 2 and 4; returns 0.5 and 1 long.
const WorksharingProblem kTwo{{{1.0, 1.0}, {2.0, 1.0}}, 0.5};

WorksharingTimeline valid() {
  WorksharingTimeline t;
  t.workers = {{0, 1.0, 1, 1, 0.0, 1.0, 2.0, 2.0, 2.5}, {1, 1.0, 2, 2, 1.0, 3.0, 4.0, 4.0, 5.0}};
  return t;
}

}  // namespace

TEST_CASE("the replay serves back to back, computes on receipt and returns in order") {
  Allocation a{{{0, 1}, {1, 0}}, {1.0, 1.0}, 2.0, 10.0};
  auto t = replayAllocation(kTwo, a);
  REQUIRE(t.ok());
  REQUIRE(t->workers.size() == 2);
  CHECK(t->workers[1].sendStart == 1.0);
  CHECK(t->workers[1].sendEnd == 3.0);
  // Worker 1 returns first (4 to 5); worker 0, done at 2, waits for the port.
  CHECK(t->workers[1].returnStart == 4.0);
  CHECK(t->workers[0].returnStart == 5.0);
  CHECK(t->workers[0].returnPosition == 2);
  CHECK(t->makespan == 5.5);
  CHECK(checkWorksharing(kTwo, *t, 5.5).ok());
  auto late = checkWorksharing(kTwo, *t, 5.0);
  CHECK_FALSE(late.ok());
  CHECK(why(late).find("after the lifespan") != std::string::npos);
}

TEST_CASE("the replay refuses negative shares and malformed orders") {
  CHECK_FALSE(replayAllocation(kTwo, Allocation{{{0, 1}, {0, 1}}, {1.0, -0.5}, 0.5, 1.0}).ok());
  CHECK_FALSE(replayAllocation(kTwo, Allocation{{{0, 1}, {0, 0}}, {1.0, 1.0}, 2.0, 1.0}).ok());
  CHECK_FALSE(replayAllocation(kTwo, Allocation{{{0, 0}, {0, 0}}, {1.0, 1.0}, 2.0, 1.0}).ok());
}

TEST_CASE("the validator accepts a valid timeline and reports its makespan") {
  auto check = checkWorksharing(kTwo, valid(), 5.0);
  CHECK(check.ok());
  REQUIRE(check.ok());
  CHECK(*check == 5.0);
}

TEST_CASE("the validator enforces one serve message at a time") {
  WorksharingTimeline t = valid();
  t.workers[1].sendStart = 0.5, t.workers[1].sendEnd = 2.5, t.workers[1].computeEnd = 3.5;
  t.workers[1].returnStart = 3.5, t.workers[1].returnEnd = 4.5;
  auto check = checkWorksharing(kTwo, t, 5.0);
  CHECK_FALSE(check.ok());
  CHECK(why(check).find("serve") != std::string::npos);
  CHECK(why(check).find("one port") != std::string::npos);
}

TEST_CASE("the validator enforces one return message at a time") {
  WorksharingTimeline t = valid();
  t.workers[0].computeEnd = 4.2, t.workers[0].returnStart = 4.2, t.workers[0].returnEnd = 4.7;
  auto check = checkWorksharing(kTwo, t, 5.0);
  CHECK_FALSE(check.ok());
  CHECK(why(check).find("return") != std::string::npos);
}

TEST_CASE("the validator rejects early compute, early return, wrong message lengths, negative shares") {
  WorksharingTimeline t = valid();
  t.workers[0].computeEnd = 1.5;
  CHECK_FALSE(checkWorksharing(kTwo, t, 5.0).ok());
  t = valid();
  t.workers[1].returnStart = 3.5, t.workers[1].returnEnd = 4.5;
  CHECK(why(checkWorksharing(kTwo, t, 5.0)).find("before computing") != std::string::npos);
  t = valid();
  t.workers[0].sendEnd = 0.5;
  CHECK_FALSE(checkWorksharing(kTwo, t, 5.0).ok());
  t = valid();
  t.workers[1].returnEnd = 4.9;
  CHECK_FALSE(checkWorksharing(kTwo, t, 5.0).ok());
  t = valid();
  t.workers[0].units = -1;
  CHECK_FALSE(checkWorksharing(kTwo, t, 5.0).ok());
  t = valid();
  t.workers[1].worker = 0;
  CHECK(why(checkWorksharing(kTwo, t, 5.0)).find("twice") != std::string::npos);
}
