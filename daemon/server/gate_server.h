#pragma once
// hnowd's RPC glue: the per-connection Gate and the session capabilities it
// hands out after a correct proof. Converts capnp readers to plain values and
// calls the Coordinator; no logic of its own beyond authentication.
#include <kj/async.h>

#include <optional>
#include <string>

#include "core/coordinator.h"
#include "server/sessions.h"
#include "transport/auth.h"
#include "transport/control.capnp.h"

namespace hnow::daemon {

// One per connection, so a nonce is bound to the connection it was issued on.
class GateServer final : public wire::Gate::Server {
 public:
  // `tasks` runs commands sent to agents; it and the others outlive the gate.
  // `loggedIn`, if given, is fulfilled at the first successful login.
  GateServer(Coordinator& coordinator, const transport::Secret& secret, kj::TaskSet& tasks,
             std::string peer, kj::Maybe<kj::Own<kj::PromiseFulfiller<void>>> loggedIn = nullptr,
             Services services = {});
  // A connection that ends without a login is logged: a peer whose secret
  // differs stops at the coordinator's proof and never sends its own.
  ~GateServer();

 protected:
  kj::Promise<void> challenge(ChallengeContext context) override;
  kj::Promise<void> loginAgent(LoginAgentContext context) override;
  kj::Promise<void> loginClient(LoginClientContext context) override;

 private:
  // Checks `proof` against the pending nonce, which is used up either way;
  // after one wrong proof the gate stays shut for this connection.
  void requireProof(transport::Role role, const std::string& name, capnp::Data::Reader proof);

  Coordinator& coordinator_;
  const transport::Secret& secret_;
  kj::TaskSet& tasks_;
  std::string peer_;
  Services services_;
  std::optional<transport::Bytes> nonce_;
  bool shut_ = false;
  bool loggedIn_ = false;
  kj::Maybe<kj::Own<kj::PromiseFulfiller<void>>> onLogin_;
};

}  // namespace hnow::daemon
