// LCF and its seed 001 variants against their lower bounds over random
// two-level clusters, and how long planning takes. Run by hand:
//   ninja -C build two_level_bench && build/bench/two_level_bench
// Reports medians (and the worst ratio) per algorithm and configuration.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "planner/clusters/two_level_bounds.h"
#include "planner/clusters/two_level_check.h"
#include "planner/clusters/two_level_degree.h"
#include "planner/clusters/two_level_lcf.h"
#include "planner/clusters/two_level_postal.h"

using namespace hnow::planner;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// k clusters whose sizes follow a rough power law (a few big rooms, many
// small ones), N nodes in all.
TwoLevelInstance randomClusters(std::mt19937& rng, int N, int k, double C, bool multicast) {
  std::vector<double> weight;
  std::uniform_real_distribution<double> u(0.05, 1.0);
  for (int i = 0; i < k; ++i) weight.push_back(1.0 / u(rng));
  double total = 0;
  for (double w : weight) total += w;
  std::vector<int> sizes;
  int used = 0;
  for (int i = 0; i < k; ++i) {
    int left = N - used - (k - 1 - i);
    int n = i + 1 == k ? left : std::clamp(static_cast<int>(weight[i] / total * N), 1, left);
    sizes.push_back(n);
    used += n;
  }
  TwoLevelInstance in = broadcastInstance(sizes, 1.0, C);
  if (multicast)
    for (size_t i = 0; i < sizes.size(); ++i)
      in.needed[i] = std::uniform_int_distribution<int>(0, 1)(rng) ? sizes[i] / 2 : 0;
  in.needed[0] = std::max(in.needed[0], 1);
  if (multicast && k > 1) in.needed[1] = std::max(in.needed[1], 1);  // something to send
  return in;
}

struct Algorithm {
  std::string name;
  bool multicast;
  bool postal;
  GlobalLimits limits;  // degree filled per instance when `degreeEach` > 0
  int degreeEach;
  std::function<Schedule(const TwoLevelInstance&, const GlobalLimits&)> plan;
};

}  // namespace

int main() {
  const std::vector<Algorithm> algorithms{
      {"lcf", false, false, {}, 0, [](auto& in, auto&) { return largestClusterFirst(in); }},
      {"lcf-multicast", true, false, {}, 0, [](auto& in, auto&) { return lcfMulticast(in); }},
      {"bounded-degree d=2", false, false, {}, 2,
       [](auto& in, auto& l) { return boundedDegreeLcf(in, l.degree, false); }},
      {"bounded-size B=4", false, false, {.degree = {}, .maxGlobal = 4}, 0,
       [](auto& in, auto& l) { return boundedSizeLcf(in, l.maxGlobal); }},
      {"postal lcf", false, true, {}, 0, [](auto& in, auto&) { return largestClusterFirst(in); }},
      {"interleaved-lcf", false, true, {}, 0, [](auto& in, auto&) { return interleavedLcf(in); }},
  };
  const int kTrials = 25;
  std::printf("%-20s %6s %4s %5s  %12s %12s %14s\n", "algorithm", "N", "k", "C", "median ratio",
              "worst ratio", "median plan us");
  std::mt19937 rng(2024);
  for (const Algorithm& a : algorithms) {
    for (int N : {64, 1024, 8192}) {
      for (int k : {4, 32}) {
        for (double C : {2.0, 10.0}) {
          std::vector<double> ratios, micros;
          for (int trial = 0; trial < kTrials; ++trial) {
            TwoLevelInstance in = randomClusters(rng, N, k, C, a.multicast);
            if (a.postal) in.model = TwoLevelModel::kPostal;
            GlobalLimits limits = a.limits;
            if (a.degreeEach > 0)
              for (int n : in.sizes) limits.degree.push_back(std::min(n, a.degreeEach));
            const auto start = std::chrono::steady_clock::now();
            Schedule s = a.plan(in, limits);
            micros.push_back(
                std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
            hnow::Result<double> makespan = checkTwoLevel(in, limits, s);
            if (!makespan) {
              std::printf("INVALID %s: %s\n", a.name.c_str(), makespan.error().message.c_str());
              return 1;
            }
            ratios.push_back(*makespan / twoLevelLowerBound(in, limits, a.multicast).value());
          }
          std::printf("%-20s %6d %4d %5.0f  %12.3f %12.3f %14.0f\n", a.name.c_str(), N, k, C,
                      median(ratios), *std::max_element(ratios.begin(), ratios.end()), median(micros));
        }
      }
    }
  }
  return 0;
}
