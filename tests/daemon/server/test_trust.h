#pragma once
// hnowd's Trust for tests of the gate and sessions: fresh keys for hnowd,
// a full and a read-only operator, and agents bound as hnowd's config
// binds them ([[agents]]), all in memory.
#include <map>
#include <string>
#include <vector>

#include "daemon/core/memory_state_store.h"
#include "server/trust.h"
#include "transport/gate_client.h"
#include "transport/identity.h"

namespace hnow::testing {

struct TestTrust {
  transport::KeyPair hnowdKey = transport::KeyPair::generate();
  transport::KeyPair operatorKey = transport::KeyPair::generate();
  transport::KeyPair readerKey = transport::KeyPair::generate();
  daemon::MemoryStateStore keyStore;
  daemon::AgentKeys agentKeys{keyStore};
  daemon::SessionCuts cuts;
  daemon::KeyHosts keyHosts;
  daemon::Trust trust;
  std::map<std::string, transport::KeyPair> agents;

  explicit TestTrust(const Clock& clock) {
    trust.hnowdKey = &hnowdKey;
    trust.agents = &agentKeys;
    trust.cuts = &cuts;
    trust.clock = &clock;
    trust.keyHosts = &keyHosts;
    trust.operators.push_back({"op", operatorKey.publicKey(), false});
    trust.operators.push_back({"reader", readerKey.publicKey(), true});
  }

  // A key bound to `name` as hnowd's config would bind it.
  const transport::KeyPair& agentKey(const std::string& name) {
    auto it = agents.find(name);
    if (it != agents.end()) return it->second;
    const transport::KeyPair& key = agents.emplace(name, transport::KeyPair::generate()).first->second;
    (void)agentKeys.load({{name, transport::keyText(key.publicKey())}});
    return key;
  }

  kj::Promise<wire::ClientSession::Client> loginOperator(wire::Gate::Client gate) {
    return transport::loginAsOperator(kj::mv(gate), "op", operatorKey, hnowdKey.publicKey());
  }
  kj::Promise<wire::ClientSession::Client> loginReader(wire::Gate::Client gate) {
    return transport::loginAsOperator(kj::mv(gate), "reader", readerKey, hnowdKey.publicKey());
  }

  // An agent's login request, signed with `key` over the nonce.
  template <class Request>
  void signAgent(Request& request, const std::string& name, const transport::KeyPair& key,
                 const transport::Bytes& nonce) {
    auto credential = request.initCredential();
    transport::Bytes publicKey(key.publicKey().begin(), key.publicKey().end());
    credential.setKey(transport::dataOf(publicKey));
    credential.setSignature(transport::dataOf(transport::signLogin(key, transport::Role::kAgent, name, nonce)));
    request.initRegistration().setName(name);
  }
};

}  // namespace hnow::testing
