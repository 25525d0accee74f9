#include "planner/pipelined/concurrent_pipelines.h"

#include <algorithm>
#include <limits>

namespace hnow::planner {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The subtree of one item under one of its source's children: it moves as one.
struct Branch {
  int item = 0;
  std::vector<int> nodes;  // each with its edge parent -> node
  double remaining = 0.0;  // bytes after the first chunk
  double end = 0.0;        // when the rest has moved
  bool moving = true;
};

// The edges still moving at each node and through each trunk.
struct Degrees {
  std::vector<int> out, in;
  TrunkLoad trunks;
};

Degrees degreesOf(const std::vector<Branch>& branches, std::span<const PipelinedItem> items, int n,
                  const SiteLinks& sites) {
  Degrees d{std::vector<int>(n, 0), std::vector<int>(n, 0), TrunkLoad(sites)};
  for (const Branch& b : branches) {
    if (!b.moving) continue;
    for (int v : b.nodes) {
      const int p = items[b.item].tree.parent[v];
      ++d.out[p];
      ++d.in[v];
      d.trunks.add(p, v);
    }
  }
  return d;
}

double edgeRate(std::span<const NodeRates> rates, const Degrees& d, int p, int c) {
  return std::max(0.0, std::min({rates[p].uplinkBytesPerSecond / d.out[p], rates[c].downlinkBytesPerSecond / d.in[c],
                                 d.trunks.shareOf(p, c)}));
}

double branchRate(const Branch& b, std::span<const PipelinedItem> items, std::span<const NodeRates> rates,
                  const Degrees& d) {
  double r = kInfinity;
  for (int v : b.nodes) r = std::min(r, edgeRate(rates, d, items[b.item].tree.parent[v], v));
  return r;
}

// The fluid phases: every moving branch at its rate until the next one
// ends; each branch's `end` is when its last byte left the source.
void runFluidPhases(std::vector<Branch>& branches, std::span<const PipelinedItem> items,
                    std::span<const NodeRates> rates, int n, const SiteLinks& sites) {
  double now = 0.0;
  for (Branch& b : branches)
    if (b.remaining <= 0.0) b.moving = false;
  for (;;) {
    const Degrees d = degreesOf(branches, items, n, sites);
    std::vector<double> rate(branches.size(), 0.0);
    double step = kInfinity;
    bool anyMoving = false;
    for (std::size_t i = 0; i < branches.size(); ++i) {
      if (!branches[i].moving) continue;
      anyMoving = true;
      rate[i] = branchRate(branches[i], items, rates, d);
      if (rate[i] > 0.0) step = std::min(step, branches[i].remaining / rate[i]);
    }
    if (!anyMoving) break;
    if (step == kInfinity) {  // only branches that cannot move are left
      for (Branch& b : branches)
        if (b.moving) b.end = kInfinity, b.moving = false;
      break;
    }
    now += step;
    for (std::size_t i = 0; i < branches.size(); ++i) {
      Branch& b = branches[i];
      if (!b.moving) continue;
      b.remaining -= rate[i] * step;
      // The branch that set the step ends exactly; others within rounding too.
      if (rate[i] > 0.0 && b.remaining <= 1e-9 * items[b.item].bytes) b.end = now, b.moving = false;
    }
  }
}

}  // namespace

Result<ConcurrentPrediction> predictConcurrentPipelines(std::span<const PipelinedItem> items,
                                                        std::span<const NodeRates> rates, double chunkBytes,
                                                        const SiteLinks& sites) {
  using Result = Result<ConcurrentPrediction>;
  const int n = static_cast<int>(rates.size());
  if (!(chunkBytes > 0.0)) return Result::failure("the chunk size must be positive");
  if (!sites.siteOf.empty() && static_cast<int>(sites.siteOf.size()) != n) return Result::failure("one site per node");
  for (const PipelinedItem& item : items) {
    if (item.tree.nodeCount() != n) return Result::failure("every tree spans one node per rate");
    if (!(item.bytes >= 0.0)) return Result::failure("an item's size is negative");
  }

  // Branches, and each node's first chunk at the starting rates.
  std::vector<Branch> branches;
  std::vector<std::vector<int>> branchOf(items.size(), std::vector<int>(n, -1));
  for (std::size_t k = 0; k < items.size(); ++k) {
    const BroadcastTree& tree = items[k].tree;
    for (int v : tree.topDown()) {
      if (v == tree.source) continue;
      const int p = tree.parent[v];
      if (p == tree.source) {
        branchOf[k][v] = static_cast<int>(branches.size());
        branches.push_back({static_cast<int>(k), {}, std::max(0.0, items[k].bytes - chunkBytes), 0.0, true});
      } else {
        branchOf[k][v] = branchOf[k][p];
      }
      branches[branchOf[k][v]].nodes.push_back(v);
    }
  }
  const Degrees start = degreesOf(branches, items, n, sites);
  ConcurrentPrediction out;
  out.finishSeconds.assign(items.size(), std::vector<double>(n, -1.0));
  std::vector<std::vector<double>> firstChunk(items.size(), std::vector<double>(n, 0.0));
  for (std::size_t k = 0; k < items.size(); ++k) {
    const BroadcastTree& tree = items[k].tree;
    const double chunk = std::min(chunkBytes, items[k].bytes);
    for (int v : tree.topDown()) {
      if (v == tree.source) continue;
      const int p = tree.parent[v];
      const double r = edgeRate(rates, start, p, v);
      const double wire = chunk > 0.0 ? chunk / r : 0.0;  // r = 0 -> inf
      firstChunk[k][v] = firstChunk[k][p] + start.out[p] * rates[p].sendOverheadSeconds +
                         rates[v].receiveOverheadSeconds + wire;
    }
  }

  runFluidPhases(branches, items, rates, n, sites);

  for (std::size_t k = 0; k < items.size(); ++k) {
    const BroadcastTree& tree = items[k].tree;
    out.finishSeconds[k][tree.source] = 0.0;
    for (int v = 0; v < n; ++v) {
      if (branchOf[k][v] < 0) continue;
      out.finishSeconds[k][v] = firstChunk[k][v] + branches[branchOf[k][v]].end;
      out.seconds = std::max(out.seconds, out.finishSeconds[k][v]);
    }
  }
  return out;
}

}  // namespace hnow::planner
