#pragma once
// An agent that holds a send's file at --dest already still has an uplink
// to give: it can serve the file to the agents that lack it, in hnowd's
// place. That pays where hnowd's uplink is the slow end (hnowd on an office
// line, the lab's PCs on a fast switch): a machine that was off and missed
// a file gets it at a lab PC's uplink, not hnowd's. One source serves: the
// planner's trees have one root, and the data plane serves stripes only
// from hnowd.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/send/send_tree.h"

namespace hnow::daemon {

// A holder must predict at least this much less than hnowd: it hashes its
// copy again before it serves (what it held may have changed since), and
// its uplink is then busy with a send it was not part of.
inline constexpr double kHeldSourceGain = 0.10;

// Agents outside a send asked whether they hold its file, the fastest
// uplinks first: each one that holds a same-size copy hashes it, a cost
// to machines the send is not for.
inline constexpr std::size_t kMaxOtherServers = 3;

struct HeldSource {
  std::size_t holder = 0;  // index into `holders`
  SendTree tree;           // node 0 the holder, then `receivers`
};

// The holder whose plan to `receivers` is fastest, if it beats
// `fromHnowdSeconds` (hnowd's plan, compressed or not) by kHeldSourceGain.
// Never for `striped` (a holder serves one tree). The tree's `why` says so.
std::optional<HeldSource> chooseHeldSource(const std::string& algo, const std::vector<TreeNode>& holders,
                                           const std::vector<TreeNode>& receivers, std::uint64_t size,
                                           std::uint32_t chunkBytes, double fromHnowdSeconds);

}  // namespace hnow::daemon
