#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "planner/worksharing/worksharing_node_bound.h"
#include "worksharing_brute_force.h"

using namespace hnow::planner;
using hnow::testing::randomWorksharing;

namespace {

// The root of the return-order search for `serve` (seed 002 (12), each row
// with only its own return): row i has the serves up to i, R_i and delta tau_i.
struct Root {
  ReturnNode node{};
  OpenList open{};
  double deltaTau[kMaxNodeWorkers] = {};
  double maxShare[kMaxNodeWorkers] = {};
};

Root rootFor(const WorksharingProblem& p, const std::vector<int>& serve) {
  Root root;
  const int k = static_cast<int>(serve.size());
  const double delta = p.resultRatio;
  for (int i = 0; i < k; ++i) {
    const Worker& wi = p.workers[serve[i]];
    for (int j = 0; j < k; ++j)
      root.node.k[i][j] = (j <= i ? p.workers[serve[j]].linkTime : 0.0) +
                          (i == j ? wi.computeTime + delta * wi.linkTime : 0.0);
    root.node.rhs[i] = 1.0;
    root.node.objective[i] = 1.0;
    root.open[i] = i;
    root.deltaTau[i] = delta * wi.linkTime;
    root.maxShare[i] = 1.0 / (wi.computeTime + (1.0 + delta) * wi.linkTime);
  }
  root.node.constant = 0.0;
  return root;
}

// The node after open[pick] is placed last among the open workers: the
// other rows gain its return, then its (final) row eliminates its share.
ReturnNode placeLast(const ReturnNode& n, const OpenList& open, int m, int pick, const double* deltaTau,
                     OpenList& rest) {
  ReturnNode next = n;
  const int x = open[pick];
  int r = 0;
  for (int i = 0; i < m; ++i)
    if (i != pick) rest[r++] = open[i];
  for (int a = 0; a < r; ++a) {
    const int j = rest[a];
    const double f = (n.k[j][x] + deltaTau[x]) / n.k[x][x];
    for (int b = 0; b < r; ++b) next.k[j][rest[b]] = n.k[j][rest[b]] - f * n.k[x][rest[b]];
    next.rhs[j] = n.rhs[j] - f * n.rhs[x];
  }
  const double g = n.objective[x] / n.k[x][x];
  next.constant = n.constant + g * n.rhs[x];
  for (int b = 0; b < r; ++b) next.objective[rest[b]] = n.objective[rest[b]] - g * n.k[x][rest[b]];
  return next;
}

// The most work of a feasible no-gap protocol serving `serve` whose return
// order ends with `tail` (serve positions, last return last); -inf if none.
double bestCompletion(const WorksharingProblem& p, const std::vector<int>& serve, const std::vector<int>& tail) {
  std::vector<int> head;
  for (int i = 0; i < static_cast<int>(serve.size()); ++i)
    if (std::find(tail.begin(), tail.end(), i) == tail.end()) head.push_back(i);
  double best = -std::numeric_limits<double>::infinity();
  do {
    Protocol protocol{serve, {}};
    for (int i : head) protocol.returnOrder.push_back(serve[i]);
    for (int i : tail) protocol.returnOrder.push_back(serve[i]);
    auto a = solveProtocol(p, protocol, 1.0);
    if (a && smallestShare(*a) >= 0) best = std::max(best, a->work);
  } while (std::next_permutation(head.begin(), head.end()));
  return best;
}

// The node's exact multipliers: k^t u = objective over the open rows (r <= 8).
std::vector<double> exactMultipliers(const ReturnNode& n, const OpenList& open, int r) {
  std::vector<std::vector<double>> a(r, std::vector<double>(r + 1));
  for (int i = 0; i < r; ++i) {
    for (int j = 0; j < r; ++j) a[i][j] = n.k[open[j]][open[i]];
    a[i][r] = n.objective[open[i]];
  }
  for (int c = 0; c < r; ++c) {
    int p = c;
    for (int i = c + 1; i < r; ++i)
      if (std::fabs(a[i][c]) > std::fabs(a[p][c])) p = i;
    std::swap(a[p], a[c]);
    for (int i = 0; i < r; ++i)
      if (i != c) {
        const double f = a[i][c] / a[c][c];
        for (int j = c; j <= r; ++j) a[i][j] -= f * a[c][j];
      }
  }
  std::vector<double> u(r);
  for (int i = 0; i < r; ++i) u[i] = a[i][r] / a[i][i];
  return u;
}

}  // namespace

TEST_CASE("every child's bound is at least the best protocol below it, two levels deep") {
  // The search prunes a child when this bound cannot beat the incumbent, so
  // it must never be below a completion's work (weak duality, both choices
  // of multipliers), whatever delta and whether or not u must be clamped.
  std::mt19937 rng(31);
  const double none = -std::numeric_limits<double>::infinity();  // no cutoff: both choices
  int children = 0;
  for (int trial = 0; trial < 24; ++trial) {
    WorksharingProblem p = randomWorksharing(rng, 3 + trial % 4, trial % 2 == 0);
    p.resultRatio = std::vector<double>{0.05, 0.25, 0.5, 1.0}[trial % 4];
    if (trial % 3 == 2)
      for (auto& w : p.workers) w.linkTime *= 4;  // communication-bound: negative shares, clamping
    std::vector<int> serve(p.workers.size());
    for (int i = 0; i < static_cast<int>(serve.size()); ++i) serve[i] = i;
    std::shuffle(serve.begin(), serve.end(), rng);
    const int k = static_cast<int>(serve.size());
    Root root = rootFor(p, serve);
    ChildBounds bounds;
    REQUIRE(bounds.prepare(root.node, root.open, k, root.deltaTau, root.maxShare));
    for (int x = 0; x < k; ++x) {
      const double below = bestCompletion(p, serve, {x});
      CHECK(bounds.bound(x, none) >= below - 1e-9 * std::fabs(below));
      ++children;
      if (k < 4) continue;
      // One level down: x returns last, y just before it.
      OpenList rest{};
      const ReturnNode child = placeLast(root.node, root.open, k, x, root.deltaTau, rest);
      ChildBounds childBounds;
      if (!childBounds.prepare(child, rest, k - 1, root.deltaTau, root.maxShare)) continue;
      for (int b = 0; b < k - 1; ++b) {
        const double deeper = bestCompletion(p, serve, {rest[b], x});
        CHECK(childBounds.bound(b, none) >= deeper - 1e-9 * std::fabs(deeper));
        ++children;
      }
    }
  }
  CHECK(children > 200);
}

TEST_CASE("without clamping, a child's bound is at most the dual bound of the child formed explicitly") {
  // The Sherman-Morrison multipliers are the child's exact dual solution:
  // where that is nonnegative, the bound is the value of the child's vertex,
  // the same number nodeDualBound computes from the eliminated system.
  std::mt19937 rng(32);
  int compared = 0;
  for (int trial = 0; trial < 30; ++trial) {
    WorksharingProblem p = randomWorksharing(rng, 4 + trial % 4, trial % 2 == 0);
    std::vector<int> serve(p.workers.size());
    for (int i = 0; i < static_cast<int>(serve.size()); ++i) serve[i] = i;
    std::shuffle(serve.begin(), serve.end(), rng);
    const int k = static_cast<int>(serve.size());
    Root root = rootFor(p, serve);
    ChildBounds bounds;
    REQUIRE(bounds.prepare(root.node, root.open, k, root.deltaTau, root.maxShare));
    for (int x = 0; x < k; ++x) {
      OpenList rest{};
      const ReturnNode child = placeLast(root.node, root.open, k, x, root.deltaTau, rest);
      const std::vector<double> u = exactMultipliers(child, rest, k - 1);
      if (*std::min_element(u.begin(), u.end()) < 0) continue;  // clamped: other multipliers
      const double explicitBound = nodeDualBound(child, rest, k - 1, root.maxShare);
      const double fast = bounds.bound(x, -std::numeric_limits<double>::infinity());
      CHECK(fast <= explicitBound + 1e-9 * std::fabs(explicitBound));
      ++compared;
    }
  }
  CHECK(compared > 40);
}
