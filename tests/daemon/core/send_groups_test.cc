// A tree whose agents lack different files (bundle_groups.h): SendService
// packs a bundle per group and sends each to its agents at once, answered
// under one id; or one bundle for all when the groups would be slower.
#include "daemon/core/send_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::send_lab;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t kMiB = 1 << 20;

SendRequest courseToAll(const Lab& lab) {
  SendRequest request = lab.toAll();
  request.path = "/data/course";
  request.dest = "course";
  return request;
}

// This week's file (scan entry 1, `thisWeek` bytes) changed on every
// agent; a3 also lacks last week's (entry 2, `lastWeek` bytes).
void missedLastWeek(Lab& lab, std::uint64_t thisWeek, std::uint64_t lastWeek) {
  lab.plane.scanSizes = {0, thisWeek, lastWeek};
  for (const char* a : {"a1", "a2", "a3"}) lab.agents.lacking[a]["part one"] = {1};
  lab.agents.lacking["a3"]["part two"] = {1};
}

// Every agent reports its copy done, under the token it was ordered with.
void finishAll(Lab& lab) {
  for (std::size_t i = 0; i < lab.agents.receives.size(); ++i) {
    const auto& [agent, token] = lab.agents.receives[i];
    if (lab.agents.refusingOrders.count(agent)) continue;
    TransferReport done = lab.done();
    done.bytes = lab.agents.orders[i].size;
    done.tree = TreeOutcome{2, 100, 0, 0, {}};
    lab.coordinator.reportTransfer(lab.sessions[agent], token, done);
  }
}

}  // namespace

TEST_CASE("an agent that missed last week's files gets its own bundle - the others receive only this week's") {
  Lab lab;
  missedLastWeek(lab, 10 * kMiB, 200 * kMiB);
  auto answer = started(lab, courseToAll(lab));
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  REQUIRE(lab.plane.packs.size() == 2);
  CHECK(lab.plane.packs[0] == std::vector<bool>{false, true, false});
  CHECK(lab.plane.packs[1] == std::vector<bool>{false, true, true});
  // Each agent is ordered to receive its group's bundle only.
  REQUIRE(lab.agents.orders.size() == 3);
  std::map<std::string, std::uint64_t> sizeOf;
  for (std::size_t i = 0; i < lab.agents.receives.size(); ++i)
    sizeOf[lab.agents.receives[i].first] = lab.agents.orders[i].size;
  CHECK(sizeOf["a1"] == 64 * kMiB);
  CHECK(sizeOf["a2"] == 64 * kMiB);
  CHECK(sizeOf["a3"] == 32 * kMiB);
  CHECK(lab.plane.served.size() == 2);  // both bundles at once
  // One id answers for both: its copies, its groups, the tree as a whole.
  CHECK_FALSE(first.finished);
  CHECK(first.copies.size() == 3);
  REQUIRE(first.groups.size() == 2);
  CHECK(first.groups[0].agents == std::vector<std::string>{"a1", "a2"});
  CHECK(first.groups[0].sentFiles == 1);
  CHECK(first.groups[1].agents == std::vector<std::string>{"a3"});
  CHECK(first.groups[1].sentFiles == 2);
  REQUIRE(first.tree);
  CHECK(first.tree->sentFiles == 2);  // what some agent lacked
  CHECK(first.tree->sentBytes == 210 * kMiB);
  CHECK(first.size == 96 * kMiB);  // both bundles
  CHECK(first.why.find("2 bundles") == 0);
  // Kumar-Ross where each lacks its own: a3's 210 MiB through its 10 MB/s downlink bounds it.
  CHECK(first.boundS == doctest::Approx(210.0 * kMiB / 1e7));

  lab.clock.advance(3s);
  finishAll(lab);
  auto status = lab.service.status(id);
  REQUIRE(status);
  CHECK(status->finished);
  for (const CopyStatus& c : status->copies) {
    CHECK(c.state == CopyStatus::State::kDone);
    CHECK(c.tree);
  }
  for (const BundleGroupStatus& g : status->groups) CHECK(g.finished);
  CHECK(lab.plane.bundles.empty());  // both dropped
  // One record for the send, saying how many groups it went in.
  auto ops = lab.coordinator.operations(10).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].id == status->record);
  CHECK(ops[0].status == "done");
  CHECK(ops[0].summary.find("\"groups\":2") != std::string::npos);
  CHECK(ops[0].summary.find("\"ok\":3,\"failed\":0") != std::string::npos);
}

TEST_CASE("a tree sent as a bundle per group keeps its one record running until its last group's copies end") {
  Lab lab;
  missedLastWeek(lab, 10 * kMiB, 200 * kMiB);
  auto answer = started(lab, courseToAll(lab));
  REQUIRE(answer);
  const OperationId record = static_cast<OperationId>(answer->second.record);
  REQUIRE(record != 0);
  // Every agent's order names that record, with its group.
  for (const AgentLink::ReceiveOrder& o : lab.agents.orders)
    CHECK(o.operation.find("send record " + std::to_string(record) + ", group ") == 0);
  // The first group (a1, a2) lands; a3's larger bundle is still arriving.
  lab.clock.advance(2s);
  for (std::size_t i = 0; i < lab.agents.receives.size(); ++i) {
    const auto& [agent, token] = lab.agents.receives[i];
    if (agent == "a3") continue;
    TransferReport done = lab.done();
    done.bytes = lab.agents.orders[i].size;
    done.tree = TreeOutcome{2, 100, 0, 0, {}};
    lab.coordinator.reportTransfer(lab.sessions[agent], token, done);
  }
  CHECK(lab.store.operation(record).value()->status == "running");
  CHECK_FALSE(lab.service.status(answer->first)->finished);
  finishAll(lab);
  CHECK(lab.store.operation(record).value()->status == "done");
  CHECK(lab.service.status(answer->first)->finished);
}

TEST_CASE("groups that would take longer than one bundle for all, through hnowd's uplink, go as one bundle") {
  // hnowd's 12.5 MB/s uplink would carry the 200 MiB twice for two groups
  // (36 s) where one bundle of 230 MiB to all takes about 24 s.
  Lab lab;
  missedLastWeek(lab, 200 * kMiB, 30 * kMiB);
  auto answer = started(lab, courseToAll(lab));
  REQUIRE(answer);
  REQUIRE(lab.plane.packs.size() == 1);
  CHECK(lab.plane.packs[0] == std::vector<bool>{false, true, true});
  CHECK(answer->second.groups.empty());
  CHECK(lab.agents.orders.size() == 3);
}

TEST_CASE("a group whose agents refuse the order fails its copies - the other group's send still lands") {
  Lab lab;
  missedLastWeek(lab, 10 * kMiB, 200 * kMiB);
  // a3 answers what it lacks, then refuses the receive order.
  lab.agents.refusingOrders.insert("a3");
  auto answer = started(lab, courseToAll(lab));
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  REQUIRE(first.groups.size() == 2);
  CHECK(first.groups[1].error.find("refused: a3") == 0);
  lab.clock.advance(1s);
  finishAll(lab);
  auto status = lab.service.status(id);
  REQUIRE(status);
  CHECK(status->finished);
  for (const CopyStatus& c : status->copies)
    CHECK(c.state == (c.node == "a3" ? CopyStatus::State::kFailed : CopyStatus::State::kDone));
  CHECK(lab.plane.bundles.empty());
}

TEST_CASE("when every group's send is refused the send is refused, and no bundle is left") {
  Lab lab;
  missedLastWeek(lab, 10 * kMiB, 200 * kMiB);
  for (const char* a : {"a1", "a2", "a3"}) lab.agents.refusingOrders.insert(a);
  auto answer = started(lab, courseToAll(lab));
  REQUIRE_FALSE(answer);
  CHECK(answer.error().message.find("refused: a1") == 0);
  CHECK(answer.error().message.find("; refused: a3") != std::string::npos);
  CHECK(lab.plane.bundles.empty());
}

TEST_CASE("cancelling a tree sent as a bundle per group by its one record cancels every group") {
  Lab lab;
  missedLastWeek(lab, 10 * kMiB, 200 * kMiB);
  auto answer = started(lab, courseToAll(lab));
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  REQUIRE(first.groups.size() == 2);
  auto ops = lab.coordinator.operations(10).value();
  REQUIRE(ops.size() == 1);
  CHECK(lab.service.cancel(ops[0].id, "alice"));
  ops = lab.coordinator.operations(10).value();
  CHECK(ops[0].status == "cancelled");
  CHECK(ops[0].summary.find("\"cancelled_by\":\"alice\"") != std::string::npos);
  CHECK(lab.agents.releases.size() == 3);
  const SendStatus status = *lab.service.status(id);
  CHECK(status.finished);
  CHECK(status.cancelledBy == "alice");
  CHECK(status.record != 0);
}
