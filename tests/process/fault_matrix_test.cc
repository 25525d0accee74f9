// The fault matrix: a send to 8 agents along a binomial tree, and
// one agent SIGKILLed at about 10%, 50% and 90% of the send, once in each
// tree position: a leaf, an inner node (a relay whose parent is an agent),
// a child of the source; and a striped send whose busiest relay (the most
// children over all its stripes) is killed. Progress is what the agents' disks hold. Each case
// asserts the promises of docs/fault-matrix.md: every surviving agent holds
// a byte-identical copy (its children re-parented) and only the killed one
// is reported failed; nothing partial at a destination path; no temp file
// left under any root once the send ended (the killed agent's own, left by
// SIGKILL, is swept when it starts again); and the daemons serve the next
// request: a small send to all 8 once the killed agent is back.
// One lab per position; the killed agent is started again between cases.
#include <doctest/doctest.h>

#include "process/fault_lab.h"

using hnow::testing::eventually;
using hnow::testing::FaultLab;
using hnow::testing::readWhole;
using hnow::testing::writeRandomFile;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

enum class Position { kLeaf, kInner, kSourceChild, kStripeRelay };

const char* nameOf(Position p) {
  switch (p) {
    case Position::kLeaf: return "leaf";
    case Position::kInner: return "inner node";
    case Position::kSourceChild: return "child of the source";
    case Position::kStripeRelay: return "relay of stripes";
  }
  return "";
}

// 40 Mbit/s everywhere. The binomial tree of hnowd and 8 agents (in name
// order, planner/broadcast/broadcast.cc): hnowd feeds agents 1, 2, 4 and 8 at
// 10 Mbit/s each, agent-4 relays to 5 and 6, agent-6 to 7, agent-2 to 3;
// 3 MiB take about 2.5 s.
struct Row {
  const char* labOptions;
  const char* algo;
  std::uintmax_t fileBytes;
};
constexpr Row kTreeRow{"--uplink-mbps 40 --source-uplink-mbps 40", "binomial", 3 << 20};
// Uplink-bound: hnowd 40, agents 20 up and 80 down. The striped plan feeds
// every agent at (40 + 8 x 20) / 8 = 25 Mbit/s, in several stripes with a
// relay in each; 8 MiB take about 2.7 s.
constexpr Row kStripedRow{"--uplink-mbps 20 --downlink-mbps 80 --source-uplink-mbps 40", "striped", 8 << 20};

// The agent with the most children over all trees (a striped send's).
std::string busiestRelay(const std::vector<std::map<std::string, std::string>>& trees) {
  std::map<std::string, int> children;
  for (const auto& tree : trees)
    for (const auto& [node, up] : tree)
      if (up != "hnowd") ++children[up];
  std::string best;
  for (const auto& [node, kids] : children)
    if (best.empty() || kids > children[best]) best = node;
  return best;
}

// The agent in position `p` of the tree (node -> parent), or "": the
// deepest leaf, the relay with the most children.
std::string victimAt(const std::map<std::string, std::string>& parent, Position p) {
  std::map<std::string, int> children;
  for (const auto& [node, up] : parent) ++children[up];
  auto depth = [&](std::string node) {
    int d = 0;
    while (parent.count(node) && d < 64) node = parent.at(node), ++d;
    return d;
  };
  std::string best;
  int bestScore = -1;
  for (const auto& [node, up] : parent) {
    const int kids = children.count(node) ? children[node] : 0;
    const bool fits = (p == Position::kLeaf && kids == 0 && up != "hnowd") ||
                      (p == Position::kInner && kids > 0 && up != "hnowd") ||
                      (p == Position::kSourceChild && kids > 0 && up == "hnowd");
    const int score = p == Position::kLeaf ? depth(node) : kids;
    if (fits && score > bestScore) best = node, bestScore = score;
  }
  return best;
}

void killCase(FaultLab& lab, Position position, double fraction, int index, const Row& row) {
  const std::string label = "case-" + std::to_string(index), dest = "m/" + label + ".bin";
  const fs::path source = lab.dir.path / "source.bin";
  const std::string bytes = writeRandomFile(source, row.fileBytes, static_cast<std::uint64_t>(index));
  const auto started = Clock::now();
  auto send = lab.startClient("send " + source.string() + " --dest " + dest + " --algo " + row.algo + " --json", label);
  REQUIRE(eventually([&] { return lab.treeOf(label).size() == static_cast<std::size_t>(lab.agents()); }, 10s));
  const auto trees = lab.treesOf(label);
  const std::string victim =
      position == Position::kStripeRelay ? busiestRelay(trees) : victimAt(trees.front(), position);
  REQUIRE_MESSAGE(!victim.empty(), "no " << std::string(nameOf(position)) << " in " << readWhole(lab.errPath(label)));
  if (position == Position::kStripeRelay) REQUIRE(trees.size() >= 2);  // the plan is striped
  int orphans = 0;
  for (const auto& tree : trees)
    for (const auto& [node, up] : tree) orphans += up == victim;

  REQUIRE(eventually([&] { return lab.progress(dest, row.fileBytes) >= fraction; }, 20s));
  const double killedAt = lab.progress(dest, row.fileBytes);
  lab.kill(victim);
  auto status = send->waitExit(30s);
  REQUIRE(status.has_value());
  auto report = nlohmann::json::parse(readWhole(lab.outPath(label)));

  // Every surviving agent holds a byte-identical copy; only the victim may fail.
  bool victimFailed = false;
  for (const auto& failed : report["failed"]) {
    CHECK(failed["node"] == victim);
    CHECK(failed["reason"] == "agent lost");
    victimFailed = true;
  }
  CHECK(report["copies"].size() + report["failed"].size() == static_cast<std::size_t>(lab.agents()));
  for (const auto& copy : report["copies"]) {
    CHECK(readWhole(copy["path"].get<std::string>()) == bytes);
    if (victimFailed) CHECK(copy["parent"] != victim);  // its children moved to a live parent
    if (victimFailed && copy.contains("stripe_parents"))  // in every stripe
      for (const auto& parent : copy["stripe_parents"]) CHECK(parent != victim);
  }
  CHECK(*status == (victimFailed ? 1 : 0));
  // Nothing partial at the victim's destination: no file, or the whole one.
  const fs::path victimCopy = lab.rootOf(victim) / dest;
  CHECK((!fs::exists(victimCopy) || readWhole(victimCopy) == bytes));
  // No temp file under a live agent's root once the send ended.
  CHECK(eventually(
      [&] {
        int n = 0;
        for (int k = 1; k <= lab.agents(); ++k)
          if (FaultLab::name(k) != victim) n += FaultLab::leftoversUnder(lab.root(k));
        return n == 0;
      },
      3s));
  auto ops = lab.ops();
  REQUIRE(!ops.empty());
  CHECK(ops[0]["kind"] == "send");
  CHECK(ops[0]["status"] == (victimFailed ? "failed" : "done"));
  CHECK(ops[0]["summary"]["ok"] == report["copies"].size());

  // The victim comes back: what SIGKILL left is kept for the next send of
  // the file (docs/send.md, "An agent that restarts mid-send"), which
  // completes its copy; then all 8 take the next send.
  lab.restart(victim);
  REQUIRE(lab.allReady());
  if (victimFailed) {
    auto again = hnow::testing::runCommand(lab.hnow() + " send " + source.string() + " --dest " + dest + " --to " +
                                           victim + " --json");
    CHECK_MESSAGE(again.status == 0, again.err);
    CHECK(readWhole(victimCopy) == bytes);
  }
  CHECK(eventually([&] { return FaultLab::leftoversUnder(lab.rootOf(victim)) == 0; }, 5s));
  CHECK(lab.followUpSend("m/after-" + label + ".bin", lab.agents()));
  CHECK(lab.leftovers() == 0);
  const double caseS = std::chrono::duration<double>(Clock::now() - started).count();
  MESSAGE("fault matrix: kill " << std::string(nameOf(position)) << " " << victim << " (" << orphans << " children) at "
                                << static_cast<int>(fraction * 100) << "% (measured "
                                << static_cast<int>(killedAt * 100) << "%): "
                                << std::string(victimFailed ? "reported failed" : "had its copy") << ", "
                                << report["copies"].size() << " copies byte-identical, "
                                << report["parent_changes"].size() << " parent changes, send "
                                << report["actual_s"] << " s, case with restart and follow-up " << caseS << " s");
}

void matrixRow(Position position, const Row& row = kTreeRow) {
  FaultLab lab(8, row.labOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  int index = 0;
  for (double fraction : {0.1, 0.5, 0.9}) {
    CAPTURE(fraction);
    killCase(lab, position, fraction, ++index, row);
  }
}

}  // namespace

TEST_CASE("fault matrix: a leaf killed at 10%, 50% and 90% of a send to 8 agents") { matrixRow(Position::kLeaf); }

TEST_CASE("fault matrix: an inner node (relay) killed at 10%, 50% and 90% of a send to 8 agents") {
  matrixRow(Position::kInner);
}

TEST_CASE("fault matrix: a child of the source killed at 10%, 50% and 90% of a send to 8 agents") {
  matrixRow(Position::kSourceChild);
}

TEST_CASE("fault matrix: the busiest relay of a striped send killed at 10%, 50% and 90% of a send to 8 agents") {
  matrixRow(Position::kStripeRelay, kStripedRow);
}
