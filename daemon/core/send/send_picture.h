#pragma once
// A send's picture (api/send_picture.h) from what its trees kept
// (send_history.h): one SendOperation for a tree, one per stripe for a
// striped send.
#include <vector>

#include "api/send_picture.h"
#include "core/send/send_operation.h"

namespace hnow::daemon {

using api::SendPicture;

// `status` is the send's report now (its plan, times, whether it ended);
// `trees` its tree, or its stripes in order (more than one: striped).
SendPicture sendPicture(const SendStatus& status, const std::vector<const SendOperation*>& trees);

// Per child of a version's trees, the rate the plan's model gives each
// edge: one tree as the pipelined model shares uplinks
// (planner::edgeRates); stripes as the data plane shares them across
// stripes, min(uplink(p) / children(p), downlink(c) / stripes)
// (planner/pipelined/concurrent_pipelines.h). [stripe][child]; 0 unknown.
std::vector<std::vector<double>> plannedEdgeRates(const std::vector<std::vector<int>>& parents,
                                                  const std::vector<TreeNode>& nodes);

}  // namespace hnow::daemon
