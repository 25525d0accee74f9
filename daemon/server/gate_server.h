#pragma once
// hnowd's RPC glue: the per-connection Gate and the session capabilities it
// hands out after a correct proof. Converts capnp readers to plain values and
// calls the Coordinator; no logic of its own beyond authentication.
#include <kj/async.h>

#include <functional>
#include <optional>
#include <string>

#include "core/coordinator.h"
#include "server/sessions.h"
#include "server/trust.h"
#include "transport/auth.h"
#include "transport/control.capnp.h"

namespace hnow::daemon {

// Whether hnowd signs one more challenge for this connection's peer now
// (ControlServer's budget per address); none: no limit.
using ChallengeBudget = std::function<bool()>;

// One per connection, so a nonce is bound to the connection it was issued on.
class GateServer final : public wire::Gate::Server {
 public:
  // `tasks` runs commands sent to agents; it and the others outlive the gate.
  // `loggedIn`, if given, is fulfilled at the first successful login;
  // `cut`, if given, closes the connection (an agent's, when it is revoked).
  GateServer(Coordinator& coordinator, const Trust& trust, kj::TaskSet& tasks, std::string peer,
             kj::Maybe<kj::Own<kj::PromiseFulfiller<void>>> loggedIn = nullptr, Services services = {},
             kj::Maybe<kj::Own<kj::PromiseFulfiller<void>>> cut = nullptr, ChallengeBudget budget = {});
  // A connection that ends without a login is logged: a peer whose secret
  // differs stops at the coordinator's proof and never sends its own.
  ~GateServer();

 protected:
  // Every call runs with the connection's peer as the log's field (base/log_context.h).
  DispatchCallResult dispatchCall(uint64_t interfaceId, uint16_t methodId,
                                  capnp::CallContext<capnp::AnyPointer, capnp::AnyPointer> context) override;
  kj::Promise<void> challenge(ChallengeContext context) override;
  kj::Promise<void> loginAgent(LoginAgentContext context) override;
  kj::Promise<void> loginClient(LoginClientContext context) override;
  kj::Promise<void> loginOperator(LoginOperatorContext context) override;
  kj::Promise<void> loginAgentKey(LoginAgentKeyContext context) override;

 private:
  // The pending nonce, used up; after one refused login the gate stays
  // shut for this connection.
  transport::Bytes takeNonce();
  // Shuts the gate, logs "refused WHO from PEER: WHY" and refuses the call.
  [[noreturn]] void refuseLogin(const std::string& who, const std::string& why);
  void loggedIn();
  // An agent's key bound to its name, enrolling it first when the
  // credential carries a token or the shared secret's proof.
  void admitAgent(const std::string& name, wire::AgentCredential::Reader credential, const transport::Bytes& nonce);
  // Notes the agent's login by host, warning when its key takes turns
  // between two (core/trust/key_hosts.h).
  void watchHosts(const std::string& name);

  Coordinator& coordinator_;
  const Trust& trust_;
  kj::TaskSet& tasks_;
  std::string peer_;
  Services services_;
  std::optional<transport::Bytes> nonce_;
  bool shut_ = false;
  bool loggedIn_ = false;
  bool challenged_ = false;
  kj::Maybe<kj::Own<kj::PromiseFulfiller<void>>> onLogin_;
  kj::Maybe<kj::Own<kj::PromiseFulfiller<void>>> cut_;
  ChallengeBudget budget_;
};

}  // namespace hnow::daemon
