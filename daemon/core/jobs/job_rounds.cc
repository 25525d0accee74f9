#include "core/jobs/job_rounds.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hnow::daemon {

namespace {

constexpr int kBisections = 100;
constexpr int kReturnPasses = 4;  // g_i's fixed point: returns are small against compute

struct Shares {
  std::vector<int> order;      // workers in serve (= return) order
  std::vector<double> units;   // per worker
};

// w_i for a common end T (see the header): the serve clock runs in order.
double sizeFor(const RoundsInput& in, const std::vector<int>& order, const std::vector<double>& tail, double start,
               double T, std::vector<double>& w) {
  double t = start, sum = 0;
  for (int i : order) {
    const RoundWorker& x = in.workers[static_cast<std::size_t>(i)];
    const double budget = T - tail[static_cast<std::size_t>(i)] - x.fixedS;
    const double bySend = (budget - t) / (x.perUnit + x.tau);
    const double byReady = x.perUnit > 0 ? (budget - x.readyAt) / x.perUnit : bySend;
    const double share = std::max(0.0, std::min(bySend, byReady));
    w[static_cast<std::size_t>(i)] = share;
    t += x.tau * share;
    sum += share;
  }
  return sum;
}

Shares sizeRound(const RoundsInput& in, double work, double start) {
  Shares s;
  s.order.resize(in.workers.size());
  std::iota(s.order.begin(), s.order.end(), 0);
  std::stable_sort(s.order.begin(), s.order.end(), [&](int a, int b) {
    const RoundWorker &x = in.workers[static_cast<std::size_t>(a)], &y = in.workers[static_cast<std::size_t>(b)];
    return x.readyAt != y.readyAt ? x.readyAt < y.readyAt : x.tau < y.tau;
  });
  s.units.assign(in.workers.size(), 0.0);
  std::vector<double> tail(in.workers.size(), 0.0);
  for (int pass = 0; pass < kReturnPasses; ++pass) {
    double lo = start, hi = start + 1.0;
    while (sizeFor(in, s.order, tail, start, hi, s.units) < work) hi = start + 2 * (hi - start);
    for (int k = 0; k < kBisections; ++k) {
      const double mid = (lo + hi) / 2;
      (sizeFor(in, s.order, tail, start, mid, s.units) < work ? lo : hi) = mid;
    }
    sizeFor(in, s.order, tail, start, hi, s.units);
    if (in.resultRatio <= 0) break;
    double after = 0;  // returns at or after i, in return order
    for (auto it = s.order.rbegin(); it != s.order.rend(); ++it) {
      const auto i = static_cast<std::size_t>(*it);
      after += in.resultRatio * in.workers[i].tau * s.units[i];
      tail[i] = after;
    }
  }
  return s;
}

// Largest remainders: whole units summing to `total`.
std::vector<std::uint64_t> wholeUnits(const std::vector<double>& shares, std::uint64_t total) {
  const double sum = std::accumulate(shares.begin(), shares.end(), 0.0);
  std::vector<std::uint64_t> units(shares.size(), 0);
  std::vector<std::pair<double, std::size_t>> remainders;
  std::uint64_t given = 0;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    const double exact = sum > 0 ? shares[i] * static_cast<double>(total) / sum : 0.0;
    units[i] = std::min<std::uint64_t>(static_cast<std::uint64_t>(std::floor(exact)), total - given);
    given += units[i];
    remainders.push_back({exact - std::floor(exact), i});
  }
  std::stable_sort(remainders.begin(), remainders.end(), [](auto a, auto b) { return a.first > b.first; });
  for (std::size_t k = 0; given < total; k = (k + 1) % remainders.size(), ++given) ++units[remainders[k].second];
  return units;
}

// The model's timeline of whole shares: one serve port, one return port,
// each worker computing after its input arrived and it is ready.
void replay(const RoundsInput& in, Round& round, double serveFrom, double returnFrom) {
  double t = serveFrom;
  for (RoundShare& s : round.shares) {
    const RoundWorker& x = in.workers[static_cast<std::size_t>(s.worker)];
    const double u = static_cast<double>(s.units);
    s.serveStart = t;
    s.serveEnd = t = t + x.tau * u;
    s.computeStart = std::max(s.serveEnd, x.readyAt);
    s.computeEnd = s.computeStart + x.fixedS + x.perUnit * u;
  }
  double port = returnFrom;
  round.end = 0;
  for (int k : round.returnOrder) {
    RoundShare& s = round.shares[static_cast<std::size_t>(k)];
    s.returnStart = std::max(s.computeEnd, port);
    s.returnEnd = port = s.returnStart + in.resultRatio * in.workers[static_cast<std::size_t>(s.worker)].tau *
                                             static_cast<double>(s.units);
    round.end = std::max(round.end, in.resultRatio > 0 ? s.returnEnd : s.computeEnd);
  }
}

// How long the round's serves could wait with no worker idling for them.
double serveSlack(const RoundsInput& in, const Round& round) {
  double slack = INFINITY;
  for (const RoundShare& s : round.shares)
    slack = std::min(slack, std::max(0.0, in.workers[static_cast<std::size_t>(s.worker)].readyAt - s.serveEnd));
  return std::isfinite(slack) ? slack : 0.0;
}

}  // namespace

hnow::Result<RoundsPlan> planRounds(const RoundsInput& original) {
  if (original.workers.empty()) return hnow::Error{"no agent can take a share"};
  if (original.units == 0) return hnow::Error{"no work unit is left to plan"};
  if (original.rounds < 1) return hnow::Error{"a job needs at least one round"};
  for (const RoundWorker& w : original.workers)
    if (!(w.tau >= 0) || !(w.perUnit > 0) || !(w.fixedS >= 0) || !std::isfinite(w.readyAt) || !std::isfinite(w.tau))
      return hnow::Error{"a worker's rates are not usable (R must be positive, the rest finite)"};
  RoundsInput in = original;
  in.resultRatio = std::clamp(in.resultRatio, 0.0, 1.0);
  RoundsPlan plan;
  const auto rounds = static_cast<std::uint64_t>(in.rounds);
  std::uint64_t left = in.units;
  for (std::uint64_t j = 0; j < rounds && left > 0; ++j) {
    // Nearly equal rounds, the first ones taking the remainder.
    const std::uint64_t units = in.units / rounds + (j < in.units % rounds ? 1 : 0);
    if (units == 0) continue;
    left -= units;
    Shares sized = sizeRound(in, static_cast<double>(units), in.serveFreeAt);
    std::vector<double> inOrder;
    for (int i : sized.order) inOrder.push_back(sized.units[static_cast<std::size_t>(i)]);
    const std::vector<std::uint64_t> whole = wholeUnits(inOrder, units);
    Round round;
    round.units = units;
    for (std::size_t k = 0; k < whole.size(); ++k)
      if (whole[k] > 0) {
        round.returnOrder.push_back(static_cast<int>(round.shares.size()));
        round.shares.push_back({sized.order[k], whole[k]});
      }
    replay(in, round, in.serveFreeAt, in.returnFreeAt);
    // Held back until `lead` before a worker would wait for it.
    if (const double slack = serveSlack(in, round); slack > in.lead)
      replay(in, round, in.serveFreeAt + slack - in.lead, in.returnFreeAt);
    for (const RoundShare& s : round.shares) in.workers[static_cast<std::size_t>(s.worker)].readyAt = s.computeEnd;
    in.serveFreeAt = round.shares.back().serveEnd;
    for (const RoundShare& s : round.shares) in.returnFreeAt = std::max(in.returnFreeAt, s.returnEnd);
    plan.makespan = std::max(plan.makespan, round.end);
    plan.rounds.push_back(std::move(round));
  }
  return plan;
}

int chooseRounds(RoundsInput input, int maxRounds, double tolerance) {
  input.rounds = 1;
  auto one = planRounds(input);
  if (!one) return 1;
  for (int k = std::max(1, maxRounds); k > 1; --k) {
    input.rounds = k;
    auto more = planRounds(input);
    if (more && more->makespan <= (1 + tolerance) * one->makespan) return k;
  }
  return 1;
}

double readyTime(const std::vector<HeldShare>& held, double perUnit, double fixedS) {
  double t = 0;
  for (const HeldShare& h : held) {
    const double cost = fixedS + perUnit * static_cast<double>(h.units);
    // A late share gives no better estimate than "now": it may end any time.
    t = h.computing ? std::max(t, cost - h.startedAgo) : std::max(t, h.arrivesIn) + cost;
  }
  return t;
}

std::vector<int> placeUnstarted(std::vector<RoundWorker> workers, int slowed, const std::vector<std::uint64_t>& units) {
  std::vector<int> placed;
  for (std::uint64_t n : units) {
    const double u = static_cast<double>(n);
    auto endOn = [&](std::size_t w) {
      const RoundWorker& x = workers[w];
      const double arrives = static_cast<int>(w) == slowed ? 0.0 : x.tau * u;
      return std::max(x.readyAt, arrives) + x.fixedS + x.perUnit * u;
    };
    auto best = static_cast<std::size_t>(slowed);
    double bestEnd = endOn(best);
    for (std::size_t w = 0; w < workers.size(); ++w)
      if (const double end = endOn(w); end < bestEnd) best = w, bestEnd = end;
    workers[best].readyAt = bestEnd;
    placed.push_back(static_cast<int>(best));
  }
  return placed;
}

bool timeToServe(const Round& next, double within) {
  return next.shares.empty() || next.shares.front().serveStart <= within;
}

}  // namespace hnow::daemon
