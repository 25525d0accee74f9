// A send's picture as hnowd draws it from what its trees kept: each
// edge's planned rate, its achieved rate (the bytes its child received from
// that parent over the time it received from it), the bottleneck, a tree
// per replan or move, and a striped send's stripes.
#include <doctest/doctest.h>

#include "api/report_print_wire.h"
#include "core/send/send_picture.h"
#include "core/send/striped_send.h"
#include "daemon/core/send_commands_recorder.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;

namespace {

using testing::RecordingCommands;

constexpr std::uint64_t kSize = 1000000;

// hnowd (100 MB/s up) -> a (50 MB/s up) -> b (10 MB/s up); downlinks 100 MB/s.
std::vector<TreeNode> chainNodes() {
  return {{"hnowd", "", {100e6, 100e6}}, {"a", "", {50e6, 100e6}}, {"b", "", {10e6, 100e6}}};
}

SendTree chainTree() {
  SendTree t;
  t.algo = "pipelined";
  t.parent = {-1, 0, 1};
  t.finish = {0, 1, 2};
  t.predictedSeconds = 2;
  return t;
}

struct Chain {
  ManualClock clock;
  RecordingCommands commands;
  SendOperation op{clock, chainTree(), {"hnowd", "a", "b"}, {"H", "A", "B"}, {"", "/a", "/b"}, kSize, "sha", commands};
  Chain() {
    ReplanSettings settings;
    settings.enabled = false;
    settings.nodes = chainNodes();
    op.setReplanning(settings);
    op.start();
  }
  void progress(const std::string& node, std::uint64_t bytes) {
    TransferReport r;
    r.bytes = bytes;
    op.report(node, r);
  }
};

const api::PictureEdge& edgeInto(const api::PictureVersion& v, const std::string& child, int stripe = 0) {
  for (const auto& e : v.edges)
    if (e.child == child && e.stripe == stripe) return e;
  FAIL("no edge into " << child << " in stripe " << stripe);
  return v.edges.front();
}

}  // namespace

TEST_CASE("send picture: an edge achieves the bytes its child received over the time it received them, unknown before a byte came") {
  Chain send;
  auto picture = *send.op.status().picture;
  REQUIRE(picture.versions.size() == 1);
  CHECK(picture.nodes[1].uplinkBytesPerS == doctest::Approx(50e6));
  CHECK_FALSE(edgeInto(picture.versions[0], "a").achievedBytesPerS);  // no byte yet: unknown, not 0
  CHECK(edgeInto(picture.versions[0], "a").plannedBytesPerS == doctest::Approx(100e6));
  CHECK(edgeInto(picture.versions[0], "b").plannedBytesPerS == doctest::Approx(50e6));
  // The plan's bottleneck: a feeds b at a's uplink.
  REQUIRE(picture.versions[0].bottleneck);
  CHECK(picture.versions[0].bottleneck->child == "b");
  CHECK(picture.versions[0].bottleneck->node == "a");
  CHECK_FALSE(picture.versions[0].bottleneck->achieved);

  send.clock.advance(2s);
  send.progress("a", kSize);
  send.op.report("a", testing::doneReport("sha"));
  send.progress("b", kSize / 2);
  picture = *send.op.status().picture;
  CHECK(*edgeInto(picture.versions[0], "a").achievedBytesPerS == doctest::Approx(kSize / 2.0));
  CHECK(edgeInto(picture.versions[0], "a").toS == doctest::Approx(2.0));
  // Still receiving: what it achieved so far.
  CHECK(*edgeInto(picture.versions[0], "b").achievedBytesPerS == doctest::Approx(kSize / 4.0));
  CHECK(edgeInto(picture.versions[0], "b").toS == 0.0);

  send.clock.advance(2s);
  send.op.report("b", testing::doneReport("sha"));
  picture = *send.op.status().picture;
  CHECK(picture.finished);
  CHECK(*edgeInto(picture.versions[0], "b").achievedBytesPerS == doctest::Approx(kSize / 4.0));
  // Once ended, the bottleneck is the slowest edge on the way to the last copy held.
  REQUIRE(picture.versions[0].bottleneck);
  CHECK(picture.versions[0].bottleneck->achieved);
  CHECK(picture.versions[0].bottleneck->parent == "a");
  CHECK(picture.versions[0].bottleneck->child == "b");
}

TEST_CASE("send picture: a move starts a tree of its own, the new parent's edge counting only the bytes after the move") {
  Chain send;
  send.clock.advance(1s);
  send.progress("b", 300000);
  send.op.lost("a");  // b moves to hnowd; a never received a byte
  send.clock.advance(2s);
  send.progress("b", kSize);
  send.op.report("b", testing::doneReport("sha"));
  const auto picture = *send.op.status().picture;
  REQUIRE(picture.versions.size() == 2);
  CHECK(picture.versions[1].atS == doctest::Approx(1.0));
  CHECK(picture.versions[1].reason.find("a failed") != std::string::npos);
  const auto& before = edgeInto(picture.versions[0], "b");
  CHECK(before.parent == "a");
  CHECK(before.bytes == 300000);
  CHECK(*before.achievedBytesPerS == doctest::Approx(300000.0));
  const auto& after = edgeInto(picture.versions[1], "b");
  CHECK(after.parent == "hnowd");
  CHECK(after.fromS == doctest::Approx(1.0));
  CHECK(after.bytes == kSize - 300000);
  CHECK(*after.achievedBytesPerS == doctest::Approx((kSize - 300000) / 2.0));
  // a failed holding nothing: its edge's rate is unknown, not 0.
  CHECK_FALSE(edgeInto(picture.versions[1], "a").achievedBytesPerS);
}

TEST_CASE("send picture: a striped send draws each stripe's tree, planned as the data plane shares uplinks across stripes") {
  ManualClock clock;
  std::vector<TreeNode> nodes{{"hnowd", "", {100e6, 100e6}}, {"a", "", {40e6, 100e6}}, {"b", "", {20e6, 30e6}}};
  SendTree tree;
  tree.algo = "striped";
  tree.parent = {-1, 0, 1};
  tree.stripeParents = {{-1, 0, 1}, {-1, 2, 0}};  // stripe 1: hnowd -> a -> b; stripe 2: hnowd -> b -> a
  tree.stripeOffsets = {0, kSize / 2, kSize};
  tree.finish = {0, 1, 1};
  tree.predictedSeconds = 1;
  std::vector<RecordingCommands> commands(2);
  std::vector<StripeSource> sources{{"t0", 0, kSize / 2, "s0"}, {"t1", kSize / 2, kSize / 2, "s1"}};
  ReplanSettings settings;
  settings.enabled = false;
  settings.nodes = nodes;
  StripedSend send(clock, tree, {"hnowd", "a", "b"}, {"H", "A", "B"}, {"", "/p", "/p"}, kSize, "whole", sources,
                   {&commands[0], &commands[1]}, settings);
  send.start();
  clock.advance(1s);
  TransferReport half;
  half.bytes = kSize / 4;
  send.report("a", "t0", half);
  const auto picture = *send.status().picture;
  CHECK(picture.stripes == 2);
  REQUIRE(picture.versions.size() == 1);
  CHECK(picture.versions[0].edges.size() == 4);
  CHECK(edgeInto(picture.versions[0], "b", 0).parent == "a");
  CHECK(edgeInto(picture.versions[0], "a", 1).parent == "b");
  // b's downlink (30 MB/s) is shared by its 2 stripes; a's uplink by its 1 child.
  CHECK(edgeInto(picture.versions[0], "b", 0).plannedBytesPerS == doctest::Approx(15e6));
  CHECK(edgeInto(picture.versions[0], "a", 1).plannedBytesPerS == doctest::Approx(20e6));
  CHECK(*edgeInto(picture.versions[0], "a", 0).achievedBytesPerS == doctest::Approx(kSize / 4.0));
  CHECK_FALSE(edgeInto(picture.versions[0], "b", 1).achievedBytesPerS);
  REQUIRE(picture.versions[0].bottleneck);
  CHECK(picture.versions[0].bottleneck->node == "b");
}

TEST_CASE("send picture: a report read a second later with no byte moved prints the same, so hnowd pushes it no more often") {
  Chain send;
  send.clock.advance(1s);
  send.progress("a", 400000);
  const std::string before = api::reportPrint(send.op.status());
  send.clock.advance(1s);
  CHECK(api::reportPrint(send.op.status()) == before);
  send.progress("a", 500000);
  CHECK(api::reportPrint(send.op.status()) != before);
}
