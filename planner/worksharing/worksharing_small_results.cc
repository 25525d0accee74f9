#include "planner/worksharing/worksharing_small_results.h"

#include <algorithm>
#include <limits>

namespace hnow::planner {

std::vector<double> sharesWithoutResults(const WorksharingProblem& problem,
                                         std::span<const int> serveOrder) {
  std::vector<double> y(serveOrder.size());
  double served = 0.0;
  for (size_t i = 0; i < serveOrder.size(); ++i) {
    const Worker& w = problem.workers[serveOrder[i]];
    y[i] = (1.0 - served) / (w.computeTime + w.linkTime);
    served += w.linkTime * y[i];
  }
  return y;
}

Protocol smallResultsProtocol(const WorksharingProblem& problem, std::span<const int> serveOrder) {
  const size_t k = serveOrder.size();
  const std::vector<double> y = sharesWithoutResults(problem, serveOrder);
  // (D_R + T D)^t u = 1 is upper triangular: (R_j + tau_j) u_j + tau_j sum_{i>j} u_i = 1.
  std::vector<double> u(k);
  double later = 0.0;
  for (size_t j = k; j-- > 0;) {
    const Worker& w = problem.workers[serveOrder[j]];
    u[j] = (1.0 - w.linkTime * later) / (w.computeTime + w.linkTime);
    later += u[j];
  }
  // A job with weight u <= 0 would rather finish last backwards in time,
  // i.e. return first: give it an infinite key.
  std::vector<double> key(k);
  for (size_t i = 0; i < k; ++i) {
    const double p = problem.workers[serveOrder[i]].linkTime * y[i];
    key[i] = u[i] > 0 ? p / u[i] : std::numeric_limits<double>::infinity();
  }
  std::vector<size_t> positions(k);
  for (size_t i = 0; i < k; ++i) positions[i] = i;
  std::stable_sort(positions.begin(), positions.end(), [&](size_t a, size_t b) { return key[a] > key[b]; });
  Protocol out;
  out.serveOrder.assign(serveOrder.begin(), serveOrder.end());
  for (size_t p : positions) out.returnOrder.push_back(serveOrder[p]);
  return out;
}

}  // namespace hnow::planner
