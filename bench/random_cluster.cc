#include "bench/random_cluster.h"

#include <algorithm>

namespace hnow::bench {

std::mt19937_64 rowGenerator(std::uint64_t seed, int n, int classes) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(classes)};
  return std::mt19937_64(seq);
}

std::vector<double> drawClassTimes(std::mt19937_64& rng, int classes) {
  std::vector<int> pool(kMaxClassTime);
  for (int i = 0; i < kMaxClassTime; ++i) pool[i] = i + 1;
  // Partial Fisher-Yates: the first `classes` entries become a uniform
  // sample without replacement.
  std::vector<double> out;
  for (int i = 0; i < classes; ++i) {
    std::uniform_int_distribution<int> pick(i, kMaxClassTime - 1);
    std::swap(pool[i], pool[pick(rng)]);
    out.push_back(pool[i]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<double> drawBroadcastCluster(std::mt19937_64& rng, int n, int classes,
                                         bool sourceAlone) {
  const std::vector<double> times = drawClassTimes(rng, classes);
  std::uniform_int_distribution<int> pick(sourceAlone ? 1 : 0, classes - 1);
  std::vector<double> out(n);
  out[0] = times[0];
  for (int v = 1; v < n; ++v) out[v] = times[pick(rng)];
  return out;
}

ReductionCluster drawReductionCluster(std::mt19937_64& rng, int n, int classes) {
  const std::vector<double> times = drawClassTimes(rng, classes);
  std::uniform_int_distribution<int> pick(0, classes - 1);
  ReductionCluster out;
  out.sendTime.resize(n);
  for (int v = 0; v < n; ++v) out.sendTime[v] = times[pick(rng)];
  out.sink = static_cast<int>(std::max_element(out.sendTime.begin(), out.sendTime.end()) -
                              out.sendTime.begin());
  return out;
}

}  // namespace hnow::bench
