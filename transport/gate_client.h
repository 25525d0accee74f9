#pragma once
// The peer's half of the login (transport/control.capnp, top): check that
// the coordinator knows the secret, then prove that we do.
#include <kj/async.h>

#include "transport/auth.h"
#include "transport/control.capnp.h"

namespace hnow::transport {

Bytes bytesOf(capnp::Data::Reader data);
inline capnp::Data::Reader dataOf(const Bytes& bytes) {
  return capnp::Data::Reader(bytes.data(), bytes.size());
}

// Resolves to the coordinator's single-use nonce once the coordinator has
// proven it knows `secret`; fails otherwise. `secret` must outlive the promise.
kj::Promise<Bytes> openGate(wire::Gate::Client gate, const Secret& secret);

// `hnow`'s login. `secret` must outlive the promise.
kj::Promise<wire::ClientSession::Client> loginAsClient(wire::Gate::Client gate,
                                                       const Secret& secret);

}  // namespace hnow::transport
