// `hnow run` in rounds planned on ready times (daemon/core/jobs/job_rounds.h).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/jobs/job_rounds.h"

using namespace hnow::daemon;

namespace {

// Three classes, as the bench's lab: fast link and compute, then slower ones.
RoundsInput lab(std::uint64_t units, int rounds = 1, double delta = 0.0, double fixedS = 0.0) {
  RoundsInput in;
  in.units = units;
  in.rounds = rounds;
  in.resultRatio = delta;
  in.workers = {{1e-5, 1e-3, fixedS, 0}, {4e-5, 2e-3, fixedS, 0}, {1.6e-4, 4e-3, fixedS, 0}};
  return in;
}

std::uint64_t unitsOf(const Round& r) {
  std::uint64_t n = 0;
  for (const auto& s : r.shares) n += s.units;
  return n;
}

}  // namespace

TEST_CASE("one round on free workers: shares in proportion to speed, every compute ends together") {
  auto plan = planRounds(lab(30000));
  REQUIRE(plan);
  REQUIRE(plan->rounds.size() == 1);
  const Round& r = plan->rounds[0];
  CHECK(unitsOf(r) == 30000);
  REQUIRE(r.shares.size() == 3);
  // Fastest link first (seed 002 Theorem 1(c)); everyone ends within one unit's compute.
  CHECK(r.shares[0].worker == 0);
  CHECK(r.shares[1].worker == 1);
  CHECK(r.shares[2].worker == 2);
  for (const auto& s : r.shares) CHECK(std::fabs(s.computeEnd - r.shares[0].computeEnd) <= 4e-3 + 1e-9);
  CHECK(r.shares[0].units > r.shares[1].units);
  CHECK(r.shares[1].units > r.shares[2].units);
  CHECK(plan->makespan == doctest::Approx(r.shares[0].computeEnd).epsilon(1e-3));
}

TEST_CASE("a worker still busy gets a smaller share, served after the free ones, and ends with them") {
  RoundsInput in = lab(30000);
  in.workers[0].readyAt = 4.0;  // the fast one holds four seconds of earlier work
  auto plan = planRounds(in);
  REQUIRE(plan);
  const Round& r = plan->rounds[0];
  REQUIRE(r.shares.size() == 3);
  CHECK(r.shares.back().worker == 0);  // served last: it is free last
  auto free = planRounds(lab(30000));
  REQUIRE(free);
  std::uint64_t busyUnits = 0, freeUnits = 0;
  for (const auto& s : r.shares) busyUnits += s.worker == 0 ? s.units : 0;
  for (const auto& s : free->rounds[0].shares) freeUnits += s.worker == 0 ? s.units : 0;
  CHECK(busyUnits < freeUnits);
  for (const auto& s : r.shares) {
    CHECK(s.computeStart >= in.workers[static_cast<std::size_t>(s.worker)].readyAt);
    CHECK(std::fabs(s.computeEnd - r.shares[0].computeEnd) <= 4e-3 + 1e-9);
  }
}

TEST_CASE("a worker free only after the others could finish everything gets nothing this round") {
  RoundsInput in = lab(3000);
  in.workers[2].readyAt = 100.0;
  auto plan = planRounds(in);
  REQUIRE(plan);
  for (const auto& s : plan->rounds[0].shares) CHECK(s.worker != 2);
  CHECK(unitsOf(plan->rounds[0]) == 3000);
}

TEST_CASE("with results, computes end staggered so the returns follow each other (FIFO, seed 002 §IV-B)") {
  auto plan = planRounds(lab(30000, 1, 1.0));
  REQUIRE(plan);
  const Round& r = plan->rounds[0];
  REQUIRE(r.shares.size() == 3);
  CHECK(r.returnOrder == std::vector<int>{0, 1, 2});
  for (std::size_t k = 1; k < r.shares.size(); ++k) {
    CHECK(r.shares[k].returnStart >= r.shares[k - 1].returnEnd - 1e-12);
    // Nobody's result waits long for the port: at most a few units' compute.
    CHECK(r.shares[k].returnStart - r.shares[k].computeEnd <= 0.02);
  }
  CHECK(plan->makespan == doctest::Approx(r.shares.back().returnEnd));
}

TEST_CASE("rounds: each is planned on the ready times the last leaves, held back until the first worker is nearly free") {
  RoundsInput in = lab(30000, 3, 0.0, 0.05);
  in.lead = 0.5;
  auto plan = planRounds(in);
  REQUIRE(plan);
  REQUIRE(plan->rounds.size() == 3);
  for (const Round& r : plan->rounds) CHECK(unitsOf(r) == 10000);
  for (std::size_t j = 1; j < 3; ++j) {
    const Round &before = plan->rounds[j - 1], &r = plan->rounds[j];
    // Held back: the worker that waits least for its share has `lead` to spare.
    double spare = 1e9;
    for (const auto& s : r.shares) {
      auto last = std::find_if(before.shares.begin(), before.shares.end(), [&](auto& b) { return b.worker == s.worker; });
      REQUIRE(last != before.shares.end());
      spare = std::min(spare, last->computeEnd - s.serveEnd);
    }
    CHECK(spare == doctest::Approx(0.5));
    CHECK(r.shares.front().serveStart >= before.shares.back().serveEnd - 1e-12);
    for (const auto& s : r.shares) {
      // No worker waits for its next share: it starts where its last one ended.
      auto last = std::find_if(before.shares.begin(), before.shares.end(), [&](auto& b) { return b.worker == s.worker; });
      REQUIRE(last != before.shares.end());
      CHECK(s.computeStart == doctest::Approx(last->computeEnd));
      CHECK(s.serveEnd <= s.computeStart + 1e-12);
    }
  }
  // Three start-ups per worker instead of one, but later serves overlap
  // computing (the slow link's worker no longer waits for everyone's input).
  auto one = planRounds(lab(30000, 1, 0.0, 0.05));
  REQUIRE(one);
  CHECK(plan->makespan < one->makespan + 2 * 0.05 + 0.01);
  double serveAll = 0;
  for (const auto& s : one->rounds[0].shares) serveAll += s.serveEnd - s.serveStart;
  CHECK(plan->makespan > one->makespan - serveAll);
}

TEST_CASE("--rounds auto: as many rounds as the start-up cost allows within 5%") {
  CHECK(chooseRounds(lab(30000, 1, 0.0, 0.0)) == 4);
  CHECK(chooseRounds(lab(30000, 1, 0.0, 0.05)) >= 2);   // makespan ~12 s: 3 more start-ups are 1.3%
  CHECK(chooseRounds(lab(300, 1, 0.0, 0.05)) == 1);     // ~0.2 s of work: one more start-up is 25%
  CHECK(chooseRounds(lab(30000, 1, 0.0, 0.05), 1) == 1);
}

TEST_CASE("ready time: a computing share ends on its prediction (now if late), the next ones follow") {
  CHECK(readyTime({}, 1e-3, 0.1) == 0.0);
  CHECK(readyTime({{1000, true, 0.4, 0}}, 1e-3, 0.1) == doctest::Approx(0.7));
  CHECK(readyTime({{1000, true, 5.0, 0}}, 1e-3, 0.1) == 0.0);  // late: it may end any moment
  CHECK(readyTime({{1000, true, 0.4, 0}, {2000, false, 0, 0.2}}, 1e-3, 0.1) == doctest::Approx(0.7 + 2.1));
  CHECK(readyTime({{1000, false, 0, 3.0}}, 1e-3, 0.1) == doctest::Approx(4.1));  // waits for its input
}

TEST_CASE("time to serve: a round planned to start later than the next tick waits") {
  RoundsInput in = lab(3000, 1);
  for (auto& w : in.workers) w.readyAt = 5.0;
  in.lead = 0.5;
  auto later = planRounds(in);
  REQUIRE(later);
  CHECK(later->rounds[0].shares.front().serveStart > 4.0);
  CHECK_FALSE(timeToServe(later->rounds[0], 0.25));
  in.workers[1].readyAt = 0.3;
  auto soon = planRounds(in);
  REQUIRE(soon);
  CHECK(timeToServe(soon->rounds[0], 0.25));
  CHECK(soon->rounds[0].shares.front().worker == 1);
}

TEST_CASE("bad inputs are error values") {
  CHECK_FALSE(planRounds(RoundsInput{}));
  RoundsInput none = lab(0);
  CHECK_FALSE(planRounds(none));
  RoundsInput free = lab(10);
  free.workers[1].perUnit = 0;
  CHECK_FALSE(planRounds(free));
  RoundsInput zero = lab(10, 0);
  CHECK_FALSE(planRounds(zero));
  // Fewer units than rounds: the empty rounds are skipped, every unit planned once.
  auto tiny = planRounds(lab(2, 5));
  REQUIRE(tiny);
  std::uint64_t n = 0;
  for (const auto& r : tiny->rounds) n += unitsOf(r);
  CHECK(n == 2);
}

TEST_CASE("a slowed worker's unstarted shares go where they end soonest, each placement moving that worker's ready time") {
  std::vector<RoundWorker> workers = {{1e-5, 4e-3, 0.05, 6.0},   // slowed x4, busy for 6 s more
                                      {1e-5, 1e-3, 0.05, 1.0},   // fast, free in 1 s
                                      {1e-5, 2e-3, 0.05, 0.5}};  // mid, free in 0.5 s
  // 1000 units: on 0 it ends at 6 + 0.05 + 4 = 10.05; on 1 at 1 + 0.05 + 1 = 2.05.
  auto placed = placeUnstarted(workers, 0, {1000, 1000, 10});
  REQUIRE(placed.size() == 3);
  CHECK(placed[0] == 1);
  CHECK(placed[1] == 2);  // 1 is now busy until 2.05: 2 ends it at 0.5 + 0.05 + 2 = 2.55 < 3.1
  CHECK(placed[2] == 1);  // 2.05 + 0.05 + 0.01 = 2.11
  // Not slowed after all: everything stays.
  workers[0].perUnit = 1e-4;
  workers[0].readyAt = 0;
  CHECK(placeUnstarted(workers, 0, {1000, 1000}) == std::vector<int>{0, 0});
  // A share that cannot arrive before the slowed worker would end it stays.
  std::vector<RoundWorker> slowLink = {{1e-5, 2e-3, 0.0, 0.0}, {1.0, 1e-3, 0.0, 0.0}};
  CHECK(placeUnstarted(slowLink, 0, {100}) == std::vector<int>{0});
}
