// Seed 004 §7's experiments: scheduling time per algorithm (Table 1: all-to-all
// broadcast, 8..80 nodes) and completion time over the §3.2 lower bound
// (Figures 11–12: random multiple multicast on 64 nodes), on random clusters
// with overheads of 80–400 µs, per-byte costs of 1e-4–1e-2 µs/byte and links
// of 155 Mbit/s or 1 Gbit/s per pair. Medians over several configurations.
//   multicast_bench [configs=9]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "planner/multicast_bound.h"
#include "planner/multicast_check.h"
#include "planner/multicast_heuristics.h"

using namespace hnow::planner;

namespace {

struct Algo {
  const char* name;
  MulticastAlgorithm algorithm;
  bool preemptive;
};

const Algo kAlgos[] = {
    {"fef", MulticastAlgorithm::kFastestEdgeFirst, false},
    {"ecf", MulticastAlgorithm::kEarliestCompletionFirst, false},
    {"wr", MulticastAlgorithm::kWorkRacing, false},
    {"eaf", MulticastAlgorithm::kEarliestAvailableFirst, false},
    {"rr", MulticastAlgorithm::kRoundRobin, false},
    {"rrs", MulticastAlgorithm::kReceiverRandomSelection, false},
    {"ecfp", MulticastAlgorithm::kEarliestCompletionFirst, true},
    {"wrp", MulticastAlgorithm::kWorkRacing, true},
    {"eafp", MulticastAlgorithm::kEarliestAvailableFirst, true},
    {"rrp", MulticastAlgorithm::kRoundRobin, true},
    {"rrsp", MulticastAlgorithm::kReceiverRandomSelection, true},
};

MulticastInstance randomCluster(std::mt19937& rng, int n, bool slowNetwork) {
  std::uniform_real_distribution<double> overhead(80e-6, 400e-6), perByte(1e-10, 1e-8);
  std::uniform_int_distribution<int> coin(0, 1);
  MulticastInstance in;
  for (int v = 0; v < n; ++v) in.nodes.push_back({overhead(rng), perByte(rng), overhead(rng), perByte(rng)});
  // §7: each pair's link is 155 Mbit/s or 1 Gbit/s; "slow" biases towards 155.
  in.linkPerByte = uniformLinks(n, 0.0);
  for (double& x : in.linkPerByte) x = (slowNetwork || coin(rng)) ? 8.0 / 155e6 : 8.0 / 1e9;
  return in;
}

void allToAll(MulticastInstance& in, double bytes) {
  const int n = in.nodeCount();
  for (int s = 0; s < n; ++s) {
    MulticastMessage m{s, bytes, {}};
    for (int v = 0; v < n; ++v)
      if (v != s) m.destinations.push_back(v);
    in.messages.push_back(m);
  }
}

void randomMultiple(std::mt19937& rng, MulticastInstance& in, int sources, double bytes) {
  const int n = in.nodeCount();
  std::vector<int> order(n);
  for (int v = 0; v < n; ++v) order[v] = v;
  std::shuffle(order.begin(), order.end(), rng);
  std::uniform_int_distribution<int> coin(0, 1);
  for (int s = 0; s < sources; ++s) {
    MulticastMessage m{order[s], bytes, {}};
    for (int v = 0; v < n; ++v)
      if (v != m.source && coin(rng)) m.destinations.push_back(v);
    if (m.destinations.empty()) m.destinations.push_back((m.source + 1) % n);
    in.messages.push_back(m);
  }
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs.empty() ? 0.0 : xs[xs.size() / 2];
}

// Scheduling seconds and makespan / lower bound of one run, checked.
std::pair<double, double> run(const MulticastInstance& in, const Algo& algo, double bound) {
  auto start = std::chrono::steady_clock::now();
  auto plan = planMulticast(in, algo.algorithm, {algo.preemptive, 1});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!plan) std::fprintf(stderr, "%s: %s\n", algo.name, plan.error().message.c_str()), std::exit(1);
  ScheduleCheck check = checkMulticastPlan(in, *plan);
  if (!check.valid) std::fprintf(stderr, "%s invalid: %s\n", algo.name, check.reason.c_str()), std::exit(1);
  return {seconds, check.makespan / bound};
}

void printHeader(const char* first) {
  std::printf("%-22s", first);
  for (const Algo& a : kAlgos) std::printf(" %8s", a.name);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  const int configs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 9;
  std::mt19937 rng(2001);

  std::printf("Scheduling time, all-to-all broadcast, 1 KB, median of %d clusters (µs; seed Table 1)\n", configs);
  printHeader("nodes");
  for (int n = 8; n <= 80; n += 8) {
    std::vector<std::vector<double>> times(std::size(kAlgos));
    for (int c = 0; c < configs; ++c) {
      MulticastInstance in = randomCluster(rng, n, false);
      allToAll(in, 1024);
      const double bound = multicastLowerBound(in);
      for (size_t a = 0; a < std::size(kAlgos); ++a) times[a].push_back(run(in, kAlgos[a], bound).first);
    }
    std::printf("%-22d", n);
    for (auto& t : times) std::printf(" %8.0f", median(t) * 1e6);
    std::printf("\n");
  }

  for (bool slow : {false, true}) {
    std::printf("\nCompletion time / lower bound, 64 nodes, %s network, median of %d (seed Figures 11-12)\n",
                slow ? "slow (155 Mbit/s)" : "mixed (155 Mbit/s or 1 Gbit/s)", configs);
    printHeader("pattern");
    struct Pattern {
      const char* name;
      int sources;  // 0: all-to-all
      double bytes;
    };
    for (Pattern p : {Pattern{"all-to-all 1 KB", 0, 1024}, Pattern{"all-to-all 1 MB", 0, 1 << 20},
                      Pattern{"16 sources 1 KB", 16, 1024}, Pattern{"16 sources 1 MB", 16, 1 << 20},
                      Pattern{"48 sources 1 MB", 48, 1 << 20}}) {
      std::vector<std::vector<double>> ratios(std::size(kAlgos));
      for (int c = 0; c < configs; ++c) {
        MulticastInstance in = randomCluster(rng, 64, slow);
        if (p.sources == 0) allToAll(in, p.bytes);
        else randomMultiple(rng, in, p.sources, p.bytes);
        const double bound = multicastLowerBound(in);
        for (size_t a = 0; a < std::size(kAlgos); ++a) ratios[a].push_back(run(in, kAlgos[a], bound).second);
      }
      std::printf("%-22s", p.name);
      for (auto& r : ratios) std::printf(" %8.2f", median(r));
      std::printf("\n");
    }
  }
  return 0;
}
