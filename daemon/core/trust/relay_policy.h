#pragma once
// Who may feed others in a plan: an agent others can connect to
// (reachability.h) that has not been caught altering the bytes it relayed
// (relay_suspects.h). Every other agent is planned as a leaf in every send,
// striped send, manifest item and replan: it still receives its own copy.
// Logic only; the connection check is the probe's (server/).
#include <string>
#include <vector>

#include "core/links/reachability.h"
#include "core/send/send_tree.h"
#include "core/trust/relay_suspects.h"

namespace hnow::daemon {

class RelayPolicy {
 public:
  // With a probe set, every agent that registers with a data address not
  // checked yet is checked from hnowd; the probe must outlive this.
  void setProbe(ReachabilityProbe* probe) { probe_ = probe; }
  // `agent` registered with `dataAddress` ("" when it serves none).
  void registered(const std::string& agent, const std::string& dataAddress);

  // May `agent` feed others: reachable, and not a relay suspect.
  bool mayRelay(const std::string& agent) const { return reach_.reachable(agent) && !suspects_.suspect(agent); }
  // Every node past [0] that may not relay planned as a leaf (TreeNode::relays).
  void planLeaves(std::vector<TreeNode>& nodes) const {
    suspects_.planLeaves(nodes);
    reach_.planLeaves(nodes);
  }
  // A machine gone for good: its name may serve another.
  void forget(const std::string& agent) {
    suspects_.forget(agent);
    reach_.forget(agent);
  }

  // The relays caught altering bytes; sends and manifests count what they
  // catch here, in memory.
  RelaySuspects& suspects() { return suspects_; }
  const RelaySuspects& suspects() const { return suspects_; }
  Reachability& reachability() { return reach_; }
  const Reachability& reachability() const { return reach_; }

 private:
  RelaySuspects suspects_;
  Reachability reach_;
  ReachabilityProbe* probe_ = nullptr;
};

}  // namespace hnow::daemon
