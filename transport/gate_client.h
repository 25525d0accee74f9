#pragma once
// The peer's half of the login (transport/control.capnp, top): check that
// hnowd holds the key we trust, then prove who we are with our own.
#include <kj/async.h>

#include <optional>

#include "transport/auth.h"
#include "transport/client_session.capnp.h"
#include "transport/control.capnp.h"
#include "transport/identity.h"

namespace hnow::transport {

Bytes bytesOf(capnp::Data::Reader data);
inline capnp::Data::Reader dataOf(const Bytes& bytes) {
  return capnp::Data::Reader(bytes.data(), bytes.size());
}

// hnowd's answer to our challenge, checked.
struct GateOpening {
  Bytes nonce;          // single-use, for our login on this connection
  PublicKey coordinator{};  // the key hnowd proved it holds
};

// Resolves once hnowd has signed our nonce with `trusted`; fails otherwise.
// Without a trusted key, `secret` (an agent moving from the shared secret)
// lets us learn hnowd's key from its HMAC proof, which covers the key.
// `secret` must outlive the promise.
kj::Promise<GateOpening> openGate(wire::Gate::Client gate, std::optional<PublicKey> trusted,
                                  const Secret* secret = nullptr);

// `hnow`'s login as the operator `name`. `key` must outlive the promise.
kj::Promise<wire::ClientSession::Client> loginAsOperator(wire::Gate::Client gate, const std::string& name,
                                                         const KeyPair& key, const PublicKey& coordinator);

}  // namespace hnow::transport
