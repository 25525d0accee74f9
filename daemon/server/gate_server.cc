#include "server/gate_server.h"

#include <kj/debug.h>
#include <spdlog/spdlog.h>

#include "server/sessions.h"
#include "transport/gate_client.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

using transport::Role;

GateServer::GateServer(Coordinator& coordinator, const transport::Secret& secret,
                       kj::TaskSet& tasks, std::string peer,
                       kj::Maybe<kj::Own<kj::PromiseFulfiller<void>>> loggedIn, Services services)
    : coordinator_(coordinator), secret_(secret), tasks_(tasks), peer_(std::move(peer)), services_(services),
      onLogin_(kj::mv(loggedIn)) {}

GateServer::~GateServer() {
  if (!loggedIn_ && !shut_)
    spdlog::warn("connection from {} closed without logging in (a peer with a different secret?)",
                 peer_);
}

kj::Promise<void> GateServer::challenge(ChallengeContext context) {
  KJ_REQUIRE(!shut_, "authentication failed earlier on this connection");
  transport::Bytes peerNonce = transport::bytesOf(context.getParams().getPeerNonce());
  KJ_REQUIRE(peerNonce.size() == transport::kNonceBytes, "a nonce must be 32 bytes");
  nonce_ = transport::freshNonce();
  auto results = context.getResults();
  results.setNonce(transport::dataOf(*nonce_));
  results.setCoordinatorProof(
      transport::dataOf(transport::makeProof(secret_, Role::kCoordinator, "", peerNonce)));
  return kj::READY_NOW;
}

void GateServer::requireProof(Role role, const std::string& name, capnp::Data::Reader proof) {
  KJ_REQUIRE(!shut_, "authentication failed earlier on this connection");
  std::optional<transport::Bytes> nonce = std::move(nonce_);
  nonce_.reset();
  KJ_REQUIRE(nonce.has_value(), "ask for a challenge before logging in");
  if (!transport::checkProof(secret_, role, name, *nonce, transport::bytesOf(proof))) {
    shut_ = true;
    // One message for both: a proof made with another secret and one replayed
    // from another connection (over another nonce) look the same here.
    spdlog::warn("refused {} login{}{} from {}: its proof does not answer this connection's challenge "
                 "(a wrong secret, or a proof replayed from another connection)",
                 role == Role::kAgent ? "agent" : "client", name.empty() ? "" : " as ", name, peer_);
    transport::refuse("authentication refused: wrong secret");
  }
  loggedIn_ = true;
  KJ_IF_MAYBE(fulfiller, onLogin_) {
    (*fulfiller)->fulfill();
    onLogin_ = nullptr;
  }
}

kj::Promise<void> GateServer::loginAgent(LoginAgentContext context) {
  auto params = context.getParams();
  auto wireRegistration = params.getRegistration();
  AgentRegistration registration;
  registration.name = wireRegistration.getName();
  requireProof(Role::kAgent, registration.name, params.getProof());
  KJ_REQUIRE(!registration.name.empty(), "an agent needs a name");
  // Sends, surveys and reports name hnowd's own node so.
  KJ_REQUIRE(registration.name != kCoordinatorNode, "the agent name 'hnowd' is hnowd's own; choose another");
  registration.site = wireRegistration.getSite();
  registration.dataAddress = wireRegistration.getDataAddress();
  for (auto c : wireRegistration.getCapabilities()) registration.capabilities.emplace_back(c);
  for (auto r : wireRegistration.getRoots()) registration.roots.emplace_back(r);

  spdlog::info("agent {} (site {}) registered from {}", registration.name, registration.site, peer_);
  const std::string name = registration.name;
  SessionId session = coordinator_.attach(
      std::move(registration), makeRpcAgentLink(params.getControl(), tasks_, name));
  context.getResults().setSession(kj::heap<AgentSessionServer>(coordinator_, session, name));
  return kj::READY_NOW;
}

kj::Promise<void> GateServer::loginClient(LoginClientContext context) {
  requireProof(Role::kClient, "", context.getParams().getProof());
  spdlog::debug("client logged in from {}", peer_);
  context.getResults().setSession(kj::heap<ClientSessionServer>(coordinator_, services_, peer_));
  return kj::READY_NOW;
}

}  // namespace hnow::daemon
