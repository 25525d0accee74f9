// The units still to compute after a restart (core/jobs/unit_gaps.h).
#include <doctest/doctest.h>

#include "core/jobs/unit_gaps.h"

using namespace hnow::daemon;

TEST_CASE("with nothing done the to-do units are the input's, and a range of them is one piece") {
  auto gaps = UnitGaps::of(100);
  CHECK(gaps.count() == 100);
  CHECK(gaps.pieces(10, 20) == std::vector<UnitRange>{{10, 30}});
  CHECK(gaps.pieces(90, 50) == std::vector<UnitRange>{{90, 100}});  // clipped at the end
  CHECK(gaps.pieces(100, 5).empty());
}

TEST_CASE("done ranges leave gaps, and a range of to-do units is cut where it meets one") {
  // Done: [10, 20) and [40, 70), given out of order, one overlapping another.
  auto gaps = UnitGaps::of(100, {{40, 60}, {10, 20}, {55, 70}});
  CHECK(gaps.ranges() == std::vector<UnitRange>{{0, 10}, {20, 40}, {70, 100}});
  CHECK(gaps.count() == 60);
  // To-do 5..35 is input 5..10, 20..40, 70..75.
  CHECK(gaps.pieces(5, 30) == std::vector<UnitRange>{{5, 10}, {20, 40}, {70, 75}});
  CHECK(gaps.pieces(10, 20) == std::vector<UnitRange>{{20, 40}});
  CHECK(gaps.pieces(59, 1) == std::vector<UnitRange>{{99, 100}});
}

TEST_CASE("everything done leaves nothing to do, and ranges past the end or empty are ignored") {
  CHECK(UnitGaps::of(50, {{0, 50}}).count() == 0);
  CHECK(UnitGaps::of(50, {{0, 50}}).pieces(0, 10).empty());
  auto gaps = UnitGaps::of(50, {{30, 30}, {45, 90}, {60, 70}});
  CHECK(gaps.ranges() == std::vector<UnitRange>{{0, 45}});
  CHECK(gaps.count() == 45);
}
