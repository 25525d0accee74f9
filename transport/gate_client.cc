#include "transport/gate_client.h"
#include "transport/rpc_errors.h"

#include <kj/debug.h>

#include <algorithm>

namespace hnow::transport {

Bytes bytesOf(capnp::Data::Reader data) { return Bytes(data.begin(), data.end()); }

kj::Promise<GateOpening> openGate(wire::Gate::Client gate, std::optional<PublicKey> trusted, const Secret* secret) {
  Bytes ours = freshNonce();
  auto request = gate.challengeRequest();
  request.setPeerNonce(dataOf(ours));
  return request.send().then([trusted, secret, ours](auto response) {
    GateOpening opening;
    opening.nonce = bytesOf(response.getNonce());
    Bytes key = bytesOf(response.getCoordinatorKey());
    if (key.size() != kPublicKeyBytes)
      refuse("hnowd did not present a key (an hnowd older than this program, or not hnowd at that address)");
    std::copy(key.begin(), key.end(), opening.coordinator.begin());
    if (!verifyLogin(opening.coordinator, Role::kCoordinator, "", ours, bytesOf(response.getCoordinatorSignature())))
      refuse("hnowd's signature over our challenge is wrong (not hnowd at that address)");
    if (trusted) {
      if (*trusted != opening.coordinator)
        refuse("hnowd at that address holds the key " + keyText(opening.coordinator) + ", not the one we trust, " +
               keyText(*trusted) + " (another hnowd, one whose key file was replaced, or not hnowd at all)");
    } else if (!secret ||
               !checkProof(*secret, Role::kCoordinator, keyText(opening.coordinator), ours,
                           bytesOf(response.getCoordinatorProof()))) {
      refuse(secret ? "hnowd does not know our shared secret (wrong secret file, or not hnowd at that address)"
                    : "there is no key of hnowd's to check it against: enroll with a token or set coordinator_key");
    }
    KJ_REQUIRE(opening.nonce.size() == kNonceBytes, "the coordinator sent a malformed nonce");
    return opening;
  });
}

kj::Promise<wire::ClientSession::Client> loginAsOperator(wire::Gate::Client gate, const std::string& name,
                                                         const KeyPair& key, const PublicKey& coordinator) {
  return openGate(gate, coordinator).then([gate, name, &key](GateOpening opening) mutable {
    auto request = gate.loginOperatorRequest();
    request.setName(name);
    request.setSignature(dataOf(signLogin(key, Role::kClient, name, opening.nonce)));
    return request.send().then(
        [](auto response) -> wire::ClientSession::Client { return response.getSession(); });
  });
}

}  // namespace hnow::transport
