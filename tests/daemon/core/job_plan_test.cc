// `hnow run`'s plan from measured rates (daemon/core/jobs/job_plan.h).
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "core/jobs/job_plan.h"

using namespace hnow::daemon;

namespace {
JobPlanInput lab(std::uint64_t units, std::string order = "auto") {
  JobPlanInput input;
  input.units = units;
  input.bytesPerUnit = 1000;
  input.resultRatio = 0.5;
  input.order = std::move(order);
  input.workers = {{"fast", 10e6, 1e-3}, {"mid", 5e6, 2e-3}, {"slow", 2e6, 4e-3}};
  return input;
}
}  // namespace

TEST_CASE("shares are whole units that tile the input in serve order") {
  for (const char* order : {"fifo", "lifo", "auto"}) {
    for (std::uint64_t units : {1ull, 2ull, 3ull, 10ull, 12345ull}) {
      auto plan = planJob(lab(units, order));
      REQUIRE(plan);
      std::uint64_t next = 0;
      for (const auto& s : plan->shares) {
        CHECK(s.units > 0);
        CHECK(s.firstUnit == next);
        next += s.units;
      }
      CHECK(next == units);
      std::vector<int> returns = plan->returnOrder;
      std::sort(returns.begin(), returns.end());
      std::vector<int> all(plan->shares.size());
      std::iota(all.begin(), all.end(), 0);
      CHECK(returns == all);
      CHECK(plan->predictedSeconds > 0);
    }
  }
}

TEST_CASE("a faster agent gets more units than a slower one on the same link") {
  JobPlanInput input = lab(10000, "fifo");
  input.workers = {{"slow", 10e6, 4e-3}, {"fast", 10e6, 1e-3}};
  auto plan = planJob(input);
  REQUIRE(plan);
  std::uint64_t fast = 0, slow = 0;
  for (const auto& s : plan->shares) (s.worker == 1 ? fast : slow) += s.units;
  CHECK(fast > 2 * slow);
}

TEST_CASE("auto predicts no worse than fifo and lifo - the chosen name is reported") {
  auto automatic = planJob(lab(5000, "auto"));
  auto fifo = planJob(lab(5000, "fifo"));
  auto lifo = planJob(lab(5000, "lifo"));
  REQUIRE(automatic);
  REQUIRE(fifo);
  REQUIRE(lifo);
  CHECK(fifo->algorithm == "fifo");
  CHECK(lifo->algorithm == "lifo");
  CHECK(automatic->predictedSeconds <= fifo->predictedSeconds + 1e-9);
  CHECK(automatic->predictedSeconds <= lifo->predictedSeconds + 1e-9);
}

TEST_CASE("an agent whose link adds nothing is left out (seed 002 Proposition 1)") {
  JobPlanInput input = lab(1000, "fifo");
  input.resultRatio = 1.0;
  input.workers = {{"near", 100e6, 1e-3}, {"far", 1e3, 1e-3}};  // 1 s per unit each way
  auto plan = planJob(input);
  REQUIRE(plan);
  for (const auto& s : plan->shares) CHECK(s.worker == 0);
}

TEST_CASE("no agent, no unit or an unknown order are errors, not plans") {
  JobPlanInput none = lab(10);
  none.workers.clear();
  CHECK_FALSE(planJob(none));
  CHECK_FALSE(planJob(lab(0)));
  auto bad = planJob(lab(10, "random"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("--order") != std::string::npos);
}
