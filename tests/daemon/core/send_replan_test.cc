// Replanning a send while it runs, in-process with a manual clock.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "core/send/send_operation.h"
#include "core/send/send_replan.h"
#include "core/send/send_tree.h"

using namespace hnow;
using namespace hnow::daemon;
using hnow::planner::NodeRates;

namespace {

// The tree, or the test stops with the planner's reason.
SendTree plannedTree(const std::string& algo, const std::vector<TreeNode>& nodes, std::uint64_t size,
                     std::uint32_t chunk) {
  auto tree = planSendTree(algo, nodes, size, chunk);
  REQUIRE_MESSAGE(tree.ok(), (tree.ok() ? "" : tree.error().message));
  return *tree;
}


constexpr double MB = 1e6;
constexpr std::uint64_t kSize = 100'000'000;

struct RecordingCommands final : SendCommands {
  std::map<std::string, std::vector<std::string>> pulls;  // node -> parent addresses, in order
  void pull(const std::string& node, const std::string& parentAddress) override {
    pulls[node].push_back(parentAddress);
  }
  std::size_t count() const {
    std::size_t n = 0;
    for (const auto& [_, p] : pulls) n += p.size();
    return n;
  }
};

NodeRates rates(double upMB, double downMB = 200) { return {upMB * MB, downMB * MB}; }

// hnowd sends at 40 MB/s; a relays at 120 MB/s, b, c, d send at 8 MB/s:
// the max-bottleneck tree is hnowd -> a -> {b, c, d} at 40 MB/s.
std::vector<TreeNode> lab() {
  return {{"hnowd", "", rates(40)}, {"a", "", rates(120)}, {"b", "", rates(8)}, {"c", "", rates(8)},
          {"d", "", rates(8)}};
}

struct Send {
  ManualClock clock;
  RecordingCommands commands;
  std::vector<TreeNode> nodes = lab();
  SendTree tree = plannedTree("auto", nodes, kSize, 1 << 20);
  SendOperation op{clock, tree, {"hnowd", "a", "b", "c", "d"}, {"H", "A", "B", "C", "D"},
                   {"", "/a", "/b", "/c", "/d"}, kSize, "sha", commands};

  explicit Send(bool replan = true) {
    ReplanSettings settings;
    settings.enabled = replan;
    settings.nodes = nodes;
    op.setReplanning(settings);
    op.start();
  }
  void progress(const std::string& node, std::uint64_t bytes) {
    TransferReport r;
    r.bytes = bytes;
    op.report(node, r);
  }
  void done(const std::string& node) {
    TransferReport r;
    r.state = TransferReport::State::kDone;
    r.sha256 = "sha";
    r.path = "/" + node;
    op.report(node, r);
  }
  std::string parentOf(const std::string& node) const {
    for (const auto& c : op.status().copies)
      if (c.node == node) return c.parent;
    return "?";
  }
};

}  // namespace

TEST_CASE("replan: the premise: the planned tree is hnowd -> a -> {b, c, d}") {
  Send send;
  CHECK(send.tree.parent == std::vector<int>{-1, 0, 1, 1, 1});
  CHECK(send.commands.pulls["b"] == std::vector<std::string>{"A"});
}

TEST_CASE("replan: a drift event on the relay re-parents its subtree, unchanged parents get no pull") {
  Send send;
  for (const char* n : {"a", "b", "c", "d"}) send.progress(n, 20'000'000);
  send.clock.advance(std::chrono::seconds(3));
  const std::size_t before = send.commands.count();
  // a's uplink falls 10x: its three children would share 12 MB/s.
  CHECK(send.op.ratesChanged("a", rates(12), "drift: a uplink"));
  auto s = send.op.status();
  CHECK(s.replans == 1);
  // The new tree's bottleneck is 12 MB/s: hnowd feeds three nodes, a one.
  CHECK(send.parentOf("a") == "hnowd");
  CHECK(send.commands.pulls["a"].size() == 1);  // its parent did not change: no new pull
  int underA = 0, underSource = 0;
  for (const char* n : {"b", "c", "d"}) {
    const std::string parent = send.parentOf(n);
    underA += parent == "a";
    underSource += parent == "hnowd";
    // Moved nodes got exactly one new pull, to the new parent; the one left under a none.
    CHECK(send.commands.pulls[n].size() == (parent == "a" ? 1u : 2u));
    if (parent == "hnowd") CHECK(send.commands.pulls[n].back() == "H");
  }
  CHECK(underA == 1);
  CHECK(underSource == 2);
  CHECK(send.commands.count() == before + 2);
  REQUIRE(s.parentChanges.size() == 2);
  for (const auto& change : s.parentChanges) {
    CHECK(change.oldParent == "a");
    CHECK(change.newParent == "hnowd");
    CHECK(change.atS == doctest::Approx(3.0));
    CHECK(change.reason == "drift: a uplink");
  }
  // 80 MB left: 80 / 12 MB/s from now, plus the hop latency.
  CHECK(s.replannedPredictedS == doctest::Approx(3.0 + 80.0 / 12).epsilon(0.02));
  CHECK(s.predictedS == doctest::Approx(send.tree.predictedSeconds));  // the original stays reported
}

TEST_CASE("replan: a drift that a new tree cannot beat by the minimum gain moves nobody") {
  Send send;
  send.progress("c", 10'000'000);
  const std::size_t before = send.commands.count();
  CHECK_FALSE(send.op.ratesChanged("c", rates(4), "drift: c uplink"));  // a leaf: the tree stays best
  CHECK_FALSE(send.op.ratesChanged("a", rates(110), "drift: a uplink"));  // 110 still feeds three at 36
  CHECK(send.commands.count() == before);
  CHECK(send.op.status().replans == 0);
  CHECK(send.op.status().parentChanges.empty());
}

TEST_CASE("replan: with --no-replan a drift event changes nothing") {
  Send send(false);
  const std::size_t before = send.commands.count();
  CHECK_FALSE(send.op.ratesChanged("a", rates(12), "drift: a uplink"));
  CHECK(send.commands.count() == before);
  auto s = send.op.status();
  CHECK_FALSE(s.replanning);
  CHECK(s.replans == 0);
  CHECK(s.replannedPredictedS == 0);
  CHECK(send.parentOf("b") == "a");
}

TEST_CASE("replan: finished nodes get no pull, keep their reported parent, and serve as relays") {
  Send send;
  for (const char* n : {"a", "c", "d"}) send.progress(n, 30'000'000);
  send.done("b");
  send.op.ratesChanged("b", rates(100), "drift: b uplink");  // b finished: a fast relay now
  const std::size_t bPulls = send.commands.pulls["b"].size();
  CHECK(send.op.ratesChanged("a", rates(12), "drift: a uplink"));
  CHECK(send.commands.pulls["b"].size() == bPulls);  // a finished node is never told to pull
  CHECK(send.parentOf("b") == "a");                    // where its copy came from
  // b holds the whole file and sends at 100 MB/s: c and d pull from it.
  CHECK(send.commands.pulls["c"].back() == "B");
  CHECK(send.commands.pulls["d"].back() == "B");
  for (const auto& change : send.op.status().parentChanges) CHECK(change.node != "b");
}

TEST_CASE("replan: a lost relay's children move once, to the nearest ancestor when no tree beats it") {
  Send send;
  send.clock.advance(std::chrono::seconds(1));
  send.op.lost("a");
  for (const char* n : {"b", "c", "d"}) CHECK(send.commands.pulls[n] == std::vector<std::string>{"A", "H"});
  auto s = send.op.status();
  CHECK(s.replans == 0);  // flat from hnowd is also the best tree over b, c, d
  REQUIRE(s.parentChanges.size() == 3);
  CHECK(s.parentChanges[0].reason == "nearest ancestor: a failed (agent lost)");
  CHECK(s.parentChanges[0].atS == doctest::Approx(1.0));
}

TEST_CASE("replan: a lost relay whose subtree a new tree serves better is re-planned, each child moved once") {
  // hnowd (40) -> a (120) -> {b, c, d}; c sends at 30 MB/s. When a is lost,
  // the nearest ancestor would feed three at 13.3 MB/s; with c relaying to
  // one of them, hnowd feeds two at 20 MB/s.
  ManualClock clock;
  RecordingCommands commands;
  std::vector<TreeNode> nodes = lab();
  nodes[3].rates = rates(30);
  SendTree tree = plannedTree("auto", nodes, kSize, 1 << 20);
  REQUIRE(tree.parent == std::vector<int>{-1, 0, 1, 1, 1});
  SendOperation op(clock, tree, {"hnowd", "a", "b", "c", "d"}, {"H", "A", "B", "C", "D"}, {"", "/a", "/b", "/c", "/d"},
                   kSize, "sha", commands);
  ReplanSettings settings;
  settings.nodes = nodes;
  op.setReplanning(settings);
  op.start();
  op.lost("a");
  CHECK(op.status().replans == 1);
  for (const char* n : {"b", "c", "d"}) CHECK(commands.pulls[n].size() == 2);
  CHECK(commands.pulls["c"].back() == "H");
  // hnowd -> {c, b or d}, c -> the other.
  int underC = 0;
  for (const char* n : {"b", "d"}) underC += commands.pulls[n].back() == "C";
  CHECK(underC == 1);
}

TEST_CASE("replan: random sends: every adopted tree is rooted at the source, acyclic, skips failed nodes, "
          "delivers everything, and beats the kept tree by the minimum gain") {
  std::mt19937 random(7);
  int adopted = 0;
  for (int round = 0; round < 300; ++round) {
    const int n = 2 + static_cast<int>(random() % 9);
    ReplanInput in;
    in.size = 64'000'000;
    in.nodes.push_back({"s", "", rates(5 + random() % 100)});
    in.progress.resize(static_cast<std::size_t>(n));
    in.parent.assign(static_cast<std::size_t>(n), -1);
    for (int i = 1; i < n; ++i) {
      in.nodes.push_back({"n" + std::to_string(i), "", rates(1 + random() % 100, 1 + random() % 100)});
      in.parent[static_cast<std::size_t>(i)] = static_cast<int>(random() % static_cast<unsigned>(i));
      ReplanNode& p = in.progress[static_cast<std::size_t>(i)];
      const unsigned kind = random() % 6;
      p.state = kind == 0 ? ReplanNode::State::kDone : kind == 1 ? ReplanNode::State::kFailed : ReplanNode::State::kReceiving;
      p.bytes = p.state == ReplanNode::State::kDone ? in.size : random() % in.size;
    }
    const ReplanAnswer a = replanSend(in);
    if (!a.adopt) continue;
    ++adopted;
    CHECK(a.replannedSeconds < a.keptSeconds * (1 - in.minGain));
    for (int i = 1; i < n; ++i) {
      const auto& p = in.progress[static_cast<std::size_t>(i)];
      const int parent = a.parent[static_cast<std::size_t>(i)];
      if (p.state == ReplanNode::State::kFailed) {
        CHECK(parent == -1);
        continue;
      }
      REQUIRE(parent >= 0);
      CHECK(in.progress[static_cast<std::size_t>(parent)].state != ReplanNode::State::kFailed);
      // Following parents reaches the source within n steps: no cycle.
      int up = i, steps = 0;
      while (up != 0 && steps <= n) up = a.parent[static_cast<std::size_t>(up)], ++steps;
      CHECK(up == 0);
    }
    // Run the new tree as the data plane would: a receiving node gains bytes
    // only up to what its parent holds; the source and finished nodes hold all.
    std::vector<std::uint64_t> held(static_cast<std::size_t>(n), in.size);
    for (int i = 1; i < n; ++i)
      if (in.progress[static_cast<std::size_t>(i)].state == ReplanNode::State::kReceiving)
        held[static_cast<std::size_t>(i)] = in.progress[static_cast<std::size_t>(i)].bytes;
    for (int step = 0; step < 100 * n; ++step)
      for (int i = 1; i < n; ++i) {
        const int parent = a.parent[static_cast<std::size_t>(i)];
        if (parent < 0 || in.progress[static_cast<std::size_t>(i)].state != ReplanNode::State::kReceiving) continue;
        auto& h = held[static_cast<std::size_t>(i)];
        h = std::max(h, std::min(held[static_cast<std::size_t>(parent)], h + in.size / 50));
      }
    for (int i = 1; i < n; ++i)
      if (in.progress[static_cast<std::size_t>(i)].state == ReplanNode::State::kReceiving)
        CHECK(held[static_cast<std::size_t>(i)] == in.size);
  }
  CHECK(adopted > 20);  // the property was exercised
}

TEST_CASE("replan: a trunk slowed mid-send is predicted as such, and no tree entering the room twice is adopted") {
  // hnowd and a1, a2 in room A; b1, b2, b3 in room B behind a trunk now 20
  // Mbit/s each way (it was planned at 50); every port 400.
  const double mbit = 1e6 / 8;
  std::vector<TreeNode> nodes{{"hnowd", "A", {400 * mbit, 400 * mbit}}};
  for (const char* a : {"a1", "a2"}) nodes.push_back({a, "A", {400 * mbit, 400 * mbit}});
  for (const char* b : {"b1", "b2", "b3"}) nodes.push_back({b, "B", {400 * mbit, 400 * mbit}});
  for (std::size_t i = 3; i < nodes.size(); ++i) nodes[i].roomTrunk = {20 * mbit, 20 * mbit};
  ReplanInput in;
  in.nodes = nodes;
  in.parent = {-1, 0, 0, 0, 3, 3};  // b1 entered once, relays to b2, b3
  in.size = 25 << 20;
  in.progress.resize(nodes.size());
  for (std::size_t i = 1; i < nodes.size(); ++i) in.progress[i].bytes = i < 3 ? in.size : 6 << 20;
  for (std::size_t i = 1; i < 3; ++i) in.progress[i].state = ReplanNode::State::kDone;
  const ReplanAnswer answer = replanSend(in);
  // What B still lacks, through 20 Mbit/s: the kept tree is predicted so.
  const double left = static_cast<double>(in.size - (6 << 20));
  CHECK(answer.keptSeconds >= left / (20 * mbit));
  CHECK(answer.keptSeconds <= left / (20 * mbit) * 1.1);
  CHECK_FALSE(answer.adopt);  // nothing enters B faster than its trunk
}
