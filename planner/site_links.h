#pragma once
// Where nodes sit and what a cross-site link allows (seed 001 §2: a transfer
// inside a cluster costs the local time, across clusters C). Agents carry a
// site label; hnow measures no cross-site rate yet, so both limits default to
// "none" and a cross-site edge is then as fast as its endpoints allow.
#include <span>
#include <string>
#include <vector>

namespace hnow::planner {

struct SiteLinks {
  std::vector<int> siteOf;                // per node; empty = every node in one site
  double crossSiteBytesPerSecond = 0.0;   // cap on one cross-site edge; 0 = no cap
  double crossSiteLatencySeconds = 0.0;   // added once per cross-site hop

  bool crossesSites(int from, int to) const {
    return !siteOf.empty() && siteOf[from] != siteOf[to];
  }
};

// Site indices from labels: equal labels get equal indices, numbered in order
// of first appearance.
std::vector<int> siteIndices(std::span<const std::string> labels);

}  // namespace hnow::planner
