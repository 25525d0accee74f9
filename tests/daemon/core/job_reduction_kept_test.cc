// Partials an earlier hnowd's reduction made before it stopped (state.db),
// given to the next one's reduction (JobReduction::addKeptLeaf,
// addKeptCombined): a partial its agent still holds is reduced with the
// other results and its shares are not computed again; one no agent holds
// stands for what it combined, down to the shares, which alone are computed
// again.
#include <doctest/doctest.h>

#include "core/jobs/job_reduction.h"
#include "daemon/core/reduction_fake.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::reductiontest;

TEST_CASE("reduction: a partial kept from before a restart and held by its agent is reduced with the other results, its shares not computed again") {
  ManualClock clock;
  Fake f;
  JobReduction r{clock, f, costsOf};
  const int s0 = r.addKeptLeaf(0, "a"), s1 = r.addKeptLeaf(1, "b");
  const int kept = r.addKeptCombined({s0, s1}, "a", true, CombinedFile{200, "t01", "d01"});
  r.addLeaf(2, "c", 100, "t2");
  r.start();
  drive(r, f);
  CHECK_FALSE(r.failure());
  CHECK(f.recomputes.empty());
  CHECK(finalShares(r) == Shares{0, 1, 2});
  CHECK(r.partials()[static_cast<std::size_t>(kept)].consumed);  // combined again, as any partial
  CHECK(r.replans() == 0);
}

TEST_CASE("reduction: a kept partial no agent holds stands for what it combined - a held partial under it is reduced, only the share no one holds is computed again") {
  ManualClock clock;
  Fake f;
  JobReduction r{clock, f, costsOf};
  const int s0 = r.addKeptLeaf(0, "a"), s1 = r.addKeptLeaf(1, "b"), s2 = r.addKeptLeaf(2, "a");
  const int held = r.addKeptCombined({s0, s1}, "b", true, CombinedFile{200, "t01", "d01"});
  r.addKeptCombined({held, s2}, "a", false, CombinedFile{300, "t012", "d012"});
  r.addLeaf(3, "c", 100, "t3");
  r.start();
  REQUIRE(f.recomputes == std::vector<Shares>{{2}});
  r.addLeaf(2, "c", 100, "t2");
  r.start();
  drive(r, f);
  CHECK_FALSE(r.failure());
  CHECK(f.recomputes.size() == 1);
  CHECK(finalShares(r) == Shares{0, 1, 2, 3});
}
