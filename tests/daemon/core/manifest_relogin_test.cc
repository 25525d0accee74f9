// A manifest's destination that logs in afresh (a new process: it
// restarted, or its machine did) while an item waits for its copy: each
// such item orders the copy again on the new session as soon as the agent
// calls on it, and the copy resumes there (core/send/order_again.h, as for
// a single send). The clock never moves: nothing waits out the 5 s a lost
// copy is given to come back.
#include <doctest/doctest.h>

#include <algorithm>

#include "daemon/core/manifest_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::manifest_lab;

namespace {

CopyStatus copyOf(const ManifestStatus& status, std::size_t item, const std::string& node) {
  for (const CopyStatus& copy : status.items.at(item).send.copies)
    if (copy.node == node) return copy;
  FAIL("no copy at " << node);
  return {};
}

}  // namespace

TEST_CASE("a manifest's destination that logs in afresh while its items wait for its copies is ordered each item again on its new session, and the manifest completes") {
  Lab lab;
  ManifestService service(lab.coordinator, lab.clock, 128 << 10, lab.tokens());
  const auto [id, first] = startedOk(service, lab.twoItems());
  std::vector<std::string> tokens;
  for (const auto& [agent, token] : lab.commands.receives)
    if (std::find(tokens.begin(), tokens.end(), token) == tokens.end()) tokens.push_back(token);
  REQUIRE(tokens.size() == 2);
  // Every copy but a3's (a destination of both items) lands.
  for (const auto& [agent, session] : lab.sessions)
    if (agent != "a3")
      for (const std::string& token : tokens) lab.coordinator.reportTransfer(session, token, lab.done());

  Commands fresh;
  AgentRegistration again{"a3", "room", {"relay"}, "a3:9100", {"/srv"}};  // keptInstance 0: a new process
  const SessionId session = lab.coordinator.attach(again, std::make_unique<FakeAgent>("a3", &fresh));
  for (std::size_t item = 0; item < 2; ++item)
    CHECK(copyOf(*service.status(id), item, "a3").state == CopyStatus::State::kFailed);
  CHECK(fresh.orders.empty());  // nothing before its first call on the new session
  REQUIRE(lab.coordinator.reportCaps(session, {}));
  REQUIRE(fresh.orders.size() == 2);
  for (const AgentLink::ReceiveOrder& order : fresh.orders)
    CHECK(std::find(tokens.begin(), tokens.end(), order.token) != tokens.end());
  CHECK(fresh.pulls.size() == 2);  // each copy told where to pull from again
  for (std::size_t item = 0; item < 2; ++item)
    CHECK(copyOf(*service.status(id), item, "a3").state == CopyStatus::State::kReceiving);
  CHECK(lab.coordinator.heartbeat(session));
  CHECK(fresh.orders.size() == 2);  // once

  for (const std::string& token : tokens) CHECK(lab.coordinator.reportTransfer(session, token, lab.done()));
  const ManifestStatus end = *service.status(id);
  CHECK(end.finished);
  for (const auto& item : end.items)
    for (const CopyStatus& copy : item.send.copies) CHECK(copy.state == CopyStatus::State::kDone);
  CHECK(lab.coordinator.operations(1).value()[0].status == "done");
}

TEST_CASE("a manifest's destination back afresh that refuses an item again fails that copy saying why, and the manifest ends without waiting for it") {
  Lab lab;
  ManifestService service(lab.coordinator, lab.clock, 128 << 10, lab.tokens());
  const auto [id, first] = startedOk(service, lab.twoItems());
  std::vector<std::string> tokens;
  for (const auto& [agent, token] : lab.commands.receives)
    if (std::find(tokens.begin(), tokens.end(), token) == tokens.end()) tokens.push_back(token);
  for (const auto& [agent, session] : lab.sessions)
    if (agent != "a4")
      for (const std::string& token : tokens) lab.coordinator.reportTransfer(session, token, lab.done());
  Commands fresh;
  fresh.refusing = true;
  AgentRegistration again{"a4", "room", {"relay"}, "a4:9100", {"/srv"}};
  const SessionId session = lab.coordinator.attach(again, std::make_unique<FakeAgent>("a4", &fresh));
  REQUIRE(lab.coordinator.reportCaps(session, {}));
  CHECK(fresh.orders.size() == 2);
  const ManifestStatus end = *service.status(id);
  CHECK(end.finished);  // the clock never moved
  for (std::size_t item = 0; item < 2; ++item) {
    const CopyStatus copy = copyOf(end, item, "a4");
    CHECK(copy.state == CopyStatus::State::kFailed);
    CHECK(copy.message == "agent lost; logged in again, it refused the send: no space left on device");
  }
  CHECK(lab.coordinator.operations(1).value()[0].status == "failed");
}
