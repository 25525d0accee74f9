#include <doctest/doctest.h>

#include "core/jobs/job_evidence.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;

namespace {

struct Quiet final : JobActions {
  void serve(int) override {}
  void compute(int) override {}
  void collect(int) override {}
  void drop(int) override {}
};

// Two shares of 10 units for agent "a"; `b` idle.
std::vector<JobShare> twoSharesOnA() {
  std::vector<JobShare> shares(2);
  for (int k = 0; k < 2; ++k) {
    shares[k].firstUnit = 10u * k;
    shares[k].units = 10;
    shares[k].agent = "a";
  }
  return shares;
}

JobCalibration calibrated(TimePoint at) {
  JobCalibration c;
  c.secondsPerUnit = 0.1;
  c.fixedS = 0.5;
  c.probeSecondsPerUnit = 0.002;
  c.at = at;
  return c;
}

}  // namespace

TEST_CASE("an agent's seconds per unit: its calibration, then its last share, then a later compute drift") {
  ManualClock clock;
  const JobCalibration c = calibrated(clock.now());
  CHECK(secondsPerUnitNow(c, nullptr, "a", std::nullopt) == doctest::Approx(0.1));

  Quiet actions;
  JobRun run(clock, actions, twoSharesOnA(), {0, 1}, {"a", "b"});
  run.start();
  clock.advance(1s);
  run.served(0, {});  // share 0 computes from t = 1 s
  clock.advance(3s);
  run.computed(0, 3.5, std::string("d"));  // 3.5 s less the 0.5 s start-up, over 10 units
  CHECK(secondsPerUnitNow(c, &run, "a", std::nullopt) == doctest::Approx(0.3));
  CHECK(secondsPerUnitNow(c, &run, "b", std::nullopt) == doctest::Approx(0.1));  // nothing of its own yet

  // A drift before that share began is already in what it showed; one after it rescales the calibration.
  CHECK(secondsPerUnitNow(c, &run, "a", ComputeDrift{c.at, 0.004}) == doctest::Approx(0.3));
  CHECK(secondsPerUnitNow(c, &run, "a", ComputeDrift{clock.now(), 0.004}) == doctest::Approx(0.2));
}

TEST_CASE("what an agent still holds: the share it computes, since when, and those whose bytes are on the way") {
  ManualClock clock;
  Quiet actions;
  JobRun run(clock, actions, twoSharesOnA(), {0, 1}, {"a", "b"});
  run.start();
  run.served(0, {});  // share 0 computing from now, share 1 being served
  clock.advance(2s);
  const std::vector<std::uint64_t> bytes{1000, 4000};
  auto held = heldShares(run, "a", clock.now(), 1000.0, bytes);
  REQUIRE(held.size() == 2);
  CHECK(held[0].computing);
  CHECK(held[0].units == 10);
  CHECK(held[0].startedAgo == doctest::Approx(2.0));
  CHECK_FALSE(held[1].computing);
  CHECK(held[1].arrivesIn == doctest::Approx(4.0));  // 4000 bytes at 1000 bytes/s
  CHECK(heldShares(run, "b", clock.now(), 1000.0, bytes).empty());

  run.computed(0, 2.0, std::string("d"));
  run.served(1, {});
  held = heldShares(run, "a", clock.now(), 1000.0, bytes);
  REQUIRE(held.size() == 1);  // share 0 is computed: no longer held
  CHECK(held[0].computing);
  CHECK(held[0].startedAgo == doctest::Approx(0.0));
}
