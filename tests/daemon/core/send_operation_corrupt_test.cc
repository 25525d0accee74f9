// A relay caught sending bytes that differ from the source's: its child
// reports its parent corrupt, and hnowd bars the relay for the rest of the
// send (SendOperation, send_replan.h), deterministically.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "daemon/core/send_commands_recorder.h"
#include "core/send/send_operation.h"
#include "core/send/send_replan.h"
#include "core/send/send_tree.h"

using namespace hnow;
using namespace hnow::daemon;

namespace {

using testing::copyOf;
using testing::RecordingCommands;
using testing::Relayed;

using Pulls = std::vector<std::string>;

TransferReport corrupt(std::uint64_t bytes, const std::string& parentAddress = "") {
  TransferReport r;
  r.state = TransferReport::State::kParentCorrupt;
  r.bytes = bytes;
  r.message = "the chunk at byte " + std::to_string(bytes) + " differs from the source's (SHA-256)";
  r.parentAddress = parentAddress;
  return r;
}

TransferReport done(const std::string& sha) { return testing::doneReport(sha); }


}  // namespace

TEST_CASE("a corrupt report from a relay's child bars the relay - all its receiving children move to the nearest standing ancestor and its own copy still completes") {
  Relayed send;
  send.op.report("b", corrupt(262144));
  // a serves nobody now: b (which reported) and c pull from hnowd; d stays under b.
  CHECK(send.commands.pulls["b"] == Pulls{"A", "H"});
  CHECK(send.commands.pulls["c"] == Pulls{"A", "H"});
  CHECK(send.commands.pulls["d"] == Pulls{"B"});
  CHECK_FALSE(send.op.canServe(1));
  CHECK(send.op.barred(1));
  SendStatus s = send.op.status();
  CHECK(copyOf(s, "a").state == CopyStatus::State::kReceiving);  // its copy goes on
  CHECK(copyOf(s, "b").parent == "hnowd");
  CHECK(copyOf(s, "b").bytes == 262144);
  CHECK(copyOf(s, "c").parent == "hnowd");
  REQUIRE(s.parentChanges.size() == 2);
  for (const ParentChange& change : s.parentChanges) {
    CHECK(change.oldParent == "a");
    CHECK(change.newParent == "hnowd");
    CHECK(change.reason.find("corrupt: a relayed bytes that differ from the source's") != std::string::npos);
  }
  const std::vector<RelayFault> faults = send.op.takeRelayFaults();
  REQUIRE(faults.size() == 1);
  CHECK(faults[0].relay == "a");
  CHECK(faults[0].reporter == "b");
  CHECK(faults[0].bytes == 262144);
  CHECK(faults[0].message == "the chunk at byte 262144 differs from the source's (SHA-256)");
  CHECK(send.op.takeRelayFaults().empty());  // taken once

  // c caught the same chunk before it heard: its report concerns a, which is
  // barred already: c is told to pull again from where it pulls now, a is not counted twice.
  send.op.report("c", corrupt(262144));
  CHECK(send.commands.pulls["c"] == Pulls{"A", "H", "H"});
  CHECK(send.op.takeRelayFaults().empty());
  CHECK(send.op.status().parentChanges.size() == 2);

  for (const char* node : {"a", "b", "c", "d"}) send.op.report(node, done("sha"));
  CHECK(send.op.finished());
  for (const CopyStatus& c : send.op.status().copies) CHECK(c.state == CopyStatus::State::kDone);
  CHECK(send.commands.pulls["a"] == Pulls{"H"});  // the barred relay itself was never moved
}

TEST_CASE("a corrupt report against the source fails that copy saying the source's file changed while it was sent") {
  Relayed send;
  send.op.report("a", corrupt(1 << 19));
  SendStatus s = send.op.status();
  CHECK(copyOf(s, "a").state == CopyStatus::State::kFailed);
  CHECK(copyOf(s, "a").message.find("the source's bytes differ from the digests taken of them: hnowd's file changed "
                                    "while it was sent (the chunk at byte 524288 differs") == 0);
  CHECK(send.op.takeRelayFaults().empty());  // no relay to blame
  CHECK_FALSE(send.op.barred(1));
  // a failed: its children pull from hnowd.
  CHECK(send.commands.pulls["b"] == Pulls{"A", "H"});
  CHECK(send.commands.pulls["c"] == Pulls{"A", "H"});
}

TEST_CASE("a corrupt report that names its parent's address blames that parent, and one that names a parent left behind blames nobody") {
  Relayed send;
  send.op.report("d", corrupt(4096, "B"));  // b altered what it relayed to d
  CHECK(send.op.barred(2));
  CHECK(send.commands.pulls["d"] == Pulls{"B", "A"});  // b's nearest standing ancestor
  REQUIRE(send.op.takeRelayFaults().size() == 1);
  send.op.report("d", corrupt(4096, "B"));  // again, late: b is barred already
  CHECK(send.commands.pulls["d"] == Pulls{"B", "A", "A"});
  CHECK(send.op.takeRelayFaults().empty());
  send.op.report("d", corrupt(8192, "A"));  // now a: barred too, b and c and d go to hnowd
  CHECK(send.op.barred(1));
  CHECK(send.commands.pulls["d"].back() == "H");
  CHECK(send.commands.pulls["b"] == Pulls{"A", "H"});
  CHECK(send.commands.pulls["c"] == Pulls{"A", "H"});
  const std::vector<RelayFault> faults = send.op.takeRelayFaults();
  REQUIRE(faults.size() == 1);
  CHECK(faults[0].relay == "a");
  CHECK(faults[0].reporter == "d");
}

TEST_CASE("a barred relay that is lost and reports again resumes its copy and still serves nobody") {
  Relayed send;
  send.op.report("d", corrupt(4096));  // b barred; d to a
  REQUIRE(send.op.barred(2));
  send.op.lost("b");
  CHECK(copyOf(send.op.status(), "b").state == CopyStatus::State::kFailed);
  TransferReport progress;
  progress.bytes = 1 << 19;
  CHECK(send.op.report("b", progress));  // back
  CHECK(copyOf(send.op.status(), "b").state == CopyStatus::State::kReceiving);
  CHECK_FALSE(send.op.canServe(2));
  CHECK(copyOf(send.op.status(), "d").parent == "a");
  // Its copy completes like any other.
  send.op.report("b", done("sha"));
  CHECK(copyOf(send.op.status(), "b").state == CopyStatus::State::kDone);
}

TEST_CASE("with replanning a relay caught altering bytes is re-planned as a leaf - it keeps receiving, feeds nobody and finishes") {
  // hnowd at 40 MB/s; a relays at 120 MB/s, b at 60, c and d at 8: the
  // max-bottleneck tree is hnowd -> a -> {b, c, d} at 40 MB/s. Without a,
  // hnowd feeding all four gives each 10 MB/s; with b relaying, 20.
  const double MB = 1e6;
  std::vector<TreeNode> nodes{{"hnowd", "", {40 * MB, 200 * MB}},
                              {"a", "", {120 * MB, 200 * MB}},
                              {"b", "", {60 * MB, 200 * MB}},
                              {"c", "", {8 * MB, 200 * MB}},
                              {"d", "", {8 * MB, 200 * MB}}};
  auto tree = planSendTree("auto", nodes, 100'000'000, 1 << 20);
  REQUIRE(tree);
  REQUIRE(tree->parent == std::vector<int>{-1, 0, 1, 1, 1});
  ManualClock clock;
  RecordingCommands commands;
  SendOperation op(clock, *tree, {"hnowd", "a", "b", "c", "d"}, {"H", "A", "B", "C", "D"},
                   {"", "/a", "/b", "/c", "/d"}, 100'000'000, "sha", commands);
  ReplanSettings settings;
  settings.nodes = nodes;
  op.setReplanning(settings);
  op.start();
  op.report("c", corrupt(1 << 20));
  REQUIRE(op.barred(1));
  const SendStatus s = op.status();
  CHECK(s.replans == 1);
  for (const CopyStatus& c : s.copies) CHECK(c.parent != "a");
  CHECK(copyOf(s, "a").state == CopyStatus::State::kReceiving);
  for (const char* moved : {"b", "c", "d"}) CHECK(commands.pulls[moved].size() == 2);
  for (const ParentChange& change : s.parentChanges)
    CHECK(change.reason == "replan: corrupt: a relayed bytes that differ from the source's");
  // A later replan (a drift) never gives a children either.
  op.ratesChanged("b", {200 * MB, 200 * MB}, "drift: b uplink 64.0 -> 1600.0 Mbit/s");
  for (const CopyStatus& c : op.status().copies) CHECK(c.parent != "a");
  for (const char* node : {"a", "b", "c", "d"}) op.report(node, done("sha"));
  CHECK(op.finished());
  CHECK(copyOf(op.status(), "a").state == CopyStatus::State::kDone);
}

TEST_CASE("replanning takes a node that receives but may serve nobody as a leaf - in the new tree and in the one kept") {
  const double MB = 1e6;
  ReplanInput in;
  in.nodes = {{"hnowd", "", {40 * MB, 200 * MB}},
              {"a", "", {120 * MB, 200 * MB}},
              {"b", "", {8 * MB, 200 * MB}},
              {"c", "", {8 * MB, 200 * MB}}};
  in.parent = {-1, 0, 1, 1};  // a still listed as b's and c's parent
  in.progress.resize(4);
  in.progress[1].state = ReplanNode::State::kReceivesOnly;
  in.size = 100'000'000;
  const ReplanAnswer answer = replanSend(in);
  // The tree kept is predicted with b and c under hnowd, never through a.
  CHECK(std::isfinite(answer.keptSeconds));
  for (int parent : answer.parent) CHECK(parent != 1);
  if (answer.adopt) CHECK(answer.parent[1] >= 0);  // a still receives: it has a parent
  // The same with `a` a relay suspect from the start (TreeNode::relays).
  in.progress[1].state = ReplanNode::State::kReceiving;
  in.nodes[1].relays = false;
  const ReplanAnswer suspect = replanSend(in);
  CHECK(std::isfinite(suspect.keptSeconds));
  for (int parent : suspect.parent) CHECK(parent != 1);
}
