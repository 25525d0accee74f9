#include "server/gate_server.h"

#include <kj/debug.h>
#include <spdlog/spdlog.h>

#include "base/hex.h"
#include "base/host_key.h"
#include "base/log_context.h"
#include "base/peer_slots.h"
#include "base/printable.h"
#include "conf/trust_config.h"
#include "server/sessions.h"
#include "transport/gate_client.h"
#include "transport/identity.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

using transport::Role;

namespace {

// An agent's networks for the log, where an operator checks what hnowd
// will group it by; its own text, so made printable.
std::string networksText(const std::vector<std::string>& networks) {
  if (networks.empty()) return "none";
  std::string out;
  for (const std::string& n : networks) out += (out.empty() ? "" : " ") + printable(n);
  return out;
}

}  // namespace

GateServer::GateServer(Coordinator& coordinator, const Trust& trust, kj::TaskSet& tasks, std::string peer,
                       kj::Maybe<kj::Own<kj::PromiseFulfiller<void>>> loggedIn, Services services,
                       kj::Maybe<kj::Own<kj::PromiseFulfiller<void>>> cut, ChallengeBudget budget)
    : coordinator_(coordinator), trust_(trust), tasks_(tasks), peer_(std::move(peer)), services_(services),
      onLogin_(kj::mv(loggedIn)), cut_(kj::mv(cut)), budget_(std::move(budget)) {}

capnp::Capability::Server::DispatchCallResult GateServer::dispatchCall(
    uint64_t interfaceId, uint16_t methodId, capnp::CallContext<capnp::AnyPointer, capnp::AnyPointer> context) {
  LogScope scope(LogFields{0, {}, peer_});
  return wire::Gate::Server::dispatchCall(interfaceId, methodId, context);
}

GateServer::~GateServer() {
  // A connection that never asked for a challenge is an idle one: closed at
  // the deadline or to make room, which the control server logs, a flood's
  // worth at a time.
  if (challenged_ && !loggedIn_ && !shut_)
    spdlog::warn("connection from {} closed without logging in (a peer that does not trust hnowd's key?)",
                 peer_);
}

kj::Promise<void> GateServer::challenge(ChallengeContext context) {
  KJ_REQUIRE(!shut_, "authentication failed earlier on this connection");
  transport::Bytes peerNonce = transport::bytesOf(context.getParams().getPeerNonce());
  KJ_REQUIRE(peerNonce.size() == transport::kNonceBytes, "a nonce must be 32 bytes");
  // Signing costs hnowd work a peer asks for before proving anything.
  if (budget_ && !budget_())
    transport::refuse("hnowd is answering too many login challenges from your address: try again in a second");
  nonce_ = transport::freshNonce();
  challenged_ = true;
  auto results = context.getResults();
  results.setNonce(transport::dataOf(*nonce_));
  const transport::KeyPair& key = *trust_.hnowdKey;
  transport::Bytes publicKey(key.publicKey().begin(), key.publicKey().end());
  results.setCoordinatorKey(transport::dataOf(publicKey));
  results.setCoordinatorSignature(
      transport::dataOf(transport::signLogin(key, Role::kCoordinator, "", peerNonce)));
  if (trust_.sharedSecret)
    results.setCoordinatorProof(transport::dataOf(transport::makeProof(
        *trust_.sharedSecret, Role::kCoordinator, transport::keyText(key.publicKey()), peerNonce)));
  return kj::READY_NOW;
}

transport::Bytes GateServer::takeNonce() {
  KJ_REQUIRE(!shut_, "authentication failed earlier on this connection");
  std::optional<transport::Bytes> nonce = std::move(nonce_);
  nonce_.reset();
  KJ_REQUIRE(nonce.has_value(), "ask for a challenge before logging in");
  return *nonce;
}

void GateServer::refuseLogin(const std::string& who, const std::string& why) {
  shut_ = true;
  spdlog::warn("refused {} from {}: {}", who, peer_, why);
  transport::refuse("login refused: " + why);
}

void GateServer::loggedIn() {
  loggedIn_ = true;
  KJ_IF_MAYBE(fulfiller, onLogin_) {
    (*fulfiller)->fulfill();
    onLogin_ = nullptr;
  }
}

kj::Promise<void> GateServer::loginAgent(LoginAgentContext context) {
  refuseLogin("an agent login as " + std::string(context.getParams().getRegistration().getName()),
              "it proves only the shared secret, which hnowd no longer takes as a login: this hnow-agent is "
              "older than hnowd; upgrade it (docs/security.md, \"Moving from the shared secret\")");
}

kj::Promise<void> GateServer::loginClient(LoginClientContext) {
  refuseLogin("a client login",
              "the shared secret no longer opens a client session: make an operator key with `hnow key new "
              "FILE`, list it under [[operators]] in hnowd's config, and name it in the client config "
              "(docs/security.md, \"Moving from the shared secret\")");
}

kj::Promise<void> GateServer::loginOperator(LoginOperatorContext context) {
  transport::Bytes nonce = takeNonce();
  auto params = context.getParams();
  std::string name = params.getName();
  const std::string who = "operator login as " + name;
  const OperatorEntry* entry = trust_.findOperator(name);
  if (!entry) refuseLogin(who, "no operator of that name is listed under [[operators]] in hnowd's config");
  if (!transport::verifyLogin(entry->key, Role::kClient, name, nonce, transport::bytesOf(params.getSignature())))
    refuseLogin(who, "its signature does not answer this connection's challenge with the key listed for " + name +
                         " (another key, or a signature replayed from another connection)");
  loggedIn();
  spdlog::debug("operator {} ({}) logged in from {}", name, entry->readOnly ? "read-only" : "full rights", peer_);
  KJ_IF_MAYBE(cut, cut_) {  // a reload that withdraws the operator closes this connection
    if (trust_.cuts) trust_.cuts->add(SessionCuts::ofOperator(name), kj::mv(*cut));
    cut_ = nullptr;
  }
  auto results = context.getResults();
  results.setSession(kj::heap<ClientSessionServer>(coordinator_, services_, peer_,
                                                   Operator{name, entry->readOnly, trust_.agents, trust_.cuts,
                                                            trust_.hnowdKey, trust_.clock, trust_.keyHosts}));
  results.setReadOnly(entry->readOnly);
  return kj::READY_NOW;
}

void GateServer::admitAgent(const std::string& name, wire::AgentCredential::Reader credential,
                            const transport::Bytes& nonce) {
  const std::string who = "agent login as " + name;
  transport::Bytes keyBytes = transport::bytesOf(credential.getKey());
  if (keyBytes.size() != transport::kPublicKeyBytes) refuseLogin(who, "its key is not an Ed25519 public key");
  transport::PublicKey key{};
  std::copy(keyBytes.begin(), keyBytes.end(), key.begin());
  // The key is proven first: nothing below is asked of a peer that does not hold it.
  if (!transport::verifyLogin(key, Role::kAgent, name, nonce, transport::bytesOf(credential.getSignature())))
    refuseLogin(who, "its signature does not answer this connection's challenge with the key it presents");
  AgentKeys& agents = *trust_.agents;
  const std::string keyText = transport::keyText(key);
  const WallTime now = trust_.clock->wallNow();
  AgentKeys::Verdict verdict = agents.check(name, keyText);
  if (verdict == AgentKeys::Verdict::kBound) return;
  if (verdict == AgentKeys::Verdict::kRevoked || verdict == AgentKeys::Verdict::kOtherKey)
    refuseLogin(who, agents.why(verdict, name) + " (key " + transport::keyShort(key) + ")");

  transport::Bytes tokenId = transport::bytesOf(credential.getTokenId());
  transport::Bytes secretProof = transport::bytesOf(credential.getSecretProof());
  std::string how, id;
  if (!tokenId.empty()) {
    if (tokenId.size() != 8) refuseLogin(who, "its enrollment token id is not 8 bytes");
    id = hexOf(tokenId.data(), tokenId.size());
    auto secretHex = agents.tokenSecret(id, name, now);
    if (!secretHex) refuseLogin(who, secretHex.error().message);
    std::array<std::uint8_t, 32> secret{};
    if (!bytesOfHex(*secretHex, secret.data(), secret.size()))
      refuseLogin(who, "the enrollment token " + id + " is damaged in hnowd's state.db: make a new one");
    if (!transport::checkEnrollProof(secret, name, key, nonce, transport::bytesOf(credential.getTokenProof())))
      refuseLogin(who, "its proof of the enrollment token " + id + " is wrong (a token copied wrong or forged)");
    how = "token";
  } else if (!secretProof.empty()) {
    if (!trust_.sharedSecret || !transport::checkProof(*trust_.sharedSecret, Role::kAgent, name, nonce, secretProof))
      refuseLogin(who, trust_.sharedSecret ? "its proof of the shared secret is wrong"
                                           : "it offers the shared secret, which hnowd no longer keeps: enroll it "
                                             "with a token (`hnow agent token --name " + name + "`)");
    how = "secret";
  } else {
    agents.askPending(name, keyText, peer_, now);
    refuseLogin(who, agents.why(verdict, name) + " (key " + transport::keyShort(key) +
                         ", now waiting for approval)");
  }
  auto enrolled = agents.enroll(name, keyText, how, id, now);
  if (!enrolled) refuseLogin(who, enrolled.error().message);
  spdlog::info("enrolled agent {} with key {} ({}) from {}", name, transport::keyShort(key),
               how == "token" ? "token " + id : std::string("the shared secret"), peer_);
}

void GateServer::watchHosts(const std::string& name) {
  if (!trust_.keyHosts || !trust_.clock) return;
  const std::string host = addressOf(peer_);
  auto flag = trust_.keyHosts->loggedIn(name, host, trust_.clock->now());
  // Raised, then every 10th change: the turns can come every few seconds.
  if (!flag || (!flag->raised && flag->changes % 10 != 0)) return;
  const std::string& other = flag->host == host ? flag->otherHost : flag->host;
  spdlog::warn("agent {} logged in from {} and from {} by turns ({} changes of host within minutes, the latest "
               "now): its key is used on two machines? If one is not {}'s, revoke it (hnow agent revoke {}) and "
               "enroll the agent anew; if both are, hnow agent ack {}",
               name, host, other, flag->changes, name, name, name);
}

kj::Promise<void> GateServer::loginAgentKey(LoginAgentKeyContext context) {
  transport::Bytes nonce = takeNonce();
  auto params = context.getParams();
  auto wireRegistration = params.getRegistration();
  AgentRegistration registration;
  registration.name = wireRegistration.getName();
  // Names appear in logs, the status table and state.db: plain ones only, as configs require.
  if (!conf::plainName(registration.name))
    refuseLogin("an agent login", "an agent's name must be 1 to 64 letters, digits, '.', '_' or '-'");
  // Sends, surveys and reports name hnowd's own node so.
  if (registration.name == kCoordinatorNode)
    refuseLogin("an agent login as hnowd", "the agent name 'hnowd' is hnowd's own; choose another");
  admitAgent(registration.name, params.getCredential(), nonce);
  registration.site = wireRegistration.getSite();
  // Sites go into the log, the status table and manifests' `to`: a newline
  // there would forge a log line or break the table. None at all is taken
  // as before (agents always send their config's; tools may not).
  if (!registration.site.empty() && !conf::plainSite(registration.site))
    refuseLogin("agent login as " + registration.name, conf::kSiteRule);
  loggedIn();
  registration.dataAddress = wireRegistration.getDataAddress();
  for (auto c : wireRegistration.getCapabilities()) registration.capabilities.emplace_back(c);
  for (auto r : wireRegistration.getRoots()) registration.roots.emplace_back(r);
  for (auto n : wireRegistration.getNetworks()) registration.networks.emplace_back(n);
  registration.gateway = wireRegistration.getGateway();
  // Only grouping depends on it: anything but a plain key is no key.
  if (plainHostKey(wireRegistration.getHost().cStr())) registration.host = wireRegistration.getHost();
  registration.keptInstance = wireRegistration.getKeptInstance();

  spdlog::info("agent {} (site {}) registered from {}, networks {}, gateway {}", registration.name,
               registration.site, peer_, networksText(registration.networks),
               registration.gateway.empty() ? "none" : printable(registration.gateway));
  watchHosts(registration.name);
  const std::string name = registration.name;
  KJ_IF_MAYBE(cut, cut_) {
    if (trust_.cuts) trust_.cuts->add(name, kj::mv(*cut));
    cut_ = nullptr;
  }
  SessionId session = coordinator_.attach(
      std::move(registration), makeRpcAgentLink(params.getControl(), tasks_, name));
  context.getResults().setSession(kj::heap<AgentSessionServer>(coordinator_, session, name, peer_));
  context.getResults().setInstance(coordinator_.instance());
  return kj::READY_NOW;
}

}  // namespace hnow::daemon
