#pragma once
// What hnowd's gate checks a login against (docs/security.md): hnowd's own
// key, the operators its config lists with their rights, the agents' keys,
// and, while a lab migrates from the shared secret, that secret, which
// then only lets an agent enroll its key under a free name.
#include <kj/async.h>

#include <map>
#include <string>
#include <vector>

#include "base/clock.h"
#include "core/trust/agent_keys.h"
#include "core/trust/key_hosts.h"
#include "transport/auth.h"
#include "transport/identity.h"

namespace hnow::daemon {

struct OperatorEntry {
  std::string name;
  transport::PublicKey key{};
  bool readOnly = false;  // status, operations and the progress of operations only
};

// The connections of logged-in agents by name, so that `hnow agent
// revoke` closes them at once, and of operators (ofOperator), so that a
// reload that removes one or changes its key or rights closes its sessions.
class SessionCuts {
 public:
  // The name an operator's connections are kept under: apart from agents'
  // names, which hold no space.
  static std::string ofOperator(const std::string& name) { return "operator " + name; }
  void add(const std::string& name, kj::Own<kj::PromiseFulfiller<void>> cut);
  // Closes every connection of `name`; returns how many were open.
  unsigned cut(const std::string& name);

 private:
  std::multimap<std::string, kj::Own<kj::PromiseFulfiller<void>>> cuts_;
};

struct Trust {
  const transport::KeyPair* hnowdKey = nullptr;
  const transport::Secret* sharedSecret = nullptr;  // migration only; null: none
  std::vector<OperatorEntry> operators{};
  AgentKeys* agents = nullptr;
  SessionCuts* cuts = nullptr;
  const Clock* clock = nullptr;
  KeyHosts* keyHosts = nullptr;  // agents' logins by host; null: not watched

  const OperatorEntry* findOperator(const std::string& name) const;
};

}  // namespace hnow::daemon
