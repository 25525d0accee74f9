// One agent's key used from two hosts by turns, through hnowd's real gate
// and sessions over in-memory pipes (core/trust/key_hosts.h): warned in the log,
// flagged in status until an operator acknowledges it or revokes the key.
#include <doctest/doctest.h>

#include "daemon/server/captured_log.h"
#include "daemon/server/gate_harness.h"

using namespace hnow;
using namespace hnow::testing;

namespace {

// The key hosts an operator's status shows for `agent`: "" when none.
std::string flagOf(Harness& h, wire::ClientSession::Client& op, const std::string& agent) {
  auto status = op.statusRequest().send().wait(h.ws);
  for (auto a : status.getAgents())
    if (a.getName() == agent && a.getKeyHosts().size() == 2)
      return std::string(a.getKeyHosts()[0].cStr()) + " " + a.getKeyHosts()[1].cStr() + " " +
             std::to_string(a.getKeyHostsChanges());
  return "";
}

}  // namespace

TEST_CASE("an agent key logging in from two hosts by turns is warned of and flagged in status until acknowledged or revoked") {
  Harness h;
  Received received;
  auto opLink = h.connect("10.0.0.1:40000");
  auto op = h.keys.loginOperator(opLink.gate).wait(h.ws);
  std::vector<Harness::Link> links;
  std::vector<wire::AgentSession::Client> sessions;
  auto loginFrom = [&](const std::string& agent, const std::string& peer) {
    links.push_back(h.connect(peer));
    sessions.push_back(h.loginAgent(links.back(), agent, received));
  };

  // The agent's machine, a new address of it (no flag: a machine moves), then
  // the first address again while the second still logs in: two machines.
  loginFrom("a1", "10.0.0.5:4000");
  loginFrom("a1", "10.0.0.9:5000");
  CHECK(flagOf(h, op, "a1") == "");
  std::string log = logOf([&]() { loginFrom("a1", "10.0.0.5:4001"); });
  CHECK(log.find("agent a1 logged in from 10.0.0.5 and from 10.0.0.9 by turns (2 changes of host within minutes, "
                 "the latest now): its key is used on two machines? If one is not a1's, revoke it (hnow agent "
                 "revoke a1) and enroll the agent anew; if both are, hnow agent ack a1") != std::string::npos);
  CHECK(flagOf(h, op, "a1") == "10.0.0.5 10.0.0.9 2");
  loginFrom("a1", "10.0.0.9:5001");
  CHECK(flagOf(h, op, "a1") == "10.0.0.5 10.0.0.9 3");

  // A read-only operator sees it and may not clear it; a full one may.
  auto readerLink = h.connect("10.0.0.2:40000");
  auto reader = h.keys.loginReader(readerLink.gate).wait(h.ws);
  CHECK(flagOf(h, reader, "a1") == "10.0.0.5 10.0.0.9 3");
  auto refused = reader.acknowledgeAgentRequest();
  refused.setName("a1");
  CHECK(h.failureOf([&]() { refused.send().wait(h.ws); }).find("read-only rights") != std::string::npos);
  auto ack = op.acknowledgeAgentRequest();
  ack.setName("a1");
  auto acked = ack.send().wait(h.ws);
  CHECK(acked.getHosts().size() == 2);
  CHECK(flagOf(h, op, "a1") == "");
  loginFrom("a1", "10.0.0.5:4002");  // the same two machines: known now
  CHECK(flagOf(h, op, "a1") == "");
  auto again = op.acknowledgeAgentRequest();
  again.setName("a1");
  CHECK(h.failureOf([&]() { again.send().wait(h.ws); }) ==
        "agent a1 is not flagged: its key has not logged in from two hosts by turns lately");

  // Revoking the key clears its flag (and refuses it from then on).
  loginFrom("a2", "10.0.0.6:4000");
  loginFrom("a2", "10.0.0.8:4000");
  loginFrom("a2", "10.0.0.6:4001");
  CHECK(flagOf(h, op, "a2") == "10.0.0.6 10.0.0.8 2");
  auto revoke = op.revokeAgentRequest();
  revoke.setName("a2");
  revoke.send().wait(h.ws);
  CHECK(flagOf(h, op, "a2") == "");

  // An hour after its last change a flag is no longer shown.
  loginFrom("a3", "10.0.0.7:4000");
  loginFrom("a3", "10.0.0.8:4001");
  loginFrom("a3", "10.0.0.7:4002");
  CHECK(flagOf(h, op, "a3") == "10.0.0.7 10.0.0.8 2");
  h.clock.advance(std::chrono::minutes(61));
  CHECK(flagOf(h, op, "a3") == "");
}
