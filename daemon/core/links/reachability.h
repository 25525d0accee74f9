#pragma once
// Whether other nodes can open a connection to an agent's data plane
// (docs/reachability.md). The data plane is pull-based: a child connects to
// its parent. A volunteer's PC behind NAT or a host firewall accepts no
// inbound connection, so it may receive (it connects out) but can feed no
// one: planned as a relay, its children would wait out the kernel's connect
// timeout and be re-parented to it again. hnowd learns it two ways: it
// connects to the agent's data address itself when the agent registers
// with an address it has not checked, and a child that cannot connect to
// its parent within a few seconds says so (TransferReport
// kParentUnreachable). An unreachable agent is planned as a leaf in every
// send, striped send, manifest item and replan (TreeNode::relays), as a
// relay suspect is; it still receives everything, pulling from reachable
// parents. Logic only; the check itself is ReachabilityProbe's.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "core/send/send_tree.h"

namespace hnow::daemon {

// Opens a connection to a data address and closes it (server/): done(ok
// or why not) once, on the control thread, within its timeout.
class ReachabilityProbe {
 public:
  virtual ~ReachabilityProbe() = default;
  virtual void check(const std::string& dataAddress, std::function<void(Result<void>)> done) = 0;
};

struct ReachabilityView {
  bool reachable = true;  // not known to refuse connections
  std::string note;       // why not, and who found it; "" when reachable
};

class Reachability {
 public:
  // The agent registered with `dataAddress`: true when it needs checking
  // (never checked at that address). A new address forgets what was known.
  bool needsCheck(const std::string& agent, const std::string& dataAddress);
  // hnowd's own connection to `dataAddress` opened (or not: `why`).
  void checked(const std::string& agent, const std::string& dataAddress, const Result<void>& outcome);
  // `reporter` could not connect to `agent` in an operation (`why`).
  // False when it was known to be unreachable already.
  bool refusedBy(const std::string& agent, const std::string& reporter, const std::string& why);
  bool reachable(const std::string& agent) const;
  ReachabilityView view(const std::string& agent) const;
  // Every unreachable agent among `nodes` past [0], the plan's source,
  // planned as relaying nothing (TreeNode::relays).
  void planLeaves(std::vector<TreeNode>& nodes) const;
  void forget(const std::string& agent) { agents_.erase(agent); }

 private:
  struct Entry {
    std::string address;  // the data address last checked or registered
    bool reachable = true;
    std::string note;
  };
  std::map<std::string, Entry> agents_;
};

}  // namespace hnow::daemon
