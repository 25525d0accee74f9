// The fast heuristics (multicast_heuristics.cc, multicast_candidates.cc)
// against the direct ones they replaced (multicast_reference.cc): the same
// transfers in the same order at the same times, and the same task lists.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "multicast_instances.h"
#include "planner/multicast/multicast_reference.h"

using namespace hnow::planner;
using hnow::testing::randomInstance;

namespace {

struct Variant {
  MulticastAlgorithm algorithm;
  bool preemptive;
};

const Variant kVariants[] = {
    {MulticastAlgorithm::kFastestEdgeFirst, false},       {MulticastAlgorithm::kEarliestCompletionFirst, false},
    {MulticastAlgorithm::kWorkRacing, false},             {MulticastAlgorithm::kEarliestAvailableFirst, false},
    {MulticastAlgorithm::kRoundRobin, false},             {MulticastAlgorithm::kReceiverRandomSelection, false},
    {MulticastAlgorithm::kEarliestCompletionFirst, true}, {MulticastAlgorithm::kWorkRacing, true},
    {MulticastAlgorithm::kEarliestAvailableFirst, true},  {MulticastAlgorithm::kRoundRobin, true},
    {MulticastAlgorithm::kReceiverRandomSelection, true},
};

// Exact comparison, bit for bit: the fast code must do the same arithmetic.
void requireSamePlan(const MulticastPlan& fast, const MulticastPlan& reference, const std::string& what) {
  INFO(what);
  REQUIRE(fast.transfers.size() == reference.transfers.size());
  for (size_t t = 0; t < fast.transfers.size(); ++t) {
    const MulticastTransfer& a = fast.transfers[t];
    const MulticastTransfer& b = reference.transfers[t];
    INFO("transfer " << t);
    REQUIRE(a.from == b.from);
    REQUIRE(a.to == b.to);
    REQUIRE(a.message == b.message);
    CHECK(a.sendStart == b.sendStart);
    CHECK(a.posted == b.posted);
    CHECK(a.recvEnd == b.recvEnd);
  }
  REQUIRE(fast.taskLists.size() == reference.taskLists.size());
  for (size_t v = 0; v < fast.taskLists.size(); ++v) {
    REQUIRE(fast.taskLists[v].size() == reference.taskLists[v].size());
    for (size_t t = 0; t < fast.taskLists[v].size(); ++t) {
      CHECK(fast.taskLists[v][t].send == reference.taskLists[v][t].send);
      CHECK(fast.taskLists[v][t].transfer == reference.taskLists[v][t].transfer);
    }
  }
  CHECK(fast.makespan == reference.makespan);
}

// The incremental heuristics must give the reference's plan, bit for bit.
void requireSameAsReference(const MulticastInstance& in, MulticastAlgorithm algorithm, bool preemptive,
                            std::uint64_t seed, const std::string& what) {
  auto reference = planMulticastReference(in, algorithm, {preemptive, seed});
  REQUIRE(reference.ok());
  auto fast = planMulticast(in, algorithm, {preemptive, seed});
  REQUIRE(fast.ok());
  requireSamePlan(*fast, *reference,
                  what + ", algorithm " + std::to_string(static_cast<int>(algorithm)) + (preemptive ? " preemptive" : ""));
}

void requireSameForAll(const MulticastInstance& in, std::uint64_t seed, const std::string& what) {
  for (const Variant& v : kVariants) requireSameAsReference(in, v.algorithm, v.preemptive, seed, what);
}

// Small integer costs and zero-size messages: completion times tie all the
// time, so every tie rule (own source, message, sender, receiver; WR and
// EAF's faster receiver) decides many steps.
MulticastInstance tiedInstance(std::mt19937& rng, int n, int messages) {
  std::uniform_int_distribution<int> cost(1, 3), node(0, n - 1), coin(0, 1), bytes(0, 2);
  MulticastInstance in;
  for (int v = 0; v < n; ++v)
    in.nodes.push_back({double(cost(rng)), double(coin(rng)), double(cost(rng)), double(coin(rng))});
  in.linkPerByte = uniformLinks(n, double(coin(rng)));
  for (int k = 0; k < messages; ++k) {
    MulticastMessage m;
    m.source = node(rng);
    m.bytes = bytes(rng);
    for (int v = 0; v < n; ++v)
      if (v != m.source && (coin(rng) || coin(rng))) m.destinations.push_back(v);
    if (m.destinations.empty()) m.destinations.push_back((m.source + 1) % n);
    in.messages.push_back(m);
  }
  return in;
}

}  // namespace

TEST_CASE("the fast heuristics schedule exactly what the reference ones do on random instances") {
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 2 + trial % 14;
    MulticastInstance in = randomInstance(rng, n, 1 + trial % 9, trial % 2 == 1);
    requireSameForAll(in, in.nodes.size() + trial, "random trial " + std::to_string(trial));
  }
  // All-to-all, the seed's Table 1 pattern, with per-pair links.
  MulticastInstance all = randomInstance(rng, 20, 0, true);
  for (int s = 0; s < 20; ++s) {
    MulticastMessage m{s, 1024, {}};
    for (int v = 0; v < 20; ++v)
      if (v != s) m.destinations.push_back(v);
    all.messages.push_back(m);
  }
  requireSameForAll(all, 3, "all-to-all on 20 nodes");
}

// Seed 004 Table 1's largest instance: all-to-all of 1 KB on 80 nodes with
// per-pair links, 80 messages (two words of the message sets). The bench
// times this one; the non-preemptive rules are checked on it in full, ECF on
// half the size (its reference takes seconds at 80 nodes).
MulticastInstance allToAll(std::mt19937& rng, int n) {
  MulticastInstance in = randomInstance(rng, n, 0, true);
  for (int s = 0; s < n; ++s) {
    MulticastMessage m{s, 1024, {}};
    for (int v = 0; v < n; ++v)
      if (v != s) m.destinations.push_back(v);
    in.messages.push_back(m);
  }
  return in;
}

TEST_CASE("the fast heuristics match the reference on large all-to-all and many-message instances") {
  std::mt19937 rng(4004);
  MulticastInstance big = allToAll(rng, 80);
  for (MulticastAlgorithm a : {MulticastAlgorithm::kFastestEdgeFirst, MulticastAlgorithm::kWorkRacing,
                               MulticastAlgorithm::kEarliestAvailableFirst, MulticastAlgorithm::kRoundRobin,
                               MulticastAlgorithm::kReceiverRandomSelection}) {
    requireSameAsReference(big, a, false, 7, "all-to-all on 80 nodes");
  }
  MulticastInstance half = allToAll(rng, 40);
  auto fast = planMulticast(half, MulticastAlgorithm::kEarliestCompletionFirst);
  auto reference = planMulticastReference(half, MulticastAlgorithm::kEarliestCompletionFirst);
  REQUIRE(fast.ok());
  REQUIRE(reference.ok());
  requireSamePlan(*fast, *reference, "ECF, all-to-all on 40 nodes");
  // More than 128 messages of mixed sizes (0, 1 KB, 1–1.5 MB): the message
  // sets take three words and several size classes share the receivers.
  for (int trial = 0; trial < 3; ++trial) {
    MulticastInstance many = randomInstance(rng, 8 + trial, 130 + 10 * trial, trial != 1);
    requireSameForAll(many, 11 + trial, "many messages, trial " + std::to_string(trial));
  }
}

TEST_CASE("the fast heuristics break ties exactly as the reference ones do") {
  std::mt19937 rng(77);
  for (int trial = 0; trial < 60; ++trial) {
    MulticastInstance in = tiedInstance(rng, 2 + trial % 11, 1 + trial % 7);
    requireSameForAll(in, 1 + trial, "tied trial " + std::to_string(trial));
  }
}

TEST_CASE("scheduleReceiverOrder follows a given receiver order exactly as the reference does") {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 30; ++trial) {
    MulticastInstance in = trial % 2 ? tiedInstance(rng, 3 + trial % 6, 1 + trial % 5)
                                     : randomInstance(rng, 3 + trial % 6, 1 + trial % 5, true);
    // A random order: each delivery's receiver once, shuffled.
    std::vector<int> order;
    for (const MulticastMessage& m : in.messages) order.insert(order.end(), m.destinations.begin(), m.destinations.end());
    std::shuffle(order.begin(), order.end(), rng);
    for (bool preemptive : {false, true}) {
      auto fast = scheduleReceiverOrder(in, order, preemptive);
      auto reference = scheduleReceiverOrderReference(in, order, preemptive);
      REQUIRE(fast.ok());
      REQUIRE(reference.ok());
      requireSamePlan(*fast, *reference, "order trial " + std::to_string(trial));
    }
  }
}
