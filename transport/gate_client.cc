#include "transport/gate_client.h"
#include "transport/rpc_errors.h"

#include <kj/debug.h>

namespace hnow::transport {

Bytes bytesOf(capnp::Data::Reader data) { return Bytes(data.begin(), data.end()); }

kj::Promise<Bytes> openGate(wire::Gate::Client gate, const Secret& secret) {
  Bytes ours = freshNonce();
  auto request = gate.challengeRequest();
  request.setPeerNonce(dataOf(ours));
  return request.send().then([&secret, ours](auto response) {
    Bytes nonce = bytesOf(response.getNonce());
    if (!checkProof(secret, Role::kCoordinator, "", ours, bytesOf(response.getCoordinatorProof())))
      refuse("hnowd does not know our secret (wrong secret file, or not hnowd at that address)");
    KJ_REQUIRE(nonce.size() == kNonceBytes, "the coordinator sent a malformed nonce");
    return nonce;
  });
}

kj::Promise<wire::ClientSession::Client> loginAsClient(wire::Gate::Client gate,
                                                       const Secret& secret) {
  return openGate(gate, secret).then([gate, &secret](Bytes nonce) mutable {
    auto request = gate.loginClientRequest();
    request.setProof(dataOf(makeProof(secret, Role::kClient, "", nonce)));
    return request.send().then(
        [](auto response) -> wire::ClientSession::Client { return response.getSession(); });
  });
}

}  // namespace hnow::transport
