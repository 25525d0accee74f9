// Sends when one of their agents logs in afresh (a new process: it
// restarted, or its machine did) while hnowd still holds its earlier
// session: its children move at once, and its copy is ordered again on the
// new session as soon as the agent calls on it, resuming from the bytes its
// new process kept. The clock never moves: nothing waits for a retry or a
// loss timeout.
#include <doctest/doctest.h>

#include "daemon/core/send_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::send_lab;

namespace {

const std::string kToken(32, 't');

// The agent feeding the most copies in `status`, over every stripe; "" none.
std::string relayOf(const SendStatus& status) {
  std::map<std::string, int> children;
  for (const CopyStatus& copy : status.copies) {
    if (copy.stripeParents.empty()) ++children[copy.parent];
    for (const std::string& parent : copy.stripeParents) ++children[parent];
  }
  children.erase("hnowd");
  std::string relay;
  for (const auto& [node, n] : children)
    if (relay.empty() || n > children[relay]) relay = node;
  return relay;
}

CopyStatus copyOf(const SendStatus& status, const std::string& node) {
  for (const CopyStatus& copy : status.copies)
    if (copy.node == node) return copy;
  FAIL("no copy at " << node);
  return {};
}

TransferReport progress(std::uint64_t bytes) {
  TransferReport r;
  r.bytes = bytes;
  return r;
}

// `name` logs in again through a link of its own that records into `fresh`,
// its data plane on another port, keeping the transfers of instance `kept`
// (0: nothing, a new process); then reports its caps on its new session,
// as an agent does at once once it has read its login's answer.
SessionId loginAgain(Lab& lab, const std::string& name, Agents& fresh, std::uint64_t kept = 0) {
  AgentRegistration r{name, "room", {"relay"}, name + ":9100", {"/srv"}};
  r.keptInstance = kept;
  const SessionId session = lab.coordinator.attach(r, std::make_unique<FakeAgent>(name, &fresh));
  REQUIRE(lab.coordinator.reportCaps(session, {}));
  return session;
}

std::string addressOf(const std::string& node) { return node == "hnowd" ? "hnowd:7000" : node + ":9000"; }

}  // namespace

TEST_CASE("an agent that logs in afresh while hnowd holds its session - its children move at once and its copy is ordered again on the new session, resuming, and the send completes") {
  Lab lab(5e7, 5e7);  // agents faster than hnowd's uplink: one of them relays
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  const std::string relay = relayOf(first);
  REQUIRE_FALSE(relay.empty());
  const std::string parent = copyOf(first, relay).parent;
  std::set<std::string> children;
  for (const CopyStatus& copy : first.copies)
    if (copy.parent == relay) children.insert(copy.node);
  REQUIRE(lab.coordinator.reportTransfer(lab.sessions[relay], kToken, progress(40 << 20)));
  lab.agents.pulls.clear();

  Agents fresh;
  AgentRegistration r{relay, "room", {"relay"}, relay + ":9100", {"/srv"}};
  const SessionId session = lab.coordinator.attach(r, std::make_unique<FakeAgent>(relay, &fresh));
  // Its loss is heard at once: its children move...
  std::set<std::string> moved;
  for (const std::string& pull : lab.agents.pulls) {
    moved.insert(pull.substr(0, pull.find("<-")));
    CHECK(pull.find("<-" + relay) == std::string::npos);
  }
  for (const std::string& child : children) CHECK(moved.count(child) == 1);
  SendStatus now = *lab.service.status(id);
  for (const CopyStatus& copy : now.copies) CHECK(copy.parent != relay);
  // ...but it is ordered nothing before it acts on its new session: an
  // order ahead of its login's answer would be dropped with what it held.
  CHECK(fresh.orders.empty());
  CHECK(lab.coordinator.heartbeat(session));
  // Ordered the same file again on its new session, and told to pull from its parent.
  REQUIRE(fresh.orders.size() == 1);
  CHECK(fresh.orders[0].token == kToken);
  CHECK(fresh.orders[0].dest == "in/image.iso");
  CHECK(fresh.orders[0].size == 64u << 20);
  CHECK(fresh.pulls == std::vector<std::string>{relay + "<-" + addressOf(parent)});
  CHECK(lab.coordinator.heartbeat(session));
  CHECK(fresh.orders.size() == 1);  // once
  now = *lab.service.status(id);
  CHECK_FALSE(now.finished);
  CHECK(copyOf(now, relay).state == CopyStatus::State::kReceiving);
  for (const CopyStatus& copy : now.copies) CHECK(copy.parent != relay);

  // Its new process kept less than the old one reported (a torn chunk).
  CHECK(lab.coordinator.reportTransfer(session, kToken, progress(30 << 20)));
  CHECK(copyOf(*lab.service.status(id), relay).bytes == 30u << 20);
  // The earlier session says nothing any more, and its end at last changes nothing.
  CHECK_FALSE(lab.coordinator.reportTransfer(lab.sessions[relay], kToken, progress(50 << 20)));
  lab.coordinator.detach(lab.sessions[relay]);
  CHECK(copyOf(*lab.service.status(id), relay).state == CopyStatus::State::kReceiving);

  for (const char* agent : {"a1", "a2", "a3"})
    CHECK(lab.coordinator.reportTransfer(agent == relay ? session : lab.sessions[agent], kToken, lab.done()));
  const SendStatus end = *lab.service.status(id);
  CHECK(end.finished);
  for (const CopyStatus& copy : end.copies) CHECK(copy.state == CopyStatus::State::kDone);
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].status == "done");
}

TEST_CASE("an agent that logs back in keeping its transfers for this hnowd is not ordered again - its copy and its children go on untouched") {
  Lab lab(5e7, 5e7);
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  const std::string relay = relayOf(first);
  REQUIRE_FALSE(relay.empty());
  lab.agents.pulls.clear();
  Agents fresh;
  const SessionId session = loginAgain(lab, relay, fresh, lab.coordinator.instance());
  CHECK(fresh.orders.empty());
  CHECK(fresh.pulls.empty());
  CHECK(lab.agents.pulls.empty());
  const SendStatus now = *lab.service.status(id);
  CHECK(now.parentChanges.empty());
  CHECK(copyOf(now, relay).state == CopyStatus::State::kReceiving);
  // It reports on its new session what it ran all along.
  CHECK(lab.coordinator.reportTransfer(session, kToken, progress(20 << 20)));
  CHECK(copyOf(*lab.service.status(id), relay).bytes == 20u << 20);
}

TEST_CASE("an agent whose loss hnowd saw, logging in afresh while the send waits for it - its copy is ordered again at once and completes") {
  Lab lab;
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  (void)first;
  lab.coordinator.reportTransfer(lab.sessions["a1"], kToken, lab.done());
  lab.coordinator.reportTransfer(lab.sessions["a2"], kToken, lab.done());
  lab.coordinator.detach(lab.sessions["a3"]);
  CHECK(copyOf(*lab.service.status(id), "a3").state == CopyStatus::State::kFailed);
  Agents fresh;
  const SessionId session = loginAgain(lab, "a3", fresh);
  REQUIRE(fresh.orders.size() == 1);
  REQUIRE(fresh.pulls.size() == 1);
  CHECK(copyOf(*lab.service.status(id), "a3").state == CopyStatus::State::kReceiving);
  CHECK(lab.coordinator.reportTransfer(session, kToken, lab.done()));
  const SendStatus end = *lab.service.status(id);
  CHECK(end.finished);
  CHECK(copyOf(end, "a3").state == CopyStatus::State::kDone);
}

TEST_CASE("an agent back afresh that refuses the order again fails its copy saying why, and the send ends without waiting for it") {
  Lab lab;
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  (void)first;
  lab.coordinator.reportTransfer(lab.sessions["a1"], kToken, lab.done());
  lab.coordinator.reportTransfer(lab.sessions["a2"], kToken, lab.done());
  Agents fresh;
  fresh.refusingOrders.insert("a3");
  loginAgain(lab, "a3", fresh);
  CHECK(fresh.orders.size() == 1);
  CHECK(fresh.pulls.empty());
  const SendStatus end = *lab.service.status(id);
  CHECK(end.finished);  // no clock advance: it does not wait the while a lost agent gets to come back
  const CopyStatus copy = copyOf(end, "a3");
  CHECK(copy.state == CopyStatus::State::kFailed);
  CHECK(copy.message == "agent lost; logged in again, it refused the send: no space left on device");
  CHECK(lab.coordinator.operations(1).value()[0].status == "failed");
}

TEST_CASE("an agent back afresh after its send ended is ordered nothing") {
  Lab lab;
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  for (const char* agent : {"a1", "a2", "a3"}) lab.coordinator.reportTransfer(lab.sessions[agent], kToken, lab.done());
  REQUIRE(lab.service.status(answer->first)->finished);
  Agents fresh;
  loginAgain(lab, "a2", fresh);
  CHECK(fresh.orders.empty());
  CHECK(fresh.pulls.empty());
}

TEST_CASE("a striped send's agent back afresh is ordered every stripe again and pulls each, its children moved in every stripe") {
  Lab lab(2e6, 5e7);
  SendRequest request = lab.toAll();
  request.algo = "striped";
  auto answer = started(lab, request);
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  const std::string relay = relayOf(first);
  REQUIRE_FALSE(relay.empty());
  const std::size_t stripes = lab.agents.orders.front().stripes.size();
  REQUIRE(stripes > 1);
  Agents fresh;
  loginAgain(lab, relay, fresh);
  REQUIRE(fresh.orders.size() == 1);
  CHECK(fresh.orders[0].stripes.size() == stripes);
  std::set<std::string> tokens;
  for (const auto& [agent, token] : fresh.pulledTokens) {
    CHECK(agent == relay);
    tokens.insert(token);
  }
  CHECK(tokens.size() == stripes);  // one pull per stripe
  const SendStatus now = *lab.service.status(id);
  CHECK(copyOf(now, relay).state == CopyStatus::State::kReceiving);
  for (const CopyStatus& copy : now.copies)
    for (const std::string& parent : copy.stripeParents) CHECK(parent != relay);
}
