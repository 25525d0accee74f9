// What planning a manifest costs hnowd before its first byte moves: the
// joint plan (daemon/core/manifest/manifest_plan.h, every seed 004 heuristic with and
// without preemption, each candidate predicted pipelined) for N nodes of a
// three-class lab, with N items (all-to-all, the worst case) and with 8.
// Prints the median wall time of R plans per case.
//   manifest_plan_bench [--nodes 80] [--runs 7]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/manifest/manifest_plan.h"

using hnow::daemon::ManifestItemNodes;
using hnow::daemon::TreeNode;

namespace {

std::vector<TreeNode> lab(int n) {
  const double mbps[] = {400, 100, 50};
  std::vector<TreeNode> nodes;
  for (int i = 0; i < n; ++i) {
    TreeNode node{"node-" + std::to_string(i), "", {}};
    const double rate = mbps[i % 3] * 1e6 / 8;
    node.rates.uplinkBytesPerSecond = rate;
    node.rates.downlinkBytesPerSecond = 400e6 / 8;
    nodes.push_back(node);
  }
  return nodes;
}

std::vector<ManifestItemNodes> items(int n, int count) {
  std::vector<ManifestItemNodes> out;
  for (int k = 0; k < count; ++k) {
    ManifestItemNodes item;
    item.source = k * n / count;
    item.size = 64ull << 20;
    for (int d = 0; d < n; ++d)
      if (d != item.source) item.destinations.push_back(d);
    out.push_back(item);
  }
  return out;
}

double medianMs(const std::vector<TreeNode>& nodes, const std::vector<ManifestItemNodes>& its, int runs,
                std::string& algo) {
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    auto plan = hnow::daemon::planManifest("auto", nodes, its, 1 << 20);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!plan) {
      std::fprintf(stderr, "manifest_plan_bench: %s\n", plan.error().message.c_str());
      std::exit(1);
    }
    algo = plan->algo;
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int n = 80, runs = 7;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--nodes")) n = std::max(2, std::atoi(argv[a + 1]));
    else if (!std::strcmp(argv[a], "--runs")) runs = std::max(1, std::atoi(argv[a + 1]));
  }
  const auto nodes = lab(n);
  for (int count : {n, 8}) {
    std::string algo;
    const double ms = medianMs(nodes, items(n, count), runs, algo);
    std::printf("manifest of %d items over %d nodes: median %.1f ms over %d plans (chosen: %s)\n", count, n, ms,
                runs, algo.c_str());
  }
}
