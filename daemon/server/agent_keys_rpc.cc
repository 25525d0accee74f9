// The agent key commands of a client session (`hnow agent token | revoke |
// approve | keys`) and the rights check every session call makes
// (docs/security.md, "Roles").
#include <spdlog/spdlog.h>

#include <cmath>

#include "base/hex.h"
#include "conf/trust_config.h"
#include "server/sessions.h"
#include "transport/identity.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

void ClientSessionServer::requireFull(const char* what) const {
  if (!operator_.readOnly) return;
  spdlog::warn("refused operator {} (read-only) from {}: may not {}", operator_.name, peer_, what);
  transport::refuse("refused: operator " + operator_.name + " has read-only rights (status, operations and "
                    "progress); to " + what + ", use an operator listed with rights = \"full\"");
}

namespace {

AgentKeys& keysOf(const Operator& op) {
  if (!op.agents || !op.hnowdKey || !op.clock) transport::refuse("this hnowd keeps no agent keys");
  return *op.agents;
}

}  // namespace

kj::Promise<void> ClientSessionServer::agentToken(AgentTokenContext context) {
  requireFull("make an enrollment token");
  AgentKeys& keys = keysOf(operator_);
  auto params = context.getParams();
  std::string name = params.getName();
  double ttl = params.getTtlS();
  if (!(ttl > 0) || !std::isfinite(ttl) || ttl > kMaxTokenSeconds)
    transport::refuse("--ttl must be more than 0 and at most 7 days");
  if (name == kCoordinatorNode) transport::refuse("the agent name 'hnowd' is hnowd's own; choose another");
  if (!name.empty() && !conf::plainName(name))
    transport::refuse("--name must be 1 to 64 letters, digits, '.', '_' or '-', not '" + name.substr(0, 80) + "'");
  transport::EnrollToken token;
  transport::Bytes random = transport::freshNonce();  // 32 random bytes, twice
  transport::Bytes more = transport::freshNonce();
  std::copy(random.begin(), random.begin() + token.id.size(), token.id.begin());
  std::copy(more.begin(), more.end(), token.secret.begin());
  token.coordinator = operator_.hnowdKey->publicKey();
  const WallTime now = operator_.clock->wallNow();
  StoredToken stored;
  stored.id = transport::tokenIdText(token.id);
  stored.secret = hexOf(token.secret.data(), token.secret.size());
  stored.name = name;
  stored.madeBy = operator_.name;
  stored.made = now;
  stored.expires = now + std::chrono::duration_cast<Duration>(std::chrono::duration<double>(ttl));
  auto added = keys.addToken(stored);
  if (!added) transport::refuse("cannot keep the token: " + added.error().message);
  spdlog::info("operator {} made enrollment token {} for {}, valid {:.0f} s", operator_.name, stored.id,
               name.empty() ? std::string("any free name") : "agent " + name, ttl);
  context.getResults().setToken(transport::tokenText(token));
  context.getResults().setExpiresInS(ttl);
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::revokeAgent(RevokeAgentContext context) {
  requireFull("revoke an agent");
  AgentKeys& keys = keysOf(operator_);
  std::string name = context.getParams().getName();
  auto key = keys.revoke(name, operator_.clock->wallNow());
  if (!key) transport::refuse(key.error().message);
  unsigned closed = operator_.cuts ? operator_.cuts->cut(name) : 0;
  if (operator_.keyHosts) operator_.keyHosts->forget(name);  // its logins by host, with the key
  spdlog::warn("operator {} revoked agent {} (key {}): {} session{} closed", operator_.name, name,
               key->substr(8, 12), closed, closed == 1 ? "" : "s");
  context.getResults().setClosed(closed);
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::acknowledgeAgent(AcknowledgeAgentContext context) {
  requireFull("acknowledge an agent's flag");
  std::string name = context.getParams().getName();
  auto flag = operator_.keyHosts && operator_.clock ? operator_.keyHosts->shown(name, operator_.clock->now())
                                                    : std::nullopt;
  if (!flag || !operator_.keyHosts->acknowledge(name, operator_.clock->now()))
    transport::refuse("agent " + name.substr(0, 80) + " is not flagged: its key has not logged in from two hosts by "
                      "turns lately");
  spdlog::info("operator {} acknowledged that agent {} logs in from {} and from {} by turns", operator_.name, name,
               flag->host, flag->otherHost);
  auto hosts = context.getResults().initHosts(2);
  hosts.set(0, flag->host);
  hosts.set(1, flag->otherHost);
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::approveAgent(ApproveAgentContext context) {
  requireFull("approve an agent");
  AgentKeys& keys = keysOf(operator_);
  std::string name = context.getParams().getName();
  auto key = keys.approve(name, operator_.clock->wallNow(), context.getParams().getExpectedKey());
  if (!key) transport::refuse(key.error().message);
  spdlog::info("operator {} approved agent {} with key {}", operator_.name, name, key->substr(8, 12));
  context.getResults().setKey(*key);
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::agentKeys(AgentKeysContext context) {
  AgentKeys& keys = keysOf(operator_);
  const WallTime now = operator_.clock->wallNow();
  auto views = keys.list(now);
  auto out = context.getResults().initKeys(static_cast<unsigned>(views.size()));
  for (unsigned i = 0; i < views.size(); ++i) {
    const AgentKeyView& v = views[i];
    out[i].setName(v.name);
    out[i].setKey(v.key);
    out[i].setState(v.state);
    out[i].setHow(v.how);
    out[i].setAgeS(v.at == WallTime{} ? -1.0 : seconds(now - v.at));
    out[i].setPeer(v.peer);
    if (v.expires != WallTime{}) out[i].setExpiresInS(seconds(v.expires - now));
  }
  return kj::READY_NOW;
}

}  // namespace hnow::daemon
