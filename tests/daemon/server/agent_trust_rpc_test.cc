// Who may log in as what (docs/security.md): operators' and agents' keys,
// enrollment tokens, approval, revocation, read-only rights and the move
// from the shared secret, through hnowd's real gate and sessions. Each
// refusal leaves a log line naming the peer.
#include <doctest/doctest.h>

#include "daemon/server/captured_log.h"
#include "daemon/server/control_server_harness.h"
#include "daemon/server/gate_harness.h"

using namespace hnow;
using namespace hnow::testing;

namespace {

// An agent's login with `key`, enrolling through `token` (its text) when given.
wire::AgentSession::Client enrollWith(Harness& h, Harness::Link& link, const std::string& name,
                                      const transport::KeyPair& key, const std::string& token, Received& received) {
  auto opening = transport::openGate(link.gate, h.keys.hnowdKey.publicKey()).wait(h.ws);
  auto request = link.gate.loginAgentKeyRequest();
  h.keys.signAgent(request, name, key, opening.nonce);
  if (!token.empty()) {
    auto parsed = transport::parseTokenText(token);
    REQUIRE(parsed.ok());
    Bytes id(parsed->id.begin(), parsed->id.end());
    request.getCredential().setTokenId(transport::dataOf(id));
    request.getCredential().setTokenProof(
        transport::dataOf(transport::enrollProof(parsed->secret, name, key.publicKey(), opening.nonce)));
  }
  request.setControl(kj::heap<RecordingControl>(received));
  return request.send().wait(h.ws).getSession();
}

std::string tokenFor(Harness& h, wire::ClientSession::Client& client, const std::string& name, double ttl = 3600) {
  auto request = client.agentTokenRequest();
  request.setName(name);
  request.setTtlS(ttl);
  return request.send().wait(h.ws).getToken();
}

}  // namespace

TEST_CASE("an agent's key never opens an operator session, and the old shared-secret logins are refused") {
  Harness h;
  const transport::KeyPair& agentKey = h.keys.agentKey("a1");
  auto asAgentName = h.connect();
  std::string log = logOf([&] {
    CHECK(h.failureOf([&]() {
            transport::loginAsOperator(asAgentName.gate, "a1", agentKey, h.keys.hnowdKey.publicKey()).wait(h.ws);
          }).find("no operator of that name") != std::string::npos);
  });
  CHECK(log.find("refused operator login as a1 from in-memory") != std::string::npos);
  auto asOperatorName = h.connect();
  CHECK(h.failureOf([&]() {
          transport::loginAsOperator(asOperatorName.gate, "op", agentKey, h.keys.hnowdKey.publicKey()).wait(h.ws);
        }).find("does not answer") != std::string::npos);

  transport::Secret secret("0123456789abcdef0123456789abcdef");
  auto old = h.connect();
  transport::openGate(old.gate, h.keys.hnowdKey.publicKey()).wait(h.ws);
  auto client = old.gate.loginClientRequest();
  client.setProof(transport::dataOf(transport::makeProof(secret, Role::kClient, "", Bytes(32))));
  CHECK(h.failureOf([&]() { client.send().wait(h.ws); }).find("no longer opens a client session") !=
        std::string::npos);
  // The session the agent holds is an agent's: a client call on it is not even expressible,
  // and hnowd still serves the real operator.
  auto link = h.connect();
  auto op = h.keys.loginOperator(link.gate).wait(h.ws);
  CHECK(op.statusRequest().send().wait(h.ws).getAgents().size() == 0);
}

TEST_CASE("a token enrolls one key once: reused, expired, made for another name or forged, it is refused") {
  Harness h;
  auto opLink = h.connect();
  auto op = h.keys.loginOperator(opLink.gate).wait(h.ws);
  const std::string token = tokenFor(h, op, "lab-pc-7");
  CHECK(token.rfind("hnow-enroll-", 0) == 0);
  auto parsed = transport::parseTokenText(token);
  REQUIRE(parsed.ok());
  CHECK(parsed->coordinator == h.keys.hnowdKey.publicKey());  // the agent learns whom to trust from it

  transport::KeyPair newKey = transport::KeyPair::generate();
  Received received;
  // Made for another name.
  auto wrongName = h.connect();
  std::string log = logOf([&] {
    CHECK(h.failureOf([&]() { enrollWith(h, wrongName, "lab-pc-8", newKey, token, received); })
              .find("for the agent lab-pc-7, not lab-pc-8") != std::string::npos);
  });
  CHECK(log.find("refused agent login as lab-pc-8 from in-memory") != std::string::npos);
  // Forged: the right id, a proof made with another secret.
  transport::EnrollToken forged = parsed.value();
  forged.secret[0] ^= 1;
  auto forgedLink = h.connect();
  CHECK(h.failureOf([&]() { enrollWith(h, forgedLink, "lab-pc-7", newKey, transport::tokenText(forged), received); })
            .find("proof of the enrollment token") != std::string::npos);
  // The real one, once.
  auto link = h.connect();
  auto session = enrollWith(h, link, "lab-pc-7", newKey, token, received);
  session.pingRequest().send().wait(h.ws);
  CHECK(h.keys.agentKeys.check("lab-pc-7", transport::keyText(newKey.publicKey())) ==
        daemon::AgentKeys::Verdict::kBound);
  // Reused by another machine under another free name.
  transport::KeyPair thief = transport::KeyPair::generate();
  auto again = h.connect();
  CHECK(h.failureOf([&]() { enrollWith(h, again, "lab-pc-9", thief, token, received); })
            .find("unknown or was used already") != std::string::npos);
  // Expired.
  const std::string shortLived = tokenFor(h, op, "", 5);
  h.clock.advance(std::chrono::seconds(6));
  auto late = h.connect();
  CHECK(h.failureOf([&]() { enrollWith(h, late, "lab-pc-10", thief, shortLived, received); })
            .find("has expired") != std::string::npos);
  // The enrolled agent logs in again with its key alone.
  auto later = h.connect();
  enrollWith(h, later, "lab-pc-7", newKey, "", received).pingRequest().send().wait(h.ws);
}

TEST_CASE("a second machine cannot take an enrolled agent's name, not even with a fresh token") {
  Harness h;
  h.keys.agentKey("a1");
  auto opLink = h.connect();
  auto op = h.keys.loginOperator(opLink.gate).wait(h.ws);
  const std::string token = tokenFor(h, op, "a1");
  transport::KeyPair other = transport::KeyPair::generate();
  Received received;
  auto link = h.connect();
  std::string log = logOf([&] {
    CHECK(h.failureOf([&]() { enrollWith(h, link, "a1", other, token, received); })
              .find("the name a1 is enrolled with another key") != std::string::npos);
  });
  CHECK(log.find("refused agent login as a1 from in-memory") != std::string::npos);
  CHECK(h.coordinator.status().empty());
}

TEST_CASE("an unknown key waits for approval, and logs in once an operator approves it") {
  Harness h;
  transport::KeyPair key = transport::KeyPair::generate();
  Received received;
  auto first = h.connect();
  CHECK(h.failureOf([&]() { h.loginAgent(first, "new-pc", received, &key); }).find("waiting for approval") !=
        std::string::npos);
  auto opLink = h.connect();
  auto op = h.keys.loginOperator(opLink.gate).wait(h.ws);
  auto keys = op.agentKeysRequest().send().wait(h.ws).getKeys();
  bool pending = false;
  for (auto k : keys)
    pending |= std::string(k.getName()) == "new-pc" && std::string(k.getState()) == "pending" &&
               std::string(k.getKey()) == transport::keyText(key.publicKey()) && std::string(k.getPeer()) == "in-memory";
  CHECK(pending);
  // The key the operator was shown is the one approved: another is refused, and nothing is enrolled.
  auto swapped = op.approveAgentRequest();
  swapped.setName("new-pc");
  swapped.setExpectedKey(transport::keyText(transport::KeyPair::generate().publicKey()));
  CHECK(h.failureOf([&]() { swapped.send().wait(h.ws); }).find("asks with another key than the one shown") !=
        std::string::npos);
  auto approve = op.approveAgentRequest();
  approve.setName("new-pc");
  approve.setExpectedKey(transport::keyText(key.publicKey()));
  CHECK(std::string(approve.send().wait(h.ws).getKey()) == transport::keyText(key.publicKey()));
  auto second = h.connect();
  h.loginAgent(second, "new-pc", received, &key).pingRequest().send().wait(h.ws);
  auto unknown = op.approveAgentRequest();
  unknown.setName("nobody");
  CHECK(h.failureOf([&]() { unknown.send().wait(h.ws); }).find("no agent named nobody is waiting") !=
        std::string::npos);
}

TEST_CASE("a read-only operator sees status and operations, and is refused every change, logged") {
  Harness h;
  auto link = h.connect();
  auto reader = h.keys.loginReader(link.gate).wait(h.ws);
  reader.statusRequest().send().wait(h.ws);
  auto ops = reader.operationsRequest();
  ops.setLimit(5);
  ops.send().wait(h.ws);
  std::string log = logOf([&] {
    auto send = reader.sendRequest();
    send.initRequest().setPath("/srv/image.iso");
    CHECK(h.failureOf([&]() { send.send().wait(h.ws); }).find("read-only rights") != std::string::npos);
    auto run = reader.runRequest();
    CHECK(h.failureOf([&]() { run.send().wait(h.ws); }).find("read-only rights") != std::string::npos);
    auto token = reader.agentTokenRequest();
    token.setTtlS(60);
    CHECK(h.failureOf([&]() { token.send().wait(h.ws); }).find("read-only rights") != std::string::npos);
    auto revoke = reader.revokeAgentRequest();
    revoke.setName("a1");
    CHECK(h.failureOf([&]() { revoke.send().wait(h.ws); }).find("read-only rights") != std::string::npos);
    auto rates = reader.setEmulatedRatesRequest();
    rates.setName("a1");
    CHECK(h.failureOf([&]() { rates.send().wait(h.ws); }).find("read-only rights") != std::string::npos);
    auto cancel = reader.cancelRequest();
    cancel.setOperation(1);
    CHECK(h.failureOf([&]() { cancel.send().wait(h.ws); }).find("read-only rights") != std::string::npos);
  });
  CHECK(log.find("may not cancel an operation") != std::string::npos);
  CHECK(log.find("refused operator reader (read-only) from in-memory: may not start a send") != std::string::npos);
  CHECK(log.find("may not start a run") != std::string::npos);
  CHECK(log.find("may not make an enrollment token") != std::string::npos);
}

TEST_CASE("a full operator's cancel of an operation not under way is refused with what its record says") {
  Harness h;
  auto link = h.connect();
  auto op = h.keys.loginOperator(link.gate).wait(h.ws);
  const daemon::OperationId done = h.coordinator.operationLog().begin("send", "{}").value();
  REQUIRE(h.coordinator.operationLog().finish(done, "done", "{}"));
  auto cancel = op.cancelRequest();
  cancel.setOperation(static_cast<std::uint64_t>(done));
  CHECK(h.failureOf([&]() { cancel.send().wait(h.ws); }).find("operation " + std::to_string(done) +
                                                              " is done; nothing to cancel") != std::string::npos);
  auto unknown = op.cancelRequest();
  unknown.setOperation(static_cast<std::uint64_t>(done) + 40);
  CHECK(h.failureOf([&]() { unknown.send().wait(h.ws); }).find("no operation " + std::to_string(done + 40)) != std::string::npos);
}

TEST_CASE("while hnowd keeps the shared secret, an agent proving it enrolls its key under a free name only") {
  Harness h;
  transport::Secret secret("0123456789abcdef0123456789abcdef");
  h.keys.trust.sharedSecret = &secret;
  h.keys.agentKey("taken");
  transport::KeyPair key = transport::KeyPair::generate();
  Received received;
  auto login = [&](Harness::Link& link, const std::string& name, const transport::Secret& proofSecret) {
    // Without a key to trust, the agent learns hnowd's from the secret's proof, which covers it.
    auto opening = transport::openGate(link.gate, std::nullopt, &proofSecret).wait(h.ws);
    CHECK(opening.coordinator == h.keys.hnowdKey.publicKey());
    auto request = link.gate.loginAgentKeyRequest();
    h.keys.signAgent(request, name, key, opening.nonce);
    request.getCredential().setSecretProof(
        transport::dataOf(transport::makeProof(proofSecret, Role::kAgent, name, opening.nonce)));
    request.setControl(kj::heap<RecordingControl>(received));
    return request.send().wait(h.ws).getSession();
  };
  auto taken = h.connect();
  CHECK(h.failureOf([&]() { login(taken, "taken", secret); }).find("enrolled with another key") != std::string::npos);
  auto free = h.connect();
  login(free, "old-pc", secret).pingRequest().send().wait(h.ws);
  CHECK(h.keys.agentKeys.check("old-pc", transport::keyText(key.publicKey())) == daemon::AgentKeys::Verdict::kBound);
  // Another secret does not even get hnowd's key past the agent's check.
  transport::Secret wrong("fedcba9876543210fedcba9876543210");
  auto wrongLink = h.connect();
  CHECK(h.failureOf([&]() { transport::openGate(wrongLink.gate, std::nullopt, &wrong).wait(h.ws); })
            .find("does not know our shared secret") != std::string::npos);
  // Once the secret is gone from hnowd's config, it enrolls no one.
  h.keys.trust.sharedSecret = nullptr;
  transport::KeyPair late = transport::KeyPair::generate();
  auto after = h.connect();
  auto opening = transport::openGate(after.gate, h.keys.hnowdKey.publicKey()).wait(h.ws);
  auto request = after.gate.loginAgentKeyRequest();
  h.keys.signAgent(request, "late-pc", late, opening.nonce);
  request.getCredential().setSecretProof(
      transport::dataOf(transport::makeProof(secret, Role::kAgent, "late-pc", opening.nonce)));
  CHECK(h.failureOf([&]() { request.send().wait(h.ws); }).find("no longer keeps") != std::string::npos);
}

TEST_CASE("revoking an agent closes its connection at once and its key is refused when it reconnects") {
  ControlServerHarness h({});
  const transport::KeyPair& key = h.keys.agentKey("a1");
  Received received;
  auto agentLogin = [&](ControlServerHarness::Peer& peer) {
    auto opening = h.within(transport::openGate(peer.gate, h.keys.hnowdKey.publicKey()));
    auto request = peer.gate.loginAgentKeyRequest();
    h.keys.signAgent(request, "a1", key, opening.nonce);
    request.setControl(kj::heap<RecordingControl>(received));
    return request.send().then([](auto response) { return response.getSession(); });
  };
  auto agent = h.connect();
  wire::AgentSession::Client session = h.within(agentLogin(agent));
  h.within(session.pingRequest().send());
  auto opPeer = h.connect();
  auto op = h.within(h.keys.loginOperator(opPeer.gate));
  std::string log = logOf([&] {
    auto revoke = op.revokeAgentRequest();
    revoke.setName("a1");
    CHECK(h.within(revoke.send()).getClosed() == 1);
    CHECK_FALSE(h.failureOf(session.pingRequest().send()).empty());  // its connection is gone
    auto again = h.connect();
    CHECK(h.failureOf(agentLogin(again)).find("revoked") != std::string::npos);
  });
  CHECK(log.find("revoked agent a1") != std::string::npos);
  CHECK(log.find("refused agent login as a1 from 127.0.0.1:") != std::string::npos);
  CHECK(log.find("its key was revoked") != std::string::npos);
  // Revoked for good: a restarted hnowd reads it back.
  daemon::AgentKeys reloaded(h.keys.keyStore);
  REQUIRE(reloaded.load({{"a1", transport::keyText(key.publicKey())}}).ok());
  CHECK(reloaded.check("a1", transport::keyText(key.publicKey())) == daemon::AgentKeys::Verdict::kRevoked);
}

TEST_CASE("a name that is not plain is refused for a token and for a login, as configs refuse it") {
  Harness h;
  auto opLink = h.connect();
  auto op = h.keys.loginOperator(opLink.gate).wait(h.ws);
  auto token = op.agentTokenRequest();
  token.setName("../etc");
  token.setTtlS(60);
  CHECK(h.failureOf([&]() { token.send().wait(h.ws); }).find("--name must be 1 to 64 letters") != std::string::npos);
  transport::KeyPair key = transport::KeyPair::generate();
  Received received;
  auto link = h.connect();
  CHECK(h.failureOf([&]() { h.loginAgent(link, "pc 7\n", received, &key); }).find("an agent's name must be") !=
        std::string::npos);
  CHECK(h.keys.agentKeys.list(WallTime{}).empty());  // not even pending
}
