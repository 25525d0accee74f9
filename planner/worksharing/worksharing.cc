#include "planner/worksharing/worksharing.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hnow::planner {

std::vector<int> byIncreasingLinkTime(const WorksharingProblem& problem) {
  std::vector<int> order(problem.workers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return problem.workers[a].linkTime < problem.workers[b].linkTime;
  });
  return order;
}

Protocol fifoProtocol(std::span<const int> serveOrder) {
  return Protocol{{serveOrder.begin(), serveOrder.end()}, {serveOrder.begin(), serveOrder.end()}};
}

Protocol lifoProtocol(std::span<const int> serveOrder) {
  return Protocol{{serveOrder.begin(), serveOrder.end()}, {serveOrder.rbegin(), serveOrder.rend()}};
}

namespace {

Allocation emptyAllocation(const WorksharingProblem& problem, Protocol protocol, double lifespan) {
  Allocation out;
  out.protocol = std::move(protocol);
  out.units.assign(problem.workers.size(), 0.0);
  out.lifespan = lifespan;
  return out;
}

void sumWork(Allocation& allocation) {
  allocation.work = 0.0;
  for (int w : allocation.protocol.serveOrder) allocation.work += allocation.units[w];
}

}  // namespace

Result<Allocation> solveProtocol(const WorksharingProblem& problem, const Protocol& protocol,
                                 double lifespan) {
  const auto& serve = protocol.serveOrder;
  const int k = static_cast<int>(serve.size());
  const int n = static_cast<int>(problem.workers.size());
  std::vector<int> servePos(n, -1), returnPos(n, -1);
  for (int i = 0; i < k; ++i) servePos[serve[i]] = i;
  if (static_cast<int>(protocol.returnOrder.size()) != k)
    return Result<Allocation>::failure("the serve and return orders list different workers");
  for (int i = 0; i < k; ++i) {
    int w = protocol.returnOrder[i];
    if (w < 0 || w >= n || servePos[w] < 0 || returnPos[w] >= 0)
      return Result<Allocation>::failure("the serve and return orders list different workers");
    returnPos[w] = i;
  }
  // Row i (worker serve[i]), column j (worker serve[j]): equation (12).
  const double delta = problem.resultRatio;
  std::vector<double> a(static_cast<size_t>(k) * (k + 1), 0.0);
  auto at = [&](int r, int c) -> double& { return a[static_cast<size_t>(r) * (k + 1) + c]; };
  for (int i = 0; i < k; ++i) {
    const int wi = serve[i];
    for (int j = 0; j < k; ++j) {
      const int wj = serve[j];
      const double tau = problem.workers[wj].linkTime;
      double x = 0.0;
      if (j <= i) x += tau;                                  // served before or at i
      if (returnPos[wj] >= returnPos[wi]) x += delta * tau;  // returns at or after i
      if (i == j) x += problem.workers[wi].computeTime;
      at(i, j) = x;
    }
    at(i, k) = lifespan;
  }
  for (int col = 0; col < k; ++col) {
    int pivot = col;
    for (int r = col + 1; r < k; ++r)
      if (std::fabs(at(r, col)) > std::fabs(at(pivot, col))) pivot = r;
    if (std::fabs(at(pivot, col)) < 1e-300)
      return Result<Allocation>::failure("the protocol's equations are singular");
    if (pivot != col)
      for (int c = col; c <= k; ++c) std::swap(at(pivot, c), at(col, c));
    for (int r = col + 1; r < k; ++r) {
      const double f = at(r, col) / at(col, col);
      if (f == 0.0) continue;
      for (int c = col; c <= k; ++c) at(r, c) -= f * at(col, c);
    }
  }
  Allocation out = emptyAllocation(problem, protocol, lifespan);
  for (int r = k - 1; r >= 0; --r) {
    double s = at(r, k);
    for (int c = r + 1; c < k; ++c) s -= at(r, c) * out.units[serve[c]];
    out.units[serve[r]] = s / at(r, r);
  }
  sumWork(out);
  return out;
}

Allocation lifoAllocation(const WorksharingProblem& problem, std::span<const int> serveOrder,
                          double lifespan) {
  Allocation out = emptyAllocation(problem, lifoProtocol(serveOrder), lifespan);
  const double delta = problem.resultRatio;
  double previous = 0.0, previousCompute = 0.0;
  for (size_t k = 0; k < serveOrder.size(); ++k) {
    const Worker& w = problem.workers[serveOrder[k]];
    const double denominator = w.computeTime + (1.0 + delta) * w.linkTime;
    previous = k == 0 ? lifespan / denominator : previousCompute * previous / denominator;
    out.units[serveOrder[k]] = previous;
    previousCompute = w.computeTime;
  }
  sumWork(out);
  return out;
}

namespace {

// X_k = w_k / w_1 under FIFO (eq. (6)/(9) with R_j per worker).
std::vector<double> fifoRatios(const WorksharingProblem& problem, std::span<const int> serveOrder) {
  std::vector<double> x(serveOrder.size(), 1.0);
  const double delta = problem.resultRatio;
  for (size_t k = 1; k < serveOrder.size(); ++k) {
    const Worker& before = problem.workers[serveOrder[k - 1]];
    const Worker& now = problem.workers[serveOrder[k]];
    x[k] = x[k - 1] * (before.computeTime + delta * before.linkTime) / (now.computeTime + now.linkTime);
  }
  return x;
}

}  // namespace

Allocation fifoAllocation(const WorksharingProblem& problem, std::span<const int> serveOrder,
                          double lifespan) {
  Allocation out = emptyAllocation(problem, fifoProtocol(serveOrder), lifespan);
  if (serveOrder.empty()) return out;
  const std::vector<double> x = fifoRatios(problem, serveOrder);
  const double delta = problem.resultRatio;
  const Worker& first = problem.workers[serveOrder[0]];
  // Eq. (7): the first equation of (5) with w_k = X_k w_1.
  double d = first.computeTime + (1.0 + delta) * first.linkTime;
  for (size_t k = 1; k < serveOrder.size(); ++k)
    d += delta * problem.workers[serveOrder[k]].linkTime * x[k];
  const double w1 = lifespan / d;
  for (size_t k = 0; k < serveOrder.size(); ++k) out.units[serveOrder[k]] = w1 * x[k];
  sumWork(out);
  return out;
}

std::vector<double> fifoPrefixWork(const WorksharingProblem& problem, std::span<const int> serveOrder) {
  std::vector<double> work;
  if (serveOrder.empty()) return work;
  const std::vector<double> x = fifoRatios(problem, serveOrder);
  const double delta = problem.resultRatio;
  const Worker& first = problem.workers[serveOrder[0]];
  double n = 0.0, d = first.computeTime + (1.0 + delta) * first.linkTime;
  for (size_t m = 0; m < serveOrder.size(); ++m) {
    n += x[m];                                                                  // N_m
    if (m > 0) d += delta * problem.workers[serveOrder[m]].linkTime * x[m];    // D_m
    work.push_back(n / d);
  }
  return work;
}

int fifoSelectedPrefix(const WorksharingProblem& problem, std::span<const int> serveOrder) {
  const std::vector<double> work = fifoPrefixWork(problem, serveOrder);
  int best = 0;
  for (int m = 1; m < static_cast<int>(work.size()); ++m)
    if (work[m] > work[best]) best = m;
  return work.empty() ? 0 : best + 1;
}

Allocation scaledTo(const Allocation& allocation, double lifespan) {
  Allocation out = allocation;
  const double f = allocation.lifespan > 0 ? lifespan / allocation.lifespan : 0.0;
  for (double& u : out.units) u *= f;
  out.work *= f;
  out.lifespan = lifespan;
  return out;
}

double lifespanFor(const Allocation& allocation, double work) {
  return allocation.work > 0 ? allocation.lifespan * work / allocation.work : 0.0;
}

double smallestShare(const Allocation& allocation) {
  double least = 0.0;
  bool first = true;
  for (int w : allocation.protocol.serveOrder) {
    least = first ? allocation.units[w] : std::min(least, allocation.units[w]);
    first = false;
  }
  return least;
}

}  // namespace hnow::planner
