#pragma once
// Measuring the trunks between rooms (docs/rooms.md "Measuring a trunk").
// A trunk is shared by every flow that crosses it, so one flow reads at
// most its own ends' links: a trunk is measured like a downlink, by several
// flows at once, here between disjoint pairs of nodes on its two sides:
// into room X from the nodes of every other room, and out of X towards
// them (towards one room alone, X's trunk out would read that room's in). The flows together reading
// clearly less than their ends could carry means the trunk limited them,
// and what they carried is its capacity; otherwise the trunk carries at
// least that much (a bound). Trunks live in the link book as links of a
// pseudo-node "room:NAME" (downlink = into the room, uplink = out of it),
// which no agent's name can collide with. Pure: values in, values out.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/links/link_book.h"
#include "core/links/link_survey.h"
#include "planner/site_links.h"

namespace hnow::daemon {

// The link book's name for a room's trunk: into the room is kDown.
LinkId trunkLink(const std::string& room, LinkDirection direction);
// The room of a trunk link; none for a node's link.
std::optional<std::string> trunkRoom(const LinkId& link);

struct TrunkSurveyOptions {
  // Flows per round: enough pairs to fill a trunk several times one PC's
  // port, few enough that a round is a handful of connections per node.
  int maxFlows = 6;
  // The flows together under (1 - headroom) of what their ends carry: the
  // trunk was the limit (TCP on a saturated link reads within a few %).
  double headroom = 0.2;
};

// `nodes`: every node with its room in `site` (hnowd's too; "" when hnowd
// is in no agent's room: it then takes no part). One round per target
// trunk that has nodes on both sides. The far side takes every other
// room's nodes in turn; senders by known uplink, receivers by known
// downlink, fastest first, names breaking ties, in disjoint pairs as far
// as both sides go.
std::vector<ProbeRound> planTrunkSurvey(const std::vector<SurveyNode>& nodes, const std::vector<LinkId>& targets,
                                        const KnownRate& known, const TrunkSurveyOptions& options = {});

// A round's finding for its target: the sum of its flows, saturated when
// under (1 - headroom) of what the flows' ends are known to carry (each
// sender's uplink shared by its flows, each receiver's downlink likewise).
SurveyFinding judgeTrunkRound(const ProbeRound& round, const RoundOutcome& outcome, const KnownRate& known,
                              const TrunkSurveyOptions& options = {});

// A trunk survey's rounds judged together. A round across X's trunk whose
// far side spans two rooms or more also meets their trunks: on a line A - B
// - C whose middle room's switch is the router, the flows into B from A and
// C read A's trunk out plus C's, however wide B's is. So each such round is
// judged again with the far side carrying at most, per room, its flows'
// ends or its own trunk (as this survey found it saturated, else as
// `capacity` knows it, else unlimited); under that it was X's trunk that
// held them, at it the reading is a bound. With one far room the two
// trunks are one path and both keep the reading. `roomOf`: each node's
// room. Rounds with their outcomes, in any order; one finding per round.
std::vector<SurveyFinding> judgeTrunkSurvey(const std::vector<std::pair<ProbeRound, RoundOutcome>>& rounds,
                                            const std::map<std::string, std::string>& roomOf, const KnownRate& known,
                                            const KnownRate& capacity, const TrunkSurveyOptions& options = {});

// With two or more agents' rooms, each room's trunk directions not yet
// known, as targets.
std::vector<LinkId> unmeasuredTrunks(const std::vector<SurveyNode>& nodes, const KnownRate& known);

// A room's trunk as plans take it from the book: a capacity; unlimited
// (+infinity) where the book has only a bound; 0 where nobody measured it.
planner::Trunk knownTrunk(const LinkBook& book, const std::string& room);

}  // namespace hnow::daemon
