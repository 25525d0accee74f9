#pragma once
// How fast each node's data plane is paced while hnow moves data, and the
// rates plans take from that: the bandwidth caps in force
// (docs/bandwidth-limits.md) against the links' measured capacities, and
// each measured uplink paced a little under its capacity (kUplinkPacing),
// so that the pacing, not the link's shallow queue, divides it among a
// node's children. While a node is paced, the link book reads its link as
// the pacing's, not a slower link (LinkBook::pace).
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/bandwidth_limits.h"
#include "core/links/link_book.h"
#include "core/links/rate_table.h"

namespace hnow::daemon {

// hnowd's own node in link surveys, plans and status; no agent may take it.
inline constexpr const char* kCoordinatorNode = "hnowd";

// One direction's bandwidth cap in force, as plans, pacing and `hnow
// status` take it.
struct CapView {
  double bytesPerSecond = 0.0;  // 0: none
  std::string by;               // "max_uplink_mbps" (or downlink), the schedule entry; "" for none
};

struct NodeCaps {
  CapView up, down;
};

// hnowd paces its own uplink this much under what it measured, and has each
// agent pace its own during a send, so that the pacing, not the link's
// shallow queue, divides an uplink among its children: TCP shared it
// unevenly there, and a relay starved for a while held back its whole
// subtree (the volunteer-like lab: 22.6 to 27.7 s for one tree, 22.5 to
// 22.7 s with hnowd paced at 0.97, against 22.4 predicted). A striped
// send's relays feed children in several stripes; with only hnowd paced
// their stripes ended up to a second apart, and the send took 15.2-15.7 s
// against 14.7 predicted. With every uplink paced, 0.97 of it: 14.8-15.2 s;
// 0.99: 14.65-14.88 s, 14.6-14.7 predicted (docs/link-rates.md).
inline constexpr double kUplinkPacing = 0.99;

// hnowd's uplink as the source of a send or a job: what plans take and
// what its data plane is paced at (0: not paced, a real link).
struct SourceUplink {
  double plan = 0.0;
  double pace = 0.0;
};

class Pacing {
 public:
  // Reads the links' capacities from `links` and the agents' reports from
  // `table`; both outlive it.
  Pacing(LinkBook& links, const RateTable& table) : links_(links), table_(table) {}

  // The caps in force on a node's links, as it evaluated its [limits] (an
  // agent at login and whenever its schedule changes them).
  void setCaps(const std::string& node, const CapsInForce& caps) { caps_[node] = caps; }
  void forget(const std::string& node) { caps_.erase(node); }
  // hnowd's own, from its [limits] at its local time (main evaluates them).
  // `configuredUplink`: its uplink_mbps in bytes/s (0: not set).
  void setCoordinatorCaps(const CapsInForce& caps, double configuredUplink) {
    caps_[kCoordinatorNode] = caps;
    configuredUplink_ = configuredUplink;
  }
  NodeCaps coordinatorCaps() const { return capsOf(kCoordinatorNode, configuredUplink_); }
  // A node's caps against its links' measured capacities (a percentage of
  // an unmeasured link: of the static cap; `uplinkCapacity` stands in for
  // an unmeasured uplink, hnowd's uplink_mbps).
  NodeCaps capsOf(const std::string& node, double uplinkCapacity = 0.0) const;
  // What the link's own node paces it at whatever it carries (an agent:
  // its absolute caps; hnowd: its caps in force); 0: none. A survey that
  // fills the link up to this measured the cap, not the link.
  double capPacedByNode(const LinkId& link) const;

  // The planning rates of a node: what it reported, links as available now,
  // a measured uplink as a send paces it (agentUplinkPace).
  planner::NodeRates planningRates(const std::string& node) const;
  // `configured`: hnowd's uplink_mbps in bytes/s (0: not set), the rate it
  // paces at. Otherwise a little under its measured capacity (a bound, the
  // least it can do, unpaced); before any survey, taken as fast as the
  // fastest agent's and paced so, to keep that promise.
  // Within hnowd's caps in force ([limits] in hnowd.toml).
  SourceUplink sourceUplink(double configured) const;
  // The same for an operation that starts now: while hnowd paces its own
  // measured uplink, readings of that link measure the pacing, and the link
  // book leaves them alone until sourceIdle().
  SourceUplink paceSource(double configured);
  // What an agent paces its uplink at during a send that starts now (the
  // receive order carries it): a little under its measured capacity, as
  // planningRates() plans it, and at most its cap in force. 0: not paced
  // (emulated, a bound, not measured, and no cap).
  double agentUplinkPace(const std::string& agent) const;
  // The same for its downlink: its cap in force (0: none).
  double agentDownlinkPace(const std::string& agent) const { return capsOf(agent).down.bytesPerSecond; }
  // The send runs: readings of these agents' uplinks are the pacing's until
  // sourceIdle().
  void paceAgentUplinks(const std::vector<std::string>& agents);
  // No operation runs: hnowd's uplink, and the agents', are not paced by
  // measurement any more. True when hnowd's was (its data plane's pacing is
  // to be reset; each agent's ends with its receives).
  bool sourceIdle();

 private:
  SourceUplink uncappedSourceUplink(double configured) const;

  LinkBook& links_;
  const RateTable& table_;
  std::map<std::string, CapsInForce> caps_;  // by node, hnowd's under kCoordinatorNode
  double configuredUplink_ = 0.0;            // hnowd's uplink_mbps, bytes/s
  bool sourcePaced_ = false;                 // paceSource() paced hnowd's measured uplink
  std::set<std::string> pacedAgents_;        // paceAgentUplinks() since the last idle tick
};

}  // namespace hnow::daemon
