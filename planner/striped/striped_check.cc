#include "planner/striped/striped_check.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "planner/pipelined/pipelined_check.h"

namespace hnow::planner {

Result<StripedReplay> replayStriped(const StripedPlan& plan, std::span<const NodeRates> rates,
                                    std::span<const int> destinations, double fileBytes,
                                    double chunkBytes, const SiteLinks& sites) {
  const int n = static_cast<int>(rates.size());
  const int stripes = plan.stripes();
  if (stripes < 1) return Error{"a striped plan has at least one stripe"};
  if (!(chunkBytes > 0.0) || !(fileBytes > 0.0)) return Error{"bad sizes"};
  const long long chunks = static_cast<long long>(std::ceil(fileBytes / chunkBytes));
  if (static_cast<int>(plan.firstChunk.size()) != stripes + 1 || plan.firstChunk.front() != 0 ||
      plan.firstChunk.back() != chunks)
    return Error{"the stripes do not cover the file's chunks"};
  for (int k = 0; k < stripes; ++k)
    if (plan.firstChunk[k + 1] <= plan.firstChunk[k]) return Error{"stripe " + std::to_string(k) + " is empty"};

  // Children across stripes, and parents, per node.
  std::vector<int> children(n, 0);
  std::vector<std::set<int>> parents(n);
  std::vector<int> inStripes(n, 0);
  // Edges across all stripes through each trunk (they move together).
  TrunkLoad trunks(sites);
  for (const BroadcastTree& tree : plan.trees)
    for (int v = 0; v < static_cast<int>(tree.parent.size()); ++v)
      if (tree.parent[v] >= 0) trunks.add(tree.parent[v], v);
  for (const BroadcastTree& tree : plan.trees) {
    if (tree.nodeCount() != n) return Error{"a stripe tree over a different number of nodes"};
    for (int v = 0; v < n; ++v) {
      children[v] += static_cast<int>(tree.children[v].size());
      if (tree.parent[v] >= 0) {
        parents[v].insert(tree.parent[v]);
        ++inStripes[v];
      }
    }
  }
  StripedReplay out;
  out.finish.assign(n, -1.0);
  for (int v = 0; v < n; ++v) {
    if (v == plan.trees.front().source) out.sourceChildren = children[v];
    else out.mostChildren = std::max(out.mostChildren, children[v]);
    out.mostParents = std::max(out.mostParents, static_cast<int>(parents[v].size()));
  }
  for (int k = 0; k < stripes; ++k) {
    const BroadcastTree& tree = plan.trees[k];
    // The stripe's view: a parent's uplink is its equal share per child
    // times its children here; a child's downlink its share per stripe.
    std::vector<NodeRates> shares(rates.begin(), rates.end());
    for (int v = 0; v < n; ++v) {
      if (children[v] > 0)
        shares[v].uplinkBytesPerSecond =
            rates[v].uplinkBytesPerSecond / children[v] * static_cast<double>(tree.children[v].size());
      if (inStripes[v] > 0) shares[v].downlinkBytesPerSecond = rates[v].downlinkBytesPerSecond / inStripes[v];
    }
    const double first = static_cast<double>(plan.firstChunk[k]) * chunkBytes;
    const double end = std::min(fileBytes, static_cast<double>(plan.firstChunk[k + 1]) * chunkBytes);
    // Its share of each trunk: the trunk split over every stripe's edges
    // through it, times this stripe's.
    SiteLinks view = sites;
    if (!sites.siteOf.empty()) {
      TrunkLoad mine(sites);
      for (int v = 0; v < n; ++v)
        if (tree.parent[v] >= 0) mine.add(tree.parent[v], v);
      for (std::size_t site = 0; site < view.trunks.size(); ++site) {
        const int s = static_cast<int>(site);
        Trunk& t = view.trunks[site];
        t.outBytesPerSecond = trunks.outOf(s) > 0 ? t.outBytesPerSecond / trunks.outOf(s) * mine.outOf(s) : 0.0;
        t.inBytesPerSecond = trunks.into(s) > 0 ? t.inBytesPerSecond / trunks.into(s) * mine.into(s) : 0.0;
      }
    }
    const Result<PipelinedReplay> replay =
        replayPipelined(tree, shares, destinations, end - first, chunkBytes, /*windowChunks=*/4, view);
    if (!replay) return Error{"stripe " + std::to_string(k) + ": " + replay.error().message};
    for (int v = 0; v < n; ++v)
      if (replay->finish[v] >= 0) out.finish[v] = std::max(out.finish[v], replay->finish[v]);
    out.makespan = std::max(out.makespan, replay->makespan);
  }
  return out;
}

}  // namespace hnow::planner
