#pragma once
// Relays caught altering what they relay (docs/security.md, "Data a relay
// alters"). Every receiving agent checks each
// chunk from its parent against the source's SHA-256 digests, which reach it
// from hnowd over the authenticated control channel; a chunk that differs
// names its parent. Within the send that parent relays nothing more
// (SendOperation); here hnowd counts such faults per agent, in memory, and
// after kSuspectFaults of them plans the agent as a leaf in every later
// send, striped send, manifest item and replan: it still receives its own
// copies, checked chunk by chunk like everyone's, but it feeds nobody, so a
// hostile volunteer costs the others nothing but its own copy. The counts
// outlive hnowd (state.db's "relay-faults" ledger, Coordinator). One fault is
// not enough: a relay whose memory or disk flipped a bit once is not hostile,
// and one bad chunk reaches all its children at once, so a send counts once.
// Logic only.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/relay_faults.h"
#include "core/send/send_tree.h"

namespace hnow::daemon {

using api::kSuspectFaults;  // api/relay_faults.h: the CLI says it too

// A relay caught in a running send: `reporter`, one of its children, held
// `bytes` checked against the source's digests when the next chunk from
// `relay` differed (`message`, the reporter's words).
struct RelayFault {
  std::string relay;
  std::string reporter;
  std::uint64_t bytes = 0;
  std::string message;
};

class RelaySuspects {
 public:
  // One more fault of `agent`'s; its count now.
  int fault(const std::string& agent) { return ++faults_[agent]; }
  int faults(const std::string& agent) const {
    auto it = faults_.find(agent);
    return it == faults_.end() ? 0 : it->second;
  }
  bool suspect(const std::string& agent) const { return faults(agent) >= kSuspectFaults; }
  // Each fault caught in operation `id` of `kind` ("send", "manifest")
  // counted; the warnings hnowd logs for them (relayFaultLine, and
  // suspectLine for an agent that became a suspect now).
  std::vector<std::string> caught(const std::string& kind, std::uint64_t id, const std::vector<RelayFault>& faults);
  // A machine gone for good (`hnow agent forget`): its name may serve another.
  void forget(const std::string& agent) { faults_.erase(agent); }
  // The whole ledger, as state.db keeps it across restarts, and back.
  const std::map<std::string, int>& ledger() const { return faults_; }
  void restore(std::map<std::string, int> faults) { faults_ = std::move(faults); }
  // Every suspect among `nodes` past [0], the plan's source (which sends
  // its own file), planned as relaying nothing (TreeNode::relays).
  void planLeaves(std::vector<TreeNode>& nodes) const;

 private:
  std::map<std::string, int> faults_;
};

// What hnowd logs when `fault` is caught in operation `id` of `kind`
// ("send", "manifest"): "send 3: agent-2 caught agent-1 relaying bytes that
// differ from the source's at byte 262144 (...); agent-1 relays nothing more
// in this send".
std::string relayFaultLine(const std::string& kind, std::uint64_t id, const RelayFault& fault);
// And once an agent's faults make it a suspect (`faults` of them).
std::string suspectLine(const std::string& agent, int faults);

}  // namespace hnow::daemon
