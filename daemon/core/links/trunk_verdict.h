#pragma once
// What hnow's own flows say of the trunks between rooms (docs/rooms.md
// "Learning from a send"). judgeFlows (link_verdict.h) knows two links per
// flow, its sender's uplink and its receiver's downlink; a flow between
// rooms also crosses their trunks. When every flow across a trunk in one
// direction ran with room to spare at both ends, neither end explains it,
// and the trunk is what held them: their sum is its capacity, and those
// flows blame no end link; unless they also crossed a busier trunk with no
// room to spare, which held them instead. Otherwise their sum is what the
// trunk carried at least. Pure: values in, values out.
#include <map>
#include <string>
#include <vector>

#include "core/links/link_verdict.h"

namespace hnow::daemon {

struct TrunkVerdict {
  std::vector<LinkReading> readings;  // one per trunk direction some flow crossed
  std::vector<Flow> rest;             // the flows no trunk explained, for judgeFlows
};

// `roomOf`: each agent's room; a node not in it (hnowd) is outside every
// room, as plans take it (send_tree.h siteLinksOf).
TrunkVerdict judgeTrunks(const std::vector<Flow>& flows, const std::map<std::string, NodeLoad>& loads,
                         const std::map<std::string, std::string>& roomOf, const KnownRate& known,
                         const VerdictOptions& options = {});

}  // namespace hnow::daemon
