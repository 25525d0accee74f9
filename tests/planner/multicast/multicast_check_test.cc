#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "multicast_instances.h"
#include "planner/multicast/multicast_check.h"

using hnow::Result;
using namespace hnow::planner;

namespace {

// One message from node 0 (S = 1, R = 3) to nodes 1 and 2 (S = 2, R = 6),
// 10 bytes over links of 0.1 s/byte: a transfer takes S + 1 + R.
MulticastInstance twoDestinations() {
  MulticastInstance in;
  in.nodes = {{1, 0, 3, 0}, {2, 0, 6, 0}, {2, 0, 6, 0}};
  in.messages = {{0, 10, {1, 2}}};
  in.linkPerByte = uniformLinks(3, 0.1);
  return in;
}

// 0 → 1 and 0 → 2 back to back: non-blocking sends overlap the wire time.
std::vector<MulticastTransfer> validTransfers() {
  return {{0, 0, 1, 0, 1, 0, 2, 8}, {0, 0, 2, 1, 2, 0, 3, 9}};
}

bool rejects(const MulticastInstance& in, const std::vector<MulticastTransfer>& transfers,
             const std::string& reasonPart) {
  Result<double> check = checkMulticast(in, transfers);
  return !check && check.error().message.find(reasonPart) != std::string::npos;
}

}  // namespace

TEST_CASE("the multicast validator accepts back-to-back non-blocking sends and reports the last receive") {
  Result<double> makespan = checkMulticast(twoDestinations(), validTransfers());
  REQUIRE_MESSAGE(makespan.ok(), makespan.error().message);
  CHECK(*makespan == 9);
}

TEST_CASE("the multicast validator rejects each broken rule with its reason") {
  const MulticastInstance in = twoDestinations();
  auto broken = validTransfers();
  broken[1].sendStart = 0.5, broken[1].sendEnd = 1.5, broken[1].recvStart = 2.5, broken[1].recvEnd = 8.5;
  CHECK(rejects(in, broken, "runs two tasks at once"));

  broken = validTransfers();
  broken[0].sendEnd = 1.5;  // S is 1
  CHECK(rejects(in, broken, "the send must last S"));

  broken = validTransfers();
  broken[0].recvStart = 1.5, broken[0].recvEnd = 7.5;  // arrives at 2
  CHECK(rejects(in, broken, "when it is both posted and arrived"));

  broken = validTransfers();
  broken[0].recvStart = 3, broken[0].recvEnd = 9;  // idles after arrival
  CHECK(rejects(in, broken, "when it is both posted and arrived"));

  broken = validTransfers();
  broken.pop_back();
  CHECK(rejects(in, broken, "node 2 never receives message 0"));

  broken = validTransfers();
  broken.push_back(broken[0]);
  CHECK(rejects(in, broken, "already got the message"));

  // Node 1 relays to node 2 before its own receive ends at 8.
  broken = validTransfers();
  broken[1] = {0, 1, 2, 0, 2, 0, 3, 9};
  CHECK(rejects(in, broken, "relays before its receive ends"));

  // A receive posted at 0 blocks node 1 until it completes at 8: node 1
  // cannot send its own message meanwhile.
  MulticastInstance blocked = in;
  blocked.messages = {{0, 10, {1}}, {1, 0, {2}}};
  CHECK(rejects(blocked, {{0, 0, 1, 0, 1, 0, 2, 8}, {1, 1, 2, 0.5, 2.5, 0, 2.5, 8.5}},
                "runs two tasks at once"));

  MulticastInstance relayOutside = in;
  relayOutside.messages[0].destinations = {1};
  relayOutside.messages.push_back({1, 0, {2}});
  CHECK(rejects(relayOutside, {{0, 0, 1, 0, 1, 0, 2, 8}, {0, 1, 2, 8, 10, 0, 11, 17}},
                "not a destination"));
}

TEST_CASE("the simulator runs task lists under the model and the plan check compares times") {
  const MulticastInstance in = twoDestinations();
  MulticastPlan plan;
  plan.transfers = validTransfers();
  plan.taskLists = {{{true, 0, 1, 0}, {true, 0, 2, 1}}, {{false, 0, 0, 0}}, {{false, 0, 0, 1}}};
  plan.makespan = 9;
  auto simulated = simulateTaskLists(in, plan.taskLists);
  REQUIRE(simulated.ok());
  REQUIRE(simulated->size() == 2);
  CHECK((*simulated)[1].recvEnd == 9);
  Result<double> makespan = checkMulticastPlan(in, plan);
  CHECK_MESSAGE(makespan.ok(), makespan.error().message);

  MulticastPlan wrongTimes = plan;
  wrongTimes.transfers[1].recvEnd = 10, wrongTimes.transfers[1].recvStart = 4;
  CHECK_FALSE(checkMulticastPlan(in, wrongTimes).ok());

  MulticastPlan wrongMakespan = plan;
  wrongMakespan.makespan = 8;
  CHECK_FALSE(checkMulticastPlan(in, wrongMakespan).ok());

  // Swapping node 0's sends changes who receives first: the times no longer match.
  MulticastPlan swapped = plan;
  std::swap(swapped.taskLists[0][0], swapped.taskLists[0][1]);
  CHECK_FALSE(checkMulticastPlan(in, swapped).ok());
}

TEST_CASE("the simulator rejects relaying before holding, unmatched tasks and lists that wait forever") {
  const MulticastInstance in = twoDestinations();
  // Node 1 relays before receiving.
  auto early = simulateTaskLists(in, {{{true, 0, 1, 0}}, {{true, 0, 2, 1}, {false, 0, 0, 0}}, {{false, 0, 1, 1}}});
  REQUIRE_FALSE(early.ok());
  CHECK(early.error().message.find("before it holds it") != std::string::npos);
  // A send nobody receives.
  CHECK_FALSE(simulateTaskLists(in, {{{true, 0, 1, 0}}, {}, {}}).ok());
  // Relays that wait on each other: node 1 first waits for m1 from node 2,
  // which first waits for m0 from node 1.
  MulticastInstance crossed = in;
  crossed.messages = {{0, 0, {1, 2}}, {0, 0, {1, 2}}};
  auto deadlock = simulateTaskLists(crossed, {{{true, 0, 1, 0}, {true, 1, 2, 1}},
                                              {{false, 1, 2, 0}, {false, 0, 0, 1}, {true, 0, 2, 2}},
                                              {{false, 0, 1, 2}, {true, 1, 1, 3}, {false, 1, 0, 4}}});
  REQUIRE_FALSE(deadlock.ok());
  CHECK(deadlock.error().message.find("wait on each other") != std::string::npos);
}
