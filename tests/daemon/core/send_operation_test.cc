#include <doctest/doctest.h>

#include <map>

#include "daemon/core/send_commands_recorder.h"
#include "core/send/send_operation.h"
#include "core/send/send_tree.h"

using namespace hnow;
using namespace hnow::daemon;

namespace {

// The tree, or the test stops with the planner's reason.
SendTree plannedTree(const std::string& algo, const std::vector<TreeNode>& nodes, std::uint64_t size,
                     std::uint32_t chunk) {
  auto tree = planSendTree(algo, nodes, size, chunk);
  REQUIRE_MESSAGE(tree.ok(), (tree.ok() ? "" : tree.error().message));
  return *tree;
}


using testing::RecordingCommands;

// hnowd -> a -> b -> c, and hnowd -> d.
SendTree chain() {
  SendTree t;
  t.algo = "test";
  t.parent = {-1, 0, 1, 2, 0};
  t.finish = {0, 1, 2, 3, 1};
  t.predictedSeconds = 3;
  return t;
}

TransferReport done(const std::string& sha) { return testing::doneReport(sha); }

}  // namespace

TEST_CASE("a lost relay's child pulls from the nearest living ancestor, the relay is listed failed, and the send waits 5 s for it") {
  ManualClock clock;
  RecordingCommands commands;
  SendOperation op(clock, chain(), {"hnowd", "a", "b", "c", "d"}, {"H", "A", "B", "C", "D"},
                   {"", "/a", "/b", "/c", "/d"}, 100, "sha", commands);
  op.start();
  CHECK(commands.pulls["c"] == std::vector<std::string>{"B"});
  op.lost("b");
  CHECK(commands.pulls["c"] == std::vector<std::string>{"B", "A"});
  op.lost("a");  // c's parent is now a: it goes to the source
  CHECK(commands.pulls["c"].back() == "H");
  CHECK_FALSE(op.finished());
  clock.advance(std::chrono::seconds(2));
  op.report("c", done("sha"));
  op.report("d", done("sha"));
  // a and b were lost at 0 s: they may still report again until 5 s.
  CHECK_FALSE(op.finished());
  clock.advance(std::chrono::seconds(3));
  CHECK(op.finished());
  auto s = op.status();
  CHECK(s.elapsedS == doctest::Approx(5.0));
  CHECK(s.copies[0].state == CopyStatus::State::kFailed);
  CHECK(s.copies[0].message == "agent lost");
  CHECK(s.copies[2].parent == "hnowd");
  CHECK(s.copies[2].finishedS == doctest::Approx(2.0));
}

TEST_CASE("a copy reported with another SHA-256 is failed, and a finished node's loss keeps its copy") {
  ManualClock clock;
  RecordingCommands commands;
  SendOperation op(clock, chain(), {"hnowd", "a", "b", "c", "d"}, {"H", "A", "B", "C", "D"},
                   {"", "/a", "/b", "/c", "/d"}, 100, "sha", commands);
  op.start();
  op.report("d", done("other"));
  CHECK(op.status().copies[3].state == CopyStatus::State::kFailed);
  op.report("a", done("sha"));
  op.lost("a");  // finished, then gone: b must pull elsewhere, a's copy stays done
  CHECK(commands.pulls["b"].back() == "H");
  CHECK(op.status().copies[0].state == CopyStatus::State::kDone);
}

TEST_CASE("tree adapter: each algorithm gives a tree rooted at the source, auto within 1% of every baseline and crossing trunks least") {
  std::vector<TreeNode> nodes{{"hnowd", "", {50e6, 50e6}}};
  for (int i = 0; i < 6; ++i)
    nodes.push_back({"n" + std::to_string(i), i < 3 ? "s1" : "s2", {i % 2 ? 3e6 : 50e6, i % 2 ? 3e6 : 50e6}});
  // Each room's trunk is taken at its fastest port: copies through them.
  const planner::SiteLinks sites = siteLinksOf(nodes);
  auto crossings = [&](const SendTree& t) {
    int count = 0;
    for (std::size_t v = 1; v < t.parent.size(); ++v) count += sites.limitedCrossings(t.parent[v], static_cast<int>(v));
    return count;
  };
  double best = 1e300;
  int fewestCrossings = 1 << 30;
  for (const char* algo : {"fnf", "optimal", "lcf", "binomial", "chain", "flat"}) {
    SendTree t = plannedTree(algo, nodes, 64 << 20, 128 << 10);
    REQUIRE(t.parent.size() == nodes.size());
    CHECK(t.algo == algo);
    CHECK(t.parent[0] == -1);
    for (std::size_t v = 1; v < nodes.size(); ++v) {  // every node reaches the source
      int hops = 0;
      for (int u = static_cast<int>(v); u != 0 && hops <= 7; u = t.parent[static_cast<std::size_t>(u)]) ++hops;
      CHECK(hops <= 6);
    }
    REQUIRE(t.considered.size() == 2);  // the tree predicted both ways
    CHECK(t.considered[1].predictedSeconds == doctest::Approx(t.predictedSeconds));
    best = std::min(best, t.predictedSeconds);
    fewestCrossings = std::min(fewestCrossings, crossings(t));
  }
  SendTree chosen = plannedTree("auto", nodes, 64 << 20, 128 << 10);
  REQUIRE(chosen.considered.size() == 2);
  CHECK(chosen.considered[0].algo == "lcf");  // two site labels among the agents
  CHECK(chosen.considered[0].mode == "store-and-forward");
  CHECK(chosen.considered[1].algo == "pipelined");
  // hnow's plans trade up to 1% of predicted time for fewer copies through
  // a trunk (planner/pipelined/trunk_crossings.h); the baselines do not.
  CHECK(chosen.predictedSeconds <= best * 1.01);
  CHECK(crossings(chosen) <= fewestCrossings);
  // A 3 MB/s downlink bounds every tree: size / 3 MB/s at least, and so does the fluid bound.
  CHECK(chosen.predictedSeconds >= (64 << 20) / 3e6);
  CHECK(chosen.fluidBoundSeconds == doctest::Approx((64 << 20) / 3e6));
}

TEST_CASE("tree adapter: slow senders with fast downlinks make auto choose the pipelined tree, far ahead of flat") {
  // The demo's kind of lab: hnowd and two fast machines, six that send slowly but receive well.
  std::vector<TreeNode> nodes{{"hnowd", "", {50e6, 50e6}}};
  for (int i = 0; i < 8; ++i) nodes.push_back({"n" + std::to_string(i), "one", {i < 2 ? 50e6 : 3e6, 50e6}});
  SendTree chosen = plannedTree("auto", nodes, 256 << 20, 128 << 10);
  CHECK(chosen.algo == "pipelined");
  CHECK(chosen.considered[0].algo == "fnf");  // one site: FNF is the seeds' candidate
  SendTree flat = plannedTree("flat", nodes, 256 << 20, 128 << 10);
  CHECK(flat.predictedSeconds > 2 * chosen.predictedSeconds);  // 50/8 vs 50/3 MB/s per copy
  for (std::size_t v = 1; v < nodes.size(); ++v)
    CHECK(chosen.finish[v] <= chosen.predictedSeconds);
}

TEST_CASE("tree adapter: on an uplink-bound lab auto weighs the striped plan and takes it, each stripe a tree over every agent") {
  // Fast downlinks, mixed uplinks: one tree leaves its leaves' uplinks idle.
  std::vector<TreeNode> nodes{{"hnowd", "", {50e6, 50e6}}};
  for (int i = 0; i < 8; ++i) nodes.push_back({"n" + std::to_string(i), "one", {i < 2 ? 50e6 : i < 5 ? 12.5e6 : 6e6, 50e6}});
  const std::uint64_t size = 128 << 20;
  auto planned = planSendTree("auto", nodes, size, 128 << 10, true);
  REQUIRE(planned);
  const SendTree& t = *planned;
  REQUIRE(t.considered.size() == 3);
  CHECK(t.considered[2].algo == "striped");
  CHECK(t.algo == "striped");
  CHECK(t.predictedSeconds <= t.considered[1].predictedSeconds * (1 - kStripedGain));
  CHECK(t.why.find("striped") == 0);
  CHECK(t.boundSeconds > 0);
  CHECK(t.predictedSeconds >= t.boundSeconds * 0.999);
  REQUIRE(t.striped());
  REQUIRE(t.stripeOffsets.size() == t.stripeParents.size() + 1);
  CHECK(t.stripeOffsets.front() == 0);
  CHECK(t.stripeOffsets.back() == size);
  for (std::size_t k = 0; k + 1 < t.stripeOffsets.size(); ++k) {
    CHECK(t.stripeOffsets[k] % (128 << 10) == 0);  // whole chunks
    CHECK(t.stripeOffsets[k] < t.stripeOffsets[k + 1]);
    const std::vector<int>& parent = t.stripeParents[k];
    REQUIRE(parent.size() == nodes.size());
    CHECK(parent[0] == -1);
    for (std::size_t v = 1; v < nodes.size(); ++v) {  // every agent reaches hnowd
      int hops = 0;
      for (int u = static_cast<int>(v); u != 0 && hops <= 8; u = parent[static_cast<std::size_t>(u)]) ++hops;
      CHECK(hops <= 8);
    }
  }
  // Without weighStriped (replans, manifests) the same lab gets one tree.
  auto oneTree = planSendTree("auto", nodes, size, 128 << 10);
  REQUIRE(oneTree);
  CHECK_FALSE(oneTree->striped());
  CHECK(oneTree->considered.size() == 2);
  // Agents in two sites: the striped plan is weighed with the rooms, and
  // --algo striped plans stripes whatever the sites.
  nodes[1].site = "two";
  auto sited = planSendTree("auto", nodes, size, 128 << 10, true);
  REQUIRE(sited);
  REQUIRE(sited->considered.size() == 3);
  CHECK(sited->considered[2].algo == "striped");
  auto forced = planSendTree("striped", nodes, size, 128 << 10);
  REQUIRE(forced);
  CHECK(forced->striped());
}

namespace {

// How many edges of `parent` enter `site` from outside it.
int entriesInto(const std::vector<int>& parent, const std::vector<TreeNode>& nodes, const std::string& site) {
  int count = 0;
  for (std::size_t v = 1; v < parent.size(); ++v)
    if (parent[v] >= 0 && nodes[v].site == site && nodes[static_cast<std::size_t>(parent[v])].site != site) ++count;
  return count;
}

}  // namespace

TEST_CASE("tree adapter: two rooms by their labels - auto's plan enters the far room once per stripe, never a chain across") {
  // Room A: hnowd and 4 agents, room B: 4 agents, every link 50 MB/s: a
  // chain of hosts in name order would cross between the rooms again and again.
  std::vector<TreeNode> nodes{{"hnowd", "", {50e6, 50e6}}};
  for (int i = 0; i < 8; ++i) nodes.push_back({"n" + std::to_string(i), i % 2 ? "B" : "A", {50e6, 50e6}});
  const std::uint64_t size = 128 << 20;
  auto planned = planSendTree("auto", nodes, size, 128 << 10, true);
  REQUIRE(planned);
  const SendTree& t = *planned;
  if (t.striped()) {
    for (const std::vector<int>& parent : t.stripeParents) CHECK(entriesInto(parent, nodes, "B") == 1);
  } else {
    CHECK(entriesInto(t.parent, nodes, "B") == 1);
  }
  CHECK(entriesInto(t.parent, nodes, "A") == 1);
  // The chain, predicted with the trunk it shares, is far slower than the plan.
  auto chain = planSendTree("chain", nodes, size, 128 << 10);
  REQUIRE(chain);
  CHECK(entriesInto(chain->parent, nodes, "B") > 1);
  CHECK(chain->predictedSeconds > 1.5 * t.predictedSeconds);
  // The rooms' trunks are assumed, not measured: the bound is the star's.
  CHECK(t.boundSeconds == doctest::Approx(size / 50e6));

  // B's trunk measured at 12.5 MB/s each way: the bound is F through it,
  // and the plan is predicted within 10% of it, entering B once per stripe.
  for (TreeNode& node : nodes)
    if (node.site == "B") node.roomTrunk = {12.5e6, 12.5e6};
  auto measured = planSendTree("auto", nodes, size, 128 << 10, true);
  REQUIRE(measured);
  CHECK(measured->boundSeconds == doctest::Approx(size / 12.5e6));
  CHECK(measured->predictedSeconds >= measured->boundSeconds * 0.999);
  CHECK(measured->predictedSeconds <= measured->boundSeconds * 1.10);
  if (measured->striped()) {
    for (const std::vector<int>& parent : measured->stripeParents) CHECK(entriesInto(parent, nodes, "B") == 1);
  } else {
    CHECK(entriesInto(measured->parent, nodes, "B") == 1);
  }
}

TEST_CASE("an agent lost for silence that reports again is back: its copy resumes and finishes") {
  ManualClock clock;
  RecordingCommands commands;
  SendOperation op(clock, chain(), {"hnowd", "a", "b", "c", "d"}, {"H", "A", "B", "C", "D"},
                   {"", "/a", "/b", "/c", "/d"}, 100, "sha", commands);
  op.start();
  op.lost("b");  // its heartbeats queued behind data: hnowd declares it lost
  CHECK(op.status().copies[1].state == CopyStatus::State::kFailed);
  CHECK(commands.pulls["c"].back() == "A");  // its child moved
  TransferReport progress;
  progress.bytes = 40;
  CHECK(op.report("b", progress));  // yet it reports: it is back
  CHECK(op.status().copies[1].state == CopyStatus::State::kReceiving);
  CHECK(op.status().copies[1].message.empty());
  CHECK(commands.pulls["b"] == std::vector<std::string>{"A"});  // its parent stands: no new pull
  CHECK_FALSE(op.report("b", progress));  // only the first report brings it back
  op.report("a", done("sha"));
  op.report("c", done("sha"));
  op.report("d", done("sha"));
  CHECK_FALSE(op.finished());  // b is receiving again: the send waits for it
  CHECK(op.report("b", done("sha")) == false);
  CHECK(op.finished());
  for (const CopyStatus& c : op.status().copies) CHECK(c.state == CopyStatus::State::kDone);
}

TEST_CASE("a node back after being lost pulls from the nearest parent standing, and a second loss fails it") {
  ManualClock clock;
  RecordingCommands commands;
  SendOperation op(clock, chain(), {"hnowd", "a", "b", "c", "d"}, {"H", "A", "B", "C", "D"},
                   {"", "/a", "/b", "/c", "/d"}, 100, "sha", commands);
  op.start();
  op.lost("c");
  op.lost("b");  // c's parent, lost too
  TransferReport progress;
  progress.bytes = 10;
  CHECK(op.report("c", progress));
  CHECK(commands.pulls["c"].back() == "A");  // b cannot serve: the nearest standing ancestor
  CHECK(op.status().copies[2].parent == "a");
  op.lost("c");  // gone again
  CHECK(op.status().copies[2].state == CopyStatus::State::kFailed);
  CHECK(op.status().copies[2].message == "agent lost");
}

TEST_CASE("a lost node's report after the send finished does not reopen it, nor does a failure report revive it, and the send waits 5 s for a lost one") {
  ManualClock clock;
  RecordingCommands commands;
  SendOperation op(clock, chain(), {"hnowd", "a", "b", "c", "d"}, {"H", "A", "B", "C", "D"},
                   {"", "/a", "/b", "/c", "/d"}, 100, "sha", commands);
  op.start();
  op.lost("d");
  TransferReport failed;
  failed.state = TransferReport::State::kFailed;
  failed.message = "the source agent was lost";
  CHECK_FALSE(op.report("d", failed));
  CHECK(op.status().copies[3].state == CopyStatus::State::kFailed);
  op.report("a", done("sha"));
  op.report("b", done("sha"));
  op.lost("c");
  CHECK_FALSE(op.finished());  // c may report again within 5 s
  clock.advance(std::chrono::seconds(5));
  CHECK(op.finished());
  TransferReport progress;
  progress.bytes = 99;
  CHECK_FALSE(op.report("c", progress));
  CHECK(op.finished());
  CHECK(op.status().copies[2].state == CopyStatus::State::kFailed);
}

TEST_CASE("tree adapter: stripes over slow links go in small chunks, over fast links never below 1/2000 s of the fastest") {
  // 32 volunteers at 0.5-2 Mbit/s up, 4 down, hnowd 4 up: a 32 KiB chunk
  // to each of a relay's children takes seconds a hop.
  auto lab = [](double scale) {
    std::vector<TreeNode> nodes{{"hnowd", "", {0.5e6 * scale, 0.5e6 * scale}}};
    for (int i = 0; i < 32; ++i) {
      const double up = (i % 3 == 0 ? 62.5e3 : i % 3 == 1 ? 125e3 : 250e3) * scale;
      nodes.push_back({"v" + std::to_string(i), "one", {up, 0.5e6 * scale}});
    }
    return nodes;
  };
  auto slow = planSendTree("striped", lab(1), 4 << 20, 128 << 10);
  REQUIRE(slow);
  CHECK(slow->stripeChunkBytes < 32 * 1024);
  CHECK(slow->stripeChunkBytes >= kStripeMinChunkBytes);
  // The uplink-bound lab at 400/100/50 Mbit/s, whose stripes the model
  // would relay in 16 KiB: 50 MB/s / 2000 = 25 kB at least.
  std::vector<TreeNode> nodes{{"hnowd", "", {50e6, 50e6}}};
  for (int i = 0; i < 8; ++i) nodes.push_back({"n" + std::to_string(i), "one", {i < 2 ? 50e6 : i < 5 ? 12.5e6 : 6e6, 50e6}});
  auto fast = planSendTree("striped", nodes, 128 << 20, 128 << 10);
  REQUIRE(fast);
  CHECK(fast->stripeChunkBytes >= 25e3);
}

TEST_CASE("a copy lost (told twice) while the others finish comes back within 5 s and completes: the send waits for it") {
  ManualClock clock;
  RecordingCommands commands;
  SendOperation op(clock, chain(), {"hnowd", "a", "b", "c", "d"}, {"H", "A", "B", "C", "D"},
                   {"", "/a", "/b", "/c", "/d"}, 100, "sha", commands);
  op.start();
  op.lost("d");  // its connection to hnowd dropped: it may be only overloaded
  op.lost("d");  // and the next tick found it silent: told twice, still resumable
  for (const char* node : {"a", "b", "c"}) op.report(node, done("sha"));
  CHECK_FALSE(op.finished());
  clock.advance(std::chrono::seconds(2));
  TransferReport progress;
  progress.bytes = 60;
  CHECK(op.report("d", progress));  // back: its copy resumes from its 60 bytes
  CHECK(op.status().copies[3].state == CopyStatus::State::kReceiving);
  clock.advance(std::chrono::seconds(10));
  CHECK_FALSE(op.finished());  // receiving again: no grace to run out
  op.report("d", done("sha"));
  CHECK(op.finished());
  CHECK(op.status().copies[3].state == CopyStatus::State::kDone);
}
