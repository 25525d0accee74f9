#include "planner/pipelined/pipelined_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace hnow::planner {

Result<PipelinedReplay> replayPipelined(const BroadcastTree& tree, std::span<const NodeRates> rates,
                                        std::span<const int> destinations, double fileBytes,
                                        double chunkBytes, int windowChunks, const SiteLinks& sites) {
  const int n = tree.nodeCount();
  if (static_cast<int>(rates.size()) != n) return Error{"one rate per node"};
  if (auto checked = checkTree(tree, tree.source, destinations); !checked) return Error{checked.error().message};
  if (!(chunkBytes > 0.0) || !(fileBytes >= 0.0) || windowChunks < 1) return Error{"bad sizes"};

  // Each edge's share of its parent's uplink, checked against both ends.
  std::vector<double> share(n, 0.0), latency(n, 0.0);
  PipelinedReplay out;
  out.slowestEdgeShare = std::numeric_limits<double>::infinity();
  // A trunk is split equally among the edges that cross it, all at once.
  TrunkLoad trunks(sites);
  for (int v = 0; v < n; ++v)
    if (tree.parent[v] >= 0) trunks.add(tree.parent[v], v);
  int siteCount = static_cast<int>(sites.trunks.size());
  for (int site : sites.siteOf) siteCount = std::max(siteCount, site + 1);
  std::vector<double> trunkOut(siteCount, 0.0), trunkIn(siteCount, 0.0);  // per site, what the edges take
  for (int p = 0; p < n; ++p) {
    double used = 0.0;
    for (int c : tree.children[p]) {
      double r = std::min(rates[p].uplinkBytesPerSecond / static_cast<double>(tree.children[p].size()),
                          rates[c].downlinkBytesPerSecond);
      latency[c] = static_cast<double>(tree.children[p].size()) * rates[p].sendOverheadSeconds +
                   rates[c].receiveOverheadSeconds;
      if (sites.crossesSites(p, c)) {
        latency[c] += sites.crossSiteLatencySeconds;
        if (sites.crossSiteBytesPerSecond > 0.0) r = std::min(r, sites.crossSiteBytesPerSecond);
        r = std::min(r, trunks.shareOf(p, c));
        trunkOut[sites.siteOf[p]] += r;
        trunkIn[sites.siteOf[c]] += r;
      }
      if (!(r > 0.0))
        return Error{"edge " + std::to_string(p) + " -> " + std::to_string(c) + " has no bandwidth"};
      if (r > rates[c].downlinkBytesPerSecond * (1 + 1e-12))
        return Error{"edge into " + std::to_string(c) + " exceeds its downlink"};
      share[c] = r;
      used += r;
      out.slowestEdgeShare = std::min(out.slowestEdgeShare, r);
    }
    if (used > rates[p].uplinkBytesPerSecond * (1 + 1e-9))
      return Error{"children of " + std::to_string(p) + " exceed its uplink"};
  }
  for (int site = 0; site < siteCount; ++site) {
    const Trunk trunk = sites.trunkOf(site);
    if (trunk.outBytesPerSecond > 0.0 && trunkOut[site] > trunk.outBytesPerSecond * (1 + 1e-9))
      return Error{"edges out of site " + std::to_string(site) + " exceed its trunk"};
    if (trunk.inBytesPerSecond > 0.0 && trunkIn[site] > trunk.inBytesPerSecond * (1 + 1e-9))
      return Error{"edges into site " + std::to_string(site) + " exceed its trunk"};
  }
  if (out.slowestEdgeShare == std::numeric_limits<double>::infinity()) out.slowestEdgeShare = 0.0;

  // A zero-byte file is one empty chunk: only the latencies remain.
  const long long chunks = fileBytes > 0.0 ? static_cast<long long>(std::ceil(fileBytes / chunkBytes)) : 1;
  const std::vector<int> order = tree.topDown();
  std::vector<double> holds(n, 0.0);     // when the node holds the current chunk
  std::vector<double> edgeFree(n, 0.0);  // when the edge into the node is free
  // sentAll[v][j % (window + 1)]: when v has passed chunk j to all its children.
  std::vector<std::vector<double>> sentAll(n, std::vector<double>(windowChunks + 1, 0.0));
  for (long long j = 0; j < chunks; ++j) {
    const double bytes = std::min(chunkBytes, fileBytes - static_cast<double>(j) * chunkBytes);
    const int slot = static_cast<int>(j % (windowChunks + 1));
    for (int v : order) sentAll[v][slot] = 0.0;
    for (int v : order) {
      if (v == tree.source) continue;
      const int p = tree.parent[v];
      double start = std::max(holds[p], edgeFree[v]);
      // Backpressure: a relay takes chunk j once chunk j - window has left it.
      if (!tree.children[v].empty() && j >= windowChunks)
        start = std::max(start, sentAll[v][static_cast<int>((j - windowChunks) % (windowChunks + 1))]);
      const double end = start + (bytes > 0.0 ? bytes / share[v] : 0.0);
      edgeFree[v] = end;
      holds[v] = end + latency[v];
      sentAll[p][slot] = std::max(sentAll[p][slot], end);
    }
  }
  out.finish.assign(n, -1.0);
  out.finish[tree.source] = 0.0;
  for (int v : order)
    if (v != tree.source) {
      out.finish[v] = holds[v];
      out.makespan = std::max(out.makespan, holds[v]);
    }
  return out;
}

}  // namespace hnow::planner
