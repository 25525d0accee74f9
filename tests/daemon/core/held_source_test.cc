// An agent that holds a send's file at --dest serves it in hnowd's place
// when that is faster (held_source.h): the choice, and SendService running
// it on its lab in memory (send_lab.h).
#include <doctest/doctest.h>

#include <algorithm>

#include "core/send/held_source.h"
#include "daemon/core/send_lab.h"

using namespace hnow::daemon;
using namespace hnow::daemon::send_lab;

namespace {

TreeNode node(const std::string& name, double up, double down) {
  TreeNode n{name, "room", {}};
  n.rates.uplinkBytesPerSecond = up;
  n.rates.downlinkBytesPerSecond = down;
  n.rates.sendOverheadSeconds = n.rates.receiveOverheadSeconds = 1e-4;
  return n;
}

const std::string kToken(32, 't');

}  // namespace

TEST_CASE("the fastest holder serves when it beats hnowd by a tenth - not when it is as slow, nor for a striped send") {
  const std::vector<TreeNode> receivers{node("a1", 1e8, 1e8), node("a3", 1e8, 1e8)};
  const std::vector<TreeNode> holders{node("slow", 2e7, 1e8), node("fast", 1e8, 1e8)};
  const std::uint64_t size = 64 << 20;
  // hnowd's plan at 12.5 MB/s: about 5.4 s.
  auto chosen = chooseHeldSource("auto", holders, receivers, size, 128 << 10, 5.4);
  REQUIRE(chosen);
  CHECK(chosen->holder == 1);
  CHECK(chosen->tree.predictedSeconds < 1.0);
  CHECK(chosen->tree.parent.size() == 3);
  CHECK(chosen->tree.why.rfind("served by fast, which holds it at --dest already: ", 0) == 0);
  // Only a little faster than hnowd: not worth a holder's hash and uplink.
  CHECK_FALSE(chooseHeldSource("auto", holders, receivers, size, 128 << 10, chosen->tree.predictedSeconds * 1.05));
  CHECK(chooseHeldSource("auto", holders, receivers, size, 128 << 10, chosen->tree.predictedSeconds * 1.2));
  CHECK_FALSE(chooseHeldSource("striped", holders, receivers, size, 128 << 10, 5.4));
  CHECK_FALSE(chooseHeldSource("auto", {}, receivers, size, 128 << 10, 5.4));
  // A holder whose uplink is unknown cannot be planned from.
  CHECK_FALSE(chooseHeldSource("auto", {node("unknown", 0, 1e8)}, receivers, size, 128 << 10, 5.4));
  // Another algo plans from the holder with that algo.
  auto chain = chooseHeldSource("chain", holders, receivers, size, 128 << 10, 5.4);
  REQUIRE(chain);
  CHECK(chain->tree.algo == "chain");
}

TEST_CASE("where hnowd's uplink is the slow end, an agent holding the file serves it to the rest - the plan, the report and the record say so") {
  Lab lab(1e8, 1e8);  // agents at 100 MB/s, hnowd at 12.5 MB/s
  lab.agents.holding["a2"] = AgentLink::DestHolding::kSame;
  std::vector<std::string> delivered;
  lab.service.onEnded([&](const SendEnd& end) { delivered = end.delivered; });
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  CHECK(lab.agents.servedBy == std::vector<std::string>{"a2: in/image.iso"});
  CHECK(lab.plane.served.empty());  // hnowd serves nothing
  REQUIRE(lab.agents.receives.size() == 2);
  for (const auto& [agent, token] : lab.agents.receives) CHECK(agent != "a2");
  // Whoever pulls from the root pulls from a2's data address.
  std::size_t fromHolder = 0;
  for (const std::string& pull : lab.agents.pulls) {
    CHECK(pull.find("hnowd:7000") == std::string::npos);
    fromHolder += pull.find("<-a2:9000") != std::string::npos;
  }
  CHECK(fromHolder >= 1);
  CHECK(first.why.rfind("served by a2, which holds it at --dest already: ", 0) == 0);
  CHECK(first.predictedS < 2.0);  // hnowd alone: over 5 s
  CHECK(first.held == std::vector<std::string>{"a2"});
  CHECK(first.source == "a2");
  for (const char* agent : {"a1", "a3"}) lab.coordinator.reportTransfer(lab.sessions[agent], kToken, lab.done());
  auto status = *lab.service.status(id);
  CHECK(status.finished);
  std::sort(delivered.begin(), delivered.end());
  CHECK(delivered == std::vector<std::string>{"a1", "a2", "a3"});
  // The holder lets its serving go with the others.
  CHECK(std::count(lab.agents.releases.begin(), lab.agents.releases.end(), "a2") == 1);
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].status == "done");
  CHECK(ops[0].summary.find("\"source\":\"a2\"") != std::string::npos);

  // Agents no faster than hnowd: hnowd serves, as before.
  Lab even;
  even.agents.holding["a2"] = AgentLink::DestHolding::kSame;
  REQUIRE(started(even, even.toAll()));
  CHECK(even.agents.servedBy.empty());
  CHECK(even.plane.served == std::set<std::string>{kToken});
}

TEST_CASE("a holder whose copy changed since it was asked, or that cannot open it, leaves the send to hnowd") {
  for (const char* why : {"changed", "refuses"}) {
    INFO(why);
    Lab lab(1e8, 1e8);
    lab.agents.holding["a2"] = AgentLink::DestHolding::kSame;
    (std::string(why) == "changed" ? lab.agents.changedSince : lab.agents.refusing).insert("a2");
    auto answer = started(lab, lab.toAll());
    REQUIRE(answer);
    CHECK(lab.agents.servedBy == std::vector<std::string>{"a2: in/image.iso"});
    CHECK_FALSE(lab.plane.served.empty());
    for (const std::string& pull : lab.agents.pulls) CHECK(pull.find("a2:9000") == std::string::npos);
    CHECK(answer->second.why.find("served by") == std::string::npos);
    CHECK(answer->second.source.empty());
    CHECK(answer->second.predictedS > 5.0);
  }
}

TEST_CASE("a holder lost while it serves fails the copies it had not delivered, saying to send again - those done stay done") {
  Lab lab(1e8, 1e8);
  lab.agents.holding["a2"] = AgentLink::DestHolding::kSame;
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  lab.coordinator.reportTransfer(lab.sessions["a1"], kToken, lab.done());
  lab.coordinator.detach(lab.sessions["a2"]);
  auto status = *lab.service.status(answer->first);
  CHECK(status.finished);
  for (const CopyStatus& c : status.copies) {
    INFO(c.node);
    if (c.node == "a1") CHECK(c.state == CopyStatus::State::kDone);
    else {
      CHECK(c.state == CopyStatus::State::kFailed);
      CHECK(c.message == "the agent serving the file, a2, was lost; send it again");
    }
  }
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].status == "failed");
}

TEST_CASE("an agent outside the send that holds the file may serve it too - asked only when its uplink beats hnowd's, each on its own, and its refusal does not stop the send") {
  Lab lab(1e8, 1e8);
  lab.agents.holding["a1"] = AgentLink::DestHolding::kSame;
  SendRequest toA3 = lab.toAll();
  toA3.to = {"a3"};  // a3 was off when the others got it, say
  auto answer = started(lab, toA3);
  REQUIRE(answer);
  // a3 by size; then a1 and a2, outside the send, each by size, and a1 again with the digest.
  CHECK(lab.agents.heldAsked == std::vector<std::string>{"a3: size", "a1: size", "a1: digest", "a2: size"});
  CHECK(lab.agents.servedBy == std::vector<std::string>{"a1: in/image.iso"});
  CHECK(lab.plane.served.empty());
  CHECK(lab.agents.pulls == std::vector<std::string>{"a3<-a1:9000"});
  CHECK(answer->second.held.empty());  // a1 is not one of the send's agents
  CHECK(answer->second.why.rfind("served by a1, ", 0) == 0);

  // An agent outside the send that refuses the destination is passed over;
  // the others still answer, and hnowd hashes the file once for them all.
  Lab refusing(1e8, 1e8);
  refusing.agents.holding["a1"] = AgentLink::DestHolding::kSame;
  refusing.agents.holding["a2"] = AgentLink::DestHolding::kSame;
  refusing.agents.refusingToTell.insert("a2");
  auto still = started(refusing, toA3);
  REQUIRE(still);
  CHECK(refusing.agents.servedBy == std::vector<std::string>{"a1: in/image.iso"});
  CHECK(refusing.plane.served.empty());
  CHECK(refusing.plane.hashes == 1);

  // Two that hold it, the file hashed once; either may serve.
  Lab two(1e8, 1e8);
  two.agents.holding["a1"] = AgentLink::DestHolding::kSame;
  two.agents.holding["a2"] = AgentLink::DestHolding::kSame;
  REQUIRE(started(two, toA3));
  CHECK(two.plane.hashes == 1);
  REQUIRE(two.agents.servedBy.size() == 1);
  // And with the hashes answered later, off the plane's thread, as the real plane does.
  Lab later(1e8, 1e8);
  later.plane.deferred = true;
  later.agents.holding["a1"] = AgentLink::DestHolding::kSame;
  later.agents.holding["a2"] = AgentLink::DestHolding::kSame;
  std::optional<hnow::Result<std::pair<std::uint64_t, SendStatus>>> answerLater;
  later.service.start(toA3, [&](const hnow::Result<std::pair<std::uint64_t, SendStatus>>& a) { answerLater = a; });
  while (!answerLater && !later.plane.due.empty()) later.plane.answerDue();
  REQUIRE(answerLater);
  REQUIRE(*answerLater);
  CHECK(later.plane.hashes == 1);
  CHECK(later.agents.servedBy.size() == 1);

  // Agents no faster than hnowd are not asked at all.
  Lab even;
  even.agents.holding["a1"] = AgentLink::DestHolding::kSame;
  REQUIRE(started(even, toA3));
  CHECK(even.agents.heldAsked == std::vector<std::string>{"a3: size"});
}

TEST_CASE("under --max-rate a holder is weighed and paced within the cap, as hnowd is") {
  Lab lab(1e8, 1e8);
  lab.agents.holding["a2"] = AgentLink::DestHolding::kSame;
  SendRequest capped = lab.toAll();
  capped.maxRateBytesPerSecond = 2e7;  // above hnowd's 12.5 MB/s, below the agents' 100
  auto answer = started(lab, capped);
  REQUIRE(answer);
  REQUIRE(lab.agents.servePaces.size() == 1);
  CHECK(lab.agents.servePaces[0] > 0);
  CHECK(lab.agents.servePaces[0] <= 2e7);
  for (const auto& order : lab.agents.orders) {
    CHECK(order.uplinkPaceBytesPerSecond <= 2e7);
    CHECK(order.downlinkPaceBytesPerSecond <= 2e7);
  }
  // 64 MiB at 20 MB/s: over 3.3 s, not the 0.7 s of the holder's own uplink.
  CHECK(answer->second.predictedS > 3.3);
  CHECK(answer->second.source == "a2");

  // A cap at hnowd's own rate leaves the holder nothing to gain.
  Lab even(1e8, 1e8);
  even.agents.holding["a2"] = AgentLink::DestHolding::kSame;
  capped.maxRateBytesPerSecond = 1.25e7;
  REQUIRE(started(even, capped));
  CHECK(even.agents.servedBy.empty());
}
