#pragma once
// Exact searches are exponential in the worst case. A caller bounds them by
// search nodes (not seconds: planner/ reads no clock); when the bound is hit
// the best schedule found so far is returned with provenOptimal = false.
namespace hnow::planner {

struct SearchLimits {
  long long maxSearchNodes = 200'000'000;
};

}  // namespace hnow::planner
