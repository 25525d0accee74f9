#pragma once
// An independent check of a striped plan, chunk by chunk (every plan is
// replayed by a simulator: docs/architecture.md "Testing"). Each stripe is
// replayed by replayPipelined with the shares the data plane gives it: a
// node's uplink split equally among all its children across stripes, a
// destination's downlink among its S parents. The stripes then move side by
// side, each at its own shares; the plan takes as long as its slowest stripe.
// A room's trunk is split equally among every stripe's edges through it.
#include <span>
#include <vector>

#include "base/result.h"
#include "planner/node_rates.h"
#include "planner/site_links.h"
#include "planner/striped/striped_plan.h"

namespace hnow::planner {

struct StripedReplay {
  double makespan = 0.0;       // when the last destination holds every stripe
  std::vector<double> finish;  // per node; 0 for the source, -1 out of the plan
  int mostChildren = 0;        // the most children any agent feeds, across stripes
  int sourceChildren = 0;      // the children the source feeds, across stripes
  int mostParents = 0;         // the most distinct parents any node pulls from
};

// Rejects a plan whose stripes do not cover the file's chunks in order, a
// stripe tree that misses a destination, or shares that exceed a link, with
// an Error saying which.
Result<StripedReplay> replayStriped(const StripedPlan& plan, std::span<const NodeRates> rates,
                                    std::span<const int> destinations, double fileBytes,
                                    double chunkBytes, const SiteLinks& sites = {});

}  // namespace hnow::planner
