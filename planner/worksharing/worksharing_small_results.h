#pragma once
// Seed 002 §V-B: computations with very small results (delta << 1). Serve by
// increasing link time (optimal when delta = 0) and order the returns by
// Smith's rule on the first-order correction of the delta = 0 shares; this
// is the optimal return order to first order in delta.
#include <span>
#include <vector>

#include "planner/worksharing/worksharing.h"

namespace hnow::planner {

// The shares y_i for delta = 0 and L = 1 in `serveOrder` (all finish at 1):
// (R_i + tau_i) y_i = 1 - sum_{j before i} tau_j y_j.
std::vector<double> sharesWithoutResults(const WorksharingProblem& problem,
                                         std::span<const int> serveOrder);

// The protocol serving in `serveOrder` and returning in the order of §V-B:
// with u the solution of (D_R + T D)^t u = 1, sum z = sum_i u_i s_i where
// s_i sums tau_j y_j over the workers returning at or after i. Read
// backwards in time this is Smith's weighted completion time problem (jobs
// p_i = tau_i y_i, weights u_i), so the last to return has the smallest
// p_i/u_i: returns go by decreasing tau_i y_i / u_i.
Protocol smallResultsProtocol(const WorksharingProblem& problem, std::span<const int> serveOrder);

}  // namespace hnow::planner
