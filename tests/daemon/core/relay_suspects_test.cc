// hnowd's ledger of relays caught altering bytes (relay_suspects.h): what
// it counts, how a suspect is planned by every algorithm, and what
// SendService logs and counts when a child catches its relay.
#include <cmath>

#include "core/trust/relay_suspects.h"
#include "daemon/core/send_lab.h"
#include "daemon/server/captured_log.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::send_lab;

namespace {

// hnowd and six agents in two rooms; n1 comes first, so that chain and
// binomial make it a relay by its place alone.
std::vector<TreeNode> sixAgents() {
  std::vector<TreeNode> nodes{{"hnowd", "", {40e6, 100e6}}};
  for (int i = 1; i <= 6; ++i)
    nodes.push_back({"n" + std::to_string(i), i <= 3 ? "east" : "west", {i <= 2 ? 60e6 : 20e6, 100e6}});
  return nodes;
}

// Whether node `v` feeds anyone in `tree`, in any of its stripes.
bool relaysIn(const SendTree& tree, int v) {
  std::vector<std::vector<int>> all = tree.stripeParents;
  all.push_back(tree.parent);
  for (const std::vector<int>& parent : all)
    if (std::count(parent.begin(), parent.end(), v) > 0) return true;
  return false;
}

TransferReport corruptAt(std::uint64_t bytes, const std::string& parent) {
  TransferReport r;
  r.state = TransferReport::State::kParentCorrupt;
  r.bytes = bytes;
  r.message = "the chunk at byte " + std::to_string(bytes) + " from " + parent + " differs from the source's (SHA-256)";
  return r;
}

int faultsOf(const Coordinator& coordinator, const std::string& agent) {
  for (const AgentView& a : coordinator.status())
    if (a.record.name == agent) return a.relayFaults;
  FAIL("no agent " << agent);
  return -1;
}

// A copy fed by another agent in `status`: (child, relay), or empty.
std::pair<std::string, std::string> relayedCopy(const SendStatus& status) {
  for (const CopyStatus& c : status.copies)
    if (c.parent != "hnowd") return {c.node, c.parent};
  return {};
}

void finishAll(Lab& lab, const std::string& token) {
  for (const char* agent : {"a1", "a2", "a3"}) lab.coordinator.reportTransfer(lab.sessions[agent], token, lab.done());
}

}  // namespace

TEST_CASE("the relay ledger counts faults per agent - one fault leaves an agent a relay, two make it a suspect planned as a leaf") {
  RelaySuspects suspects;
  CHECK(suspects.faults("n1") == 0);
  const RelayFault fault{"n1", "n2", 262144, "the chunk at byte 262144 differs"};
  std::vector<std::string> lines = suspects.caught("send", 3, {fault});
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "send 3: n2 caught n1 relaying bytes that differ from the source's at byte 262144 (the chunk at "
                    "byte 262144 differs); n1 relays nothing more in this send");
  CHECK_FALSE(suspects.suspect("n1"));
  std::vector<TreeNode> nodes = sixAgents();
  suspects.planLeaves(nodes);
  CHECK(nodes[1].relays);
  // chain: hnowd -> n1 -> n2 -> ...: with one fault n1 still relays.
  auto chain = planSendTree("chain", nodes, 64 << 20, 128 << 10);
  REQUIRE(chain);
  CHECK(relaysIn(*chain, 1));

  lines = suspects.caught("manifest", 4, {fault});
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].find("manifest 4: n2 caught n1") == 0);
  CHECK(lines[0].find("n1 relays nothing more in this manifest") != std::string::npos);
  CHECK(lines[1] == "n1 has relayed bytes that differ from the source's 2 times: it is planned as a leaf (relays "
                    "nothing) from now on");
  CHECK(suspects.suspect("n1"));
  suspects.planLeaves(nodes);
  CHECK_FALSE(nodes[1].relays);
  CHECK(nodes[2].relays);
  suspects.forget("n1");
  CHECK(suspects.faults("n1") == 0);
}

TEST_CASE("a relay suspect is a leaf in every algorithm's plan, still receives its copy, and no prediction divides by zero") {
  RelaySuspects suspects;
  for (int i = 0; i < kSuspectFaults; ++i) suspects.fault("n1");
  std::vector<TreeNode> nodes = sixAgents();
  suspects.planLeaves(nodes);
  for (const char* algo : {"auto", "tree", "striped", "fnf", "optimal", "lcf", "binomial", "chain", "flat"}) {
    CAPTURE(algo);
    auto tree = planSendTree(algo, nodes, 64 << 20, 128 << 10, true);
    REQUIRE_MESSAGE(tree, (tree ? "" : tree.error().message));
    CHECK_FALSE(relaysIn(*tree, 1));
    CHECK(tree->parent[1] >= 0);  // it receives
    for (const std::vector<int>& stripe : tree->stripeParents) CHECK(stripe[1] >= 0);
    CHECK(std::isfinite(tree->predictedSeconds));
    CHECK(tree->predictedSeconds > 0);
  }
  // Every agent a suspect: hnowd feeds them all.
  for (std::size_t i = 1; i < nodes.size(); ++i) nodes[i].relays = false;
  for (const char* algo : {"auto", "fnf", "optimal", "lcf", "binomial", "chain", "flat"}) {
    CAPTURE(algo);
    auto tree = planSendTree(algo, nodes, 64 << 20, 128 << 10);
    REQUIRE(tree);
    CHECK(tree->parent == std::vector<int>{-1, 0, 0, 0, 0, 0, 0});
    CHECK(std::isfinite(tree->predictedSeconds));
  }
}

TEST_CASE("a child that catches its relay is logged naming both agents and the send, the fault is counted, and after two the agent relays in no later plan") {
  Lab lab;
  auto first = started(lab, lab.toAll());
  REQUIRE(first);
  const auto [child, relay] = relayedCopy(first->second);
  REQUIRE_FALSE(relay.empty());
  const std::string token = lab.agents.receives.back().second;
  const std::string log = testing::logOf([&] {
    lab.coordinator.reportTransfer(lab.sessions[child], token, corruptAt(262144, relay + ":9000"));
  });
  CHECK(log.find("send 1: " + child + " caught " + relay +
                 " relaying bytes that differ from the source's at byte 262144 (the chunk at byte 262144 from " +
                 relay + ":9000 differs from the source's (SHA-256)); " + relay +
                 " relays nothing more in this send") != std::string::npos);
  CHECK(faultsOf(lab.coordinator, relay) == 1);
  const SendStatus caught = *lab.service.status(first->first);
  for (const CopyStatus& c : caught.copies) CHECK(c.parent != relay);
  finishAll(lab, token);
  CHECK(lab.service.status(first->first)->finished);

  // One fault: the next send plans it as before, a relay.
  auto second = started(lab, lab.toAll());
  REQUIRE(second);
  const auto [child2, relay2] = relayedCopy(second->second);
  CHECK(relay2 == relay);
  const std::string token2 = lab.agents.receives.back().second;
  const std::string log2 = testing::logOf([&] {
    lab.coordinator.reportTransfer(lab.sessions[child2], token2, corruptAt(4096, relay + ":9000"));
  });
  CHECK(log2.find("send 2: " + child2 + " caught " + relay) != std::string::npos);
  CHECK(log2.find(relay + " has relayed bytes that differ from the source's 2 times: it is planned as a leaf") !=
        std::string::npos);
  CHECK(faultsOf(lab.coordinator, relay) == 2);
  finishAll(lab, token2);

  // Two: a leaf from now on, still sent its own copy.
  auto third = started(lab, lab.toAll());
  REQUIRE(third);
  bool receives = false;
  for (const CopyStatus& c : third->second.copies) {
    CHECK(c.parent != relay);
    receives = receives || c.node == relay;
  }
  CHECK(receives);
}
