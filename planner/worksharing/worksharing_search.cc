#include "planner/worksharing/worksharing_search.h"

#include "planner/worksharing/worksharing_local_search.h"
#include "planner/worksharing/worksharing_node_bound.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>

namespace hnow::planner {

namespace {

constexpr int kMax = kMaxBestWorkers;
static_assert(kMax == kMaxNodeWorkers);

// A serve order (worker indices) with its upper bound on work for L = 1.
struct Candidate {
  double bound = 0.0;
  int size = 0;
  std::array<std::int8_t, kMax> serve{};
};

// Upper bound for a serve order over all return orders and sub-sequences:
// drop every return from the equations except a worker's own. What remains
// is serving without return contention, worker i occupying R_i + delta tau_i
// after its serve. A worker served after a prefix that took P of the
// lifespan 1 gets (1 - P)/G_i and leaves 1 - P' = (1 - P)(1 - tau_i/G_i), so
// the best sub-sequence of a suffix is a one-pass DP from the back.
double relaxedBound(const WorksharingProblem& problem, const Candidate& c) {
  const double delta = problem.resultRatio;
  double best = 0.0;  // best work of a sub-sequence of the suffix, for P = 0
  for (int i = c.size - 1; i >= 0; --i) {
    const Worker& w = problem.workers[c.serve[i]];
    const double g = w.computeTime + (1.0 + delta) * w.linkTime;
    best = std::max(best, 1.0 / g + (1.0 - w.linkTime / g) * best);
  }
  return best;
}

class ReturnOrderSearch {
 public:
  ReturnOrderSearch(const WorksharingProblem& problem, const SearchLimits& limits, double incumbent)
      : problem_(problem), limits_(limits), bestWork_(incumbent), mirrorSymmetric_(problem.resultRatio == 1.0) {}

  // Searches every return order for serve order `c`; keeps the best feasible.
  void run(const Candidate& c) {
    candidate_ = &c;
    const int k = c.size;
    Level& root = levels_[0];
    for (int i = 0; i < k; ++i) {
      const Worker& wi = problem_.workers[c.serve[i]];
      for (int j = 0; j < k; ++j) {
        const Worker& wj = problem_.workers[c.serve[j]];
        double x = j <= i ? wj.linkTime : 0.0;
        if (i == j) x += wi.computeTime + problem_.resultRatio * wi.linkTime;
        root.k[i][j] = x;
      }
      root.rhs[i] = 1.0;
      root.objective[i] = 1.0;
      deltaTau_[i] = problem_.resultRatio * wi.linkTime;
      maxShare_[i] = 1.0 / (wi.computeTime + (1.0 + problem_.resultRatio) * wi.linkTime);
    }
    root.constant = 0.0;
    std::array<int, kMax> remaining{};
    std::iota(remaining.begin(), remaining.begin() + k, 0);
    descend(0, remaining, k, mirrorSymmetric_);
  }

  bool limitHit() const { return limitHit_; }
  long long nodes() const { return nodes_; }
  double bestWork() const { return bestWork_; }
  const std::optional<Allocation>& best() const { return best_; }

 private:
  using Level = ReturnNode;

  // With delta = 1 the equations are symmetric in time (seed 002 §I: swap
  // the serve and return orders): protocol (S, F) and (reverse F, reverse
  // S) have the same shares. So we search only the pairs whose reversed
  // return order is lexicographically >= the serve order (as worker
  // indices); the mirror of a skipped pair is one we search, or one whose
  // serve order's bound already ruled it out. `tied`: the reversed return
  // order built so far (lastToFirst_) equals the serve order's prefix.
  void descend(int depth, const std::array<int, kMax>& remaining, int count, bool tied) {
    if (count == 0) {
      leaf(levels_[depth].constant);
      return;
    }
    const Level& cur = levels_[depth];
    Level& next = levels_[depth + 1];
    // Children with two or more open workers are bounded before they are
    // formed (worksharing_node_bound.h); if this node's system is singular,
    // after elimination instead.
    ChildBounds& bounds = childBounds_[depth];
    const bool boundFirst =
        count >= 3 && bounds.prepare(cur, remaining, count, deltaTau_.data(), maxShare_.data());
    for (int pick = 0; pick < count; ++pick) {
      if (limitHit_) return;
      if (++nodes_ > limits_.maxSearchNodes) {
        limitHit_ = true;
        return;
      }
      // x returns after every other open worker: each of their equations
      // gains delta tau_x w_x (x's return is in their "returns from i on").
      const int x = remaining[pick];
      if (tied && candidate_->serve[x] < candidate_->serve[depth]) continue;  // its mirror is searched
      const double pivot = cur.k[x][x];
      if (std::fabs(pivot) < 1e-14) continue;  // singular here: no protocol to solve
      const double cutoff = bestWork_ * (1.0 + 1e-12);  // the incumbent rises as leaves improve it
      if (boundFirst && bounds.bound(pick, cutoff) <= cutoff) continue;
      std::array<int, kMax> rest{};
      int r = 0;
      for (int i = 0; i < count; ++i)
        if (i != pick) rest[r++] = remaining[i];
      // Eliminate w_x with x's equation, which is final now.
      for (int a = 0; a < r; ++a) {
        const int j = rest[a];
        const double f = (cur.k[j][x] + deltaTau_[x]) / pivot;
        for (int b = 0; b < r; ++b) next.k[j][rest[b]] = cur.k[j][rest[b]] - f * cur.k[x][rest[b]];
        next.rhs[j] = cur.rhs[j] - f * cur.rhs[x];
      }
      const double g = cur.objective[x] / pivot;
      next.constant = cur.constant + g * cur.rhs[x];
      for (int b = 0; b < r; ++b) next.objective[rest[b]] = cur.objective[rest[b]] - g * cur.k[x][rest[b]];
      if (!boundFirst && r >= 2 && nodeDualBound(next, rest, r, maxShare_.data()) <= cutoff) continue;
      lastToFirst_[depth] = x;
      descend(depth + 1, rest, r, tied && candidate_->serve[x] == candidate_->serve[depth]);
    }
  }

  void leaf(double work) {
    if (!(work > bestWork_ * (1.0 + 1e-12))) return;
    const Candidate& c = *candidate_;
    Protocol protocol;
    for (int i = 0; i < c.size; ++i) protocol.serveOrder.push_back(c.serve[i]);
    for (int i = c.size - 1; i >= 0; --i) protocol.returnOrder.push_back(c.serve[lastToFirst_[i]]);
    auto solved = solveProtocol(problem_, protocol, 1.0);
    if (!solved || smallestShare(*solved) < 0.0) return;
    if (!(solved->work > bestWork_ * (1.0 + 1e-12))) return;
    bestWork_ = solved->work;
    best_ = std::move(solved).value();
  }

  const WorksharingProblem& problem_;
  const SearchLimits& limits_;
  const Candidate* candidate_ = nullptr;
  double bestWork_;
  std::optional<Allocation> best_;
  long long nodes_ = 0;
  bool limitHit_ = false;
  std::array<Level, kMax + 1> levels_{};
  std::array<ChildBounds, kMax + 1> childBounds_{};
  std::array<double, kMax> deltaTau_{};
  std::array<double, kMax> maxShare_{};  // wmax: a share can never exceed this (L = 1)
  std::array<int, kMax> lastToFirst_{};
  bool mirrorSymmetric_;
};

// Every serve order of every subset (of the full set only without selection).
std::vector<Candidate> serveOrders(const WorksharingProblem& problem, bool selectWorkers) {
  const int n = static_cast<int>(problem.workers.size());
  std::vector<Candidate> out;
  const unsigned full = (1u << n) - 1;
  for (unsigned mask = selectWorkers ? 1 : full; mask <= full; ++mask) {
    Candidate c;
    for (int w = 0; w < n; ++w)
      if (mask & (1u << w)) c.serve[c.size++] = static_cast<std::int8_t>(w);
    do {
      c.bound = relaxedBound(problem, c);
      out.push_back(c);
    } while (std::next_permutation(c.serve.begin(), c.serve.begin() + c.size));
  }
  return out;
}

}  // namespace

Result<BestWorksharing> bestWorksharing(const WorksharingProblem& problem, bool selectWorkers,
                                        double lifespan, const SearchLimits& limits) {
  const int n = static_cast<int>(problem.workers.size());
  if (n == 0) return Result<BestWorksharing>::failure("there are no workers");
  if (n > kMaxBestWorkers)
    return Result<BestWorksharing>::failure("best is an exhaustive search and takes at most " +
                                             std::to_string(kMaxBestWorkers) + " workers, not " +
                                             std::to_string(n));
  // Incumbent: FIFO and LIFO serving by increasing link time (always
  // feasible), and FIFO on Proposition 1's prefix, each improved by local
  // moves; the better the incumbent, the more the bounds below cut.
  const std::vector<int> order = byIncreasingLinkTime(problem);
  std::vector<Allocation> starts = {fifoAllocation(problem, order, 1.0), lifoAllocation(problem, order, 1.0)};
  if (selectWorkers)
    starts.push_back(fifoAllocation(problem, std::span(order).first(fifoSelectedPrefix(problem, order)), 1.0));
  Allocation incumbent = starts.front();
  for (const Allocation& start : starts)
    if (Allocation improved = improveByLocalSearch(problem, start, selectWorkers); improved.work > incumbent.work)
      incumbent = std::move(improved);

  std::vector<Candidate> candidates = serveOrders(problem, selectWorkers);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.bound > b.bound; });
  ReturnOrderSearch search(problem, limits, incumbent.work);
  for (const Candidate& c : candidates) {
    if (c.bound <= search.bestWork() * (1.0 + 1e-12)) break;  // sorted: no later one can win
    search.run(c);
    if (search.limitHit()) break;
  }
  BestWorksharing out;
  out.allocation = search.best() ? *search.best() : incumbent;
  out.allocation = scaledTo(out.allocation, lifespan);
  out.provenOptimal = !search.limitHit();
  out.stats.searchNodes = search.nodes();
  return out;
}

}  // namespace hnow::planner
