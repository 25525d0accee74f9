// Seed 004 §7's experiments, with the seed's numbers
// alongside: scheduling time per algorithm (Table 1: all-to-all broadcast of
// 1 KB on 8..80 nodes; Table 2: random multiple multicast on 64 nodes) and
// completion time over the §3.2 lower bound (Figures 7–8: all-to-all;
// Figures 11–12: multiple multicast, fast and slow networks). Random
// clusters: overheads 80–400 µs, per-byte costs 1e-4–1e-2 µs/byte, links of
// 155 Mbit/s or 1 Gbit/s. Times are the planning thread's CPU time (the
// machine is shared: wall time also counts other people's work), medians
// over runs of one instance, then medians over instances; wall time is shown
// for 80 nodes. Every plan is validated. Prints markdown (the body of
// docs/bench-multicast.md):
//   multicast_bench [--configs N=5] [--runs R=5] [--out FILE]
// or, to profile one heuristic (under callgrind, say) on one all-to-all:
//   multicast_bench --only ECF [--nodes 80] [--runs R]
// prints the median CPU time of R plans.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "planner/multicast/multicast_bound.h"
#include "planner/multicast/multicast_check.h"
#include "planner/multicast/multicast_heuristics.h"
#include "planner/multicast/multicast_reference.h"

using namespace hnow::planner;

namespace {

struct Algo {
  const char* name;
  MulticastAlgorithm algorithm;
  bool preemptive;
};

const Algo kAlgos[] = {
    {"FEF", MulticastAlgorithm::kFastestEdgeFirst, false},
    {"ECF", MulticastAlgorithm::kEarliestCompletionFirst, false},
    {"WR", MulticastAlgorithm::kWorkRacing, false},
    {"EAF", MulticastAlgorithm::kEarliestAvailableFirst, false},
    {"RR", MulticastAlgorithm::kRoundRobin, false},
    {"RRS", MulticastAlgorithm::kReceiverRandomSelection, false},
    {"ECFP", MulticastAlgorithm::kEarliestCompletionFirst, true},
    {"WRP", MulticastAlgorithm::kWorkRacing, true},
    {"EAFP", MulticastAlgorithm::kEarliestAvailableFirst, true},
    {"RRP", MulticastAlgorithm::kRoundRobin, true},
    {"RRSP", MulticastAlgorithm::kReceiverRandomSelection, true},
};
constexpr int kAlgoCount = static_cast<int>(std::size(kAlgos));

// Seed 004 Table 1 (µs), rows 8, 16, ..., 80 nodes, columns as kAlgos.
const double kSeedTable1[10][kAlgoCount] = {
    {0.4, 0.6, 0.2, 0.2, 0.15, 0.22, 2, 0.3, 0.28, 0.26, 0.29},
    {5, 17, 1, 1, 1, 1, 47, 2, 2, 2, 3},
    {32, 121, 5, 3, 4, 5, 423, 14, 11, 10, 13},
    {127, 504, 17, 9, 9, 15, 2072, 44, 29, 28, 42},
    {304, 1514, 39, 17, 22, 32, 7634, 117, 72, 68, 103},
    {602, 3714, 58, 35, 38, 66, 19585, 158, 139, 130, 242},
    {810, 8168, 85, 59, 67, 89, 46323, 315, 250, 233, 356},
    {1033, 15871, 136, 97, 104, 150, 88053, 633, 426, 451, 716},
    {1494, 29026, 189, 143, 160, 240, 140020, 786, 672, 619, 827},
    {2568, 45597, 296, 210, 243, 364, 232947, 1345, 1043, 1031, 1575},
};
// Seed 004 Table 2 (µs): 64 nodes, multiple multicast, by number of sources.
const int kTable2Sources[] = {4, 8, 16, 24, 32, 48, 56, 64};
const double kSeedTable2[8][kAlgoCount] = {
    {1.35, 2.13, 0.3, 0.27, 0.14, 0.26, 4.25, 0.41, 0.4, 0.27, 0.41},
    {23.7, 50.58, 2.15, 2.01, 1.29, 2.15, 124.6, 3.97, 3.72, 3.23, 3.83},
    {44.6, 86.2, 3.25, 3.11, 1.98, 3.18, 226, 6.34, 6.4, 5.2, 6.1},
    {136, 429, 10.7, 8.8, 7.3, 10.9, 1344, 24.8, 21.9, 20.1, 23.8},
    {368, 836, 16.7, 12.5, 11.1, 17.7, 2823, 39.5, 30.7, 31.8, 42.8},
    {639, 1611, 27.9, 20.2, 19.8, 32.1, 6427, 76.9, 55.5, 63.8, 72.3},
    {973, 1956, 32.1, 23, 22.1, 39.3, 8136, 87.4, 67.7, 73.3, 98.7},
    {1558, 3000, 47.2, 31.1, 29.1, 56.4, 12548, 134.9, 102.5, 112, 157},
};

enum class Network { kMixed, kFast, kSlow };  // per pair 155 Mbit/s or 1 Gbit/s; all 1 Gbit/s; all 155
enum class Sizes { kSmall, kLarge, kHybrid };  // 1 KB; 1 MB or 1.5 MB; either

MulticastInstance randomCluster(std::mt19937& rng, int n, Network network) {
  std::uniform_real_distribution<double> overhead(80e-6, 400e-6), perByte(1e-10, 1e-8);
  std::uniform_int_distribution<int> coin(0, 1);
  MulticastInstance in;
  for (int v = 0; v < n; ++v) in.nodes.push_back({overhead(rng), perByte(rng), overhead(rng), perByte(rng)});
  const double slow = 8.0 / 155e6, fast = 8.0 / 1e9;
  in.linkPerByte = uniformLinks(n, network == Network::kSlow ? slow : fast);
  if (network == Network::kMixed)
    for (double& x : in.linkPerByte) x = coin(rng) ? slow : fast;
  return in;
}

double messageBytes(std::mt19937& rng, Sizes sizes) {
  std::uniform_int_distribution<int> coin(0, 1);
  const bool large = sizes == Sizes::kLarge || (sizes == Sizes::kHybrid && coin(rng));
  return !large ? 1024.0 : coin(rng) ? 1048576.0 : 1572864.0;
}

void allToAll(std::mt19937& rng, MulticastInstance& in, Sizes sizes) {
  const int n = in.nodeCount();
  for (int s = 0; s < n; ++s) {
    MulticastMessage m{s, messageBytes(rng, sizes), {}};
    for (int v = 0; v < n; ++v)
      if (v != s) m.destinations.push_back(v);
    in.messages.push_back(m);
  }
}

// §7.3: given sources, destinations chosen at random (each node with
// probability 1/2).
void randomMultiple(std::mt19937& rng, MulticastInstance& in, int sources, Sizes sizes) {
  const int n = in.nodeCount();
  std::vector<int> order(n);
  for (int v = 0; v < n; ++v) order[v] = v;
  std::shuffle(order.begin(), order.end(), rng);
  std::uniform_int_distribution<int> coin(0, 1);
  for (int s = 0; s < sources; ++s) {
    MulticastMessage m{order[s], messageBytes(rng, sizes), {}};
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

using Planner = hnow::Result<MulticastPlan> (*)(const MulticastInstance&, MulticastAlgorithm, const MulticastOptions&);

double threadSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

struct Measured {
  double cpu, wall;  // median seconds over the runs
  double ratio;      // makespan / lower bound
};

// Plans `runs` times; validates the first plan.
Measured run(const MulticastInstance& in, const Algo& algo, int runs, Planner planner = planMulticast) {
  std::vector<double> cpu, wall;
  double ratio = 0.0;
  for (int r = 0; r < runs; ++r) {
    const double cpuStart = threadSeconds();
    const auto start = std::chrono::steady_clock::now();
    auto plan = planner(in, algo.algorithm, {algo.preemptive, 1});
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    cpu.push_back(threadSeconds() - cpuStart);
    if (!plan) std::fprintf(stderr, "%s: %s\n", algo.name, plan.error().message.c_str()), std::exit(1);
    if (r > 0) continue;
    hnow::Result<double> makespan = checkMulticastPlan(in, *plan);
    if (!makespan)
      std::fprintf(stderr, "%s invalid: %s\n", algo.name, makespan.error().message.c_str()), std::exit(1);
    ratio = *makespan / multicastLowerBound(in);
  }
  return {median(cpu), median(wall), ratio};
}

std::string out;  // the markdown, printed and optionally written to a file

void line(const std::string& s) { out += s + "\n"; }
std::string fixed(double x, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, x);
  return buffer;
}
std::string microseconds(double x) { return fixed(x, x < 10 ? 2 : x < 100 ? 1 : 0); }

void header(const std::string& first, bool best = false) {
  std::string h = "| " + first + " |", rule = "|---|";
  for (const Algo& a : kAlgos) h += std::string(" ") + a.name + " |", rule += "---:|";
  if (best) h += " best |", rule += "---:|";
  line(h);
  line(rule);
}

std::string readFirstLine(const char* path, const char* prefix) {
  std::ifstream in(path);
  for (std::string s; std::getline(in, s);)
    if (s.rfind(prefix, 0) == 0) return s.substr(s.find(':') == std::string::npos ? 0 : s.find(':') + 2);
  return "unknown";
}

// --only: one algorithm on one all-to-all of 1 KB over mixed links.
int profileOne(const char* name, int nodes, int runs) {
  const Algo* algo = nullptr;
  for (const Algo& a : kAlgos)
    if (!std::strcmp(a.name, name)) algo = &a;
  if (!algo) return std::fprintf(stderr, "unknown algorithm %s\n", name), 2;
  std::mt19937 rng(2001);
  MulticastInstance in = randomCluster(rng, nodes, Network::kMixed);
  allToAll(rng, in, Sizes::kSmall);
  const Measured m = run(in, *algo, runs);
  std::printf("%s, %d nodes: median %.1f us CPU, %.1f us wall over %d runs; %.3f x lower bound\n", algo->name, nodes,
              m.cpu * 1e6, m.wall * 1e6, runs, m.ratio);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int configs = 5, runs = 5, nodes = 80;
  const char* outPath = nullptr;
  const char* only = nullptr;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--configs")) configs = std::max(1, std::atoi(argv[a + 1]));
    else if (!std::strcmp(argv[a], "--runs")) runs = std::max(1, std::atoi(argv[a + 1]));
    else if (!std::strcmp(argv[a], "--out")) outPath = argv[a + 1];
    else if (!std::strcmp(argv[a], "--only")) only = argv[a + 1];
    else if (!std::strcmp(argv[a], "--nodes")) nodes = std::max(2, std::atoi(argv[a + 1]));
  }
  if (only) return profileOne(only, nodes, runs);
  std::mt19937 rng(2001);
  const auto benchStart = std::chrono::steady_clock::now();
  line("Machine: " + readFirstLine("/proc/cpuinfo", "model name") + ", " +
       std::to_string(std::thread::hardware_concurrency()) + " hardware threads; load average at start " +
       readFirstLine("/proc/loadavg", "") + ". " + std::to_string(configs) + " random clusters per row, " +
       std::to_string(runs) + " runs each.");
  line("");

  // Table 1.
  line("### Scheduling time, all-to-all broadcast of 1 KB (µs; seed Table 1)");
  line("");
  line("CPU time of the planning thread, median over clusters of the median over runs. Links per pair");
  line("155 Mbit/s or 1 Gbit/s. The last row is wall-clock time at 80 nodes, for comparison.");
  line("");
  header("nodes");
  std::vector<std::vector<double>> table1;
  std::string wallRow = "| 80, wall |";
  for (int n = 8; n <= 80; n += 8) {
    std::vector<std::vector<double>> times(kAlgoCount), walls(kAlgoCount);
    for (int c = 0; c < configs; ++c) {
      MulticastInstance in = randomCluster(rng, n, Network::kMixed);
      allToAll(rng, in, Sizes::kSmall);
      for (int a = 0; a < kAlgoCount; ++a) {
        const Measured m = run(in, kAlgos[a], runs);
        times[a].push_back(m.cpu);
        walls[a].push_back(m.wall);
      }
    }
    std::string row = "| " + std::to_string(n) + " |";
    table1.emplace_back();
    for (auto& t : times) table1.back().push_back(median(t) * 1e6), row += " " + microseconds(median(t) * 1e6) + " |";
    line(row);
    if (n == 80)
      for (auto& w : walls) wallRow += " " + microseconds(median(w) * 1e6) + " |";
  }
  line(wallRow);
  line("");
  line("Seed 004 Table 1 (µs, 2001 hardware):");
  line("");
  header("nodes");
  for (int r = 0; r < 10; ++r) {
    std::string row = "| " + std::to_string(8 * (r + 1)) + " |";
    for (double x : kSeedTable1[r]) row += " " + microseconds(x) + " |";
    line(row);
  }
  line("");

  // The straightforward implementation on the same kind of instance.
  line("### Before and after: the reference implementation (multicast_reference.cc), all-to-all 1 KB (µs CPU)");
  line("");
  header("nodes, version");
  for (int n : {32, 80}) {
    MulticastInstance in = randomCluster(rng, n, Network::kMixed);
    allToAll(rng, in, Sizes::kSmall);
    const int referenceRuns = n <= 32 ? runs : 1;
    std::string fast = "| " + std::to_string(n) + ", fast |", slow = "| " + std::to_string(n) + ", reference |";
    for (const Algo& a : kAlgos) {
      fast += " " + microseconds(run(in, a, runs).cpu * 1e6) + " |";
      slow += " " + microseconds(run(in, a, referenceRuns, planMulticastReference).cpu * 1e6) + " |";
    }
    line(fast);
    line(slow);
  }
  line("");
  line("(One cluster per row; the reference at 80 nodes is timed once.)");
  line("");

  // Table 2.
  line("### Scheduling time, 64 nodes, random multiple multicast of 1 KB (µs CPU; seed Table 2)");
  line("");
  header("sources");
  for (int row = 0; row < 8; ++row) {
    std::vector<std::vector<double>> times(kAlgoCount);
    for (int c = 0; c < configs; ++c) {
      MulticastInstance in = randomCluster(rng, 64, Network::kMixed);
      randomMultiple(rng, in, kTable2Sources[row], Sizes::kSmall);
      for (int a = 0; a < kAlgoCount; ++a) times[a].push_back(run(in, kAlgos[a], runs).cpu);
    }
    std::string ours = "| " + std::to_string(kTable2Sources[row]) + " |";
    std::string seed = "| " + std::to_string(kTable2Sources[row]) + " (seed) |";
    for (int a = 0; a < kAlgoCount; ++a)
      ours += " " + microseconds(median(times[a]) * 1e6) + " |", seed += " " + microseconds(kSeedTable2[row][a]) + " |";
    line(ours);
    line(seed);
  }
  line("");

  // Completion time over the lower bound.
  double worstBest = 0.0;
  std::string worstRow;
  auto ratioRow = [&](const std::string& name, auto build) {
    std::vector<std::vector<double>> ratios(kAlgoCount);
    std::vector<double> bests;
    for (int c = 0; c < configs; ++c) {
      MulticastInstance in = build();
      double best = 1e300;
      for (int a = 0; a < kAlgoCount; ++a) {
        const double ratio = run(in, kAlgos[a], 1).ratio;
        ratios[a].push_back(ratio);
        best = std::min(best, ratio);
      }
      bests.push_back(best);
    }
    std::string row = "| " + name + " |";
    for (auto& r : ratios) row += " " + fixed(median(r), 2) + " |";
    row += " " + fixed(median(bests), 2) + " |";
    line(row);
    if (median(bests) > worstBest) worstBest = median(bests), worstRow = name;
  };
  line("### Completion time / lower bound, all-to-all broadcast, 64 nodes (seed Figures 7–8)");
  line("");
  header("network, size", true);
  for (Network net : {Network::kFast, Network::kSlow})
    for (Sizes sizes : {Sizes::kSmall, Sizes::kLarge})
      ratioRow(std::string(net == Network::kFast ? "1 Gbit/s" : "155 Mbit/s") + ", " +
                   (sizes == Sizes::kSmall ? "1 KB" : "1–1.5 MB"),
               [&] {
                 MulticastInstance in = randomCluster(rng, 64, net);
                 allToAll(rng, in, sizes);
                 return in;
               });
  line("");
  line("### Completion time / lower bound, random multiple multicast, 64 nodes (seed Figures 11–12)");
  line("");
  line("Median over clusters; `best` is the median of each cluster's best algorithm.");
  line("");
  header("network, sizes, sources", true);
  for (Network net : {Network::kFast, Network::kSlow})
    for (Sizes sizes : {Sizes::kSmall, Sizes::kLarge, Sizes::kHybrid})
      for (int sources : {4, 16, 32, 64})
        ratioRow(std::string(net == Network::kFast ? "1 Gbit/s" : "155 Mbit/s") + ", " +
                     (sizes == Sizes::kSmall ? "1 KB" : sizes == Sizes::kLarge ? "1–1.5 MB" : "hybrid") + ", " +
                     std::to_string(sources),
                 [&] {
                   MulticastInstance in = randomCluster(rng, 64, net);
                   randomMultiple(rng, in, sources, sizes);
                   return in;
                 });
  line("");

  // The targets.
  double slowestPlain = 0.0;
  for (int a = 0; a < kAlgoCount; ++a)
    if (!kAlgos[a].preemptive && a != 1) slowestPlain = std::max(slowestPlain, table1.back()[a]);
  line("### Targets");
  line("");
  line("- ECF, 80-node all-to-all: " + microseconds(table1.back()[1]) + " µs CPU (target < 5000; seed 45597).");
  line("- Slowest other non-preemptive heuristic at 80 nodes: " + microseconds(slowestPlain) +
       " µs CPU (target < 1000).");
  line("- Worst 64-node row for the best heuristic: " + fixed(worstBest, 2) + "× the lower bound (" + worstRow +
       "; target <= 2.0).");
  line("");
  line("Load average at the end " + readFirstLine("/proc/loadavg", "") + "; the bench took " +
       fixed(std::chrono::duration<double>(std::chrono::steady_clock::now() - benchStart).count(), 0) + " s.");

  std::fputs(out.c_str(), stdout);
  if (outPath) std::ofstream(outPath) << out;
  return 0;
}
