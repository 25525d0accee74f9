#pragma once
// Which link limited each flow of an observation window (docs/link-rates.md
// "Which side limited it"). In hnow's model a flow from s to r crosses two
// links only, s's uplink and r's downlink, so it is limited by one of them:
// by s's uplink when r's downlink had headroom (r received well under what
// its downlink is known to carry), by r's downlink when s's uplink had.
// Loads are each node's whole traffic on the link over the window, hnow's
// and others', so a link busy with other traffic is judged by all of it.
// When both ends had headroom the evidence is split by how many flows back
// each side (one uplink slowed under three children is one change, not
// three downlinks); a tie says nothing. Pure: values in, values out.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/links/link_rate.h"

namespace hnow::daemon {

// What one node moved over the window, payload bytes/s: everything through
// its interface where its NIC is known, else its data plane's traffic.
struct NodeLoad {
  double sent = 0.0;
  double received = 0.0;
  double foreignSent = 0.0;      // the part that was not hnow's (NIC known)
  double foreignReceived = 0.0;
  // Counted at the interface: the link's own load. Otherwise hnow's
  // counters, which a flow's receiver may outrun (node_loads.h).
  bool atInterface = false;
};

struct Flow {
  std::string from;
  std::string to;
  double bytesPerSecond = 0.0;
  // False: not judged (its sender may not have kept it busy).
  bool fed = true;
  // The sender had nothing more for this receiver (it waited for its own
  // parent's data): neither of its links can be called the limit over the
  // window, since part of them sat idle.
  bool starved = false;
};

struct LinkReading {
  LinkId link;
  double bytesPerSecond = 0.0;  // the node's load on the link over the window
  // The link limited a flow: its capacity. Otherwise only a lower bound.
  bool saturated = false;
  double foreign = 0.0;         // other traffic on the link over the window
};

// The rate a link is known to carry at least (a capacity or a bound); 0
// when nothing is known, which grants the other end no verdict.
using KnownRate = std::function<double(const LinkId& link)>;

struct VerdictOptions {
  // A load under (1 - headroom) of what its link is known to carry leaves
  // room: TCP on a saturated link reads within a few percent of it.
  double headroom = 0.15;
  // Flows slower than this say nothing (a connection that barely started).
  double minFlowBytesPerSecond = 16e3;
};

// One reading per link some fed flow crosses: the node's load on it,
// saturated when the verdict says it was a flow's limit and no flow on it
// starved (a relay of several stripes whose uplink carried one stripe at
// full speed while it waited for another's data was not full).
std::vector<LinkReading> judgeFlows(const std::vector<Flow>& flows, const std::map<std::string, NodeLoad>& loads,
                                    const KnownRate& known, const VerdictOptions& options = {});

}  // namespace hnow::daemon
