#pragma once
// Summaries of per-cluster measurements and a stopwatch. The machine is
// shared and noisy, so the tables lead with medians; means are kept where
// the seeds report means, so the two can be compared.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <vector>

namespace hnow::bench {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double upper = v[mid];
  return (*std::max_element(v.begin(), v.begin() + mid) + upper) / 2;
}

inline double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}

inline double maximum(const std::vector<double>& v) {
  return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
}

// Runs f() once and stores its wall-clock duration. steady_clock: bench/ may
// read clocks (planner/ never does), and it does not jump with NTP.
template <class F>
auto timed(F&& f, double& seconds) {
  const auto start = std::chrono::steady_clock::now();
  auto result = f();
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace hnow::bench
