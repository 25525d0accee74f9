// Every field of a send's and a manifest's report survives hnowd's writing
// and the CLI's reading: each is set to a value other than its default, so
// a field one side forgets fails here.
#include <doctest/doctest.h>

#include <capnp/message.h>

#include "api/manifest_wire.h"
#include "api/send_status_wire.h"

using namespace hnow::api;

namespace {

SendStatus everyField(int seed) {
  SendStatus s;
  s.finished = true;
  s.algo = "pipelined-" + std::to_string(seed);
  s.size = 123456789ull + seed;
  s.predictedS = 22.5 + seed;
  s.elapsedS = 23.25 + seed;
  CopyStatus done;
  done.node = "agent-1";
  done.parent = "hnowd";
  done.state = CopyStatus::State::kDone;
  done.bytes = 42;
  done.finishedS = 1.5;
  done.plannedS = 1.25;
  done.path = "/data/in/file.bin";
  done.sha256 = "ab12";
  done.message = "verified";
  done.corruptChunks = 3;
  done.stripeParents = {"hnowd", "agent-4"};
  done.heldS = 1.375;
  done.stripeHeldS = {1.125, 1.375};
  done.tree = TreeOutcome{305, 3u << 20, 2, 1, {{"lib/x\\x0a", "a directory is in the way"}}};
  CopyStatus failed = done;
  failed.tree.reset();
  failed.node = "agent-2";
  failed.state = CopyStatus::State::kFailed;
  CopyStatus receiving = done;
  receiving.state = CopyStatus::State::kReceiving;
  CopyStatus waiting = done;
  waiting.state = CopyStatus::State::kWaiting;
  s.copies = {done, failed, receiving, waiting};
  s.considered = {{"fnf", "store-and-forward", 30.5}, {"pipelined", "pipelined", 22.5}};
  s.fluidBoundS = 13.4;
  s.replanning = true;
  s.replans = 2;
  s.replannedPredictedS = 24.75;
  s.parentChanges = {{"agent-3", "agent-1", "hnowd", 5.5, "lost: agent-1"}};
  s.rateBounds = {"hnowd downlink >= 415.0 Mbit/s"};
  s.boundS = 12.5;
  s.why = "striped: 22.50 s predicted in 2 stripes";
  s.stripeOffsets = {0, 61728394, 123456789ull + static_cast<unsigned>(seed)};
  s.skipped = {{"agent-9", "lost, last heard 3 min ago"}, {"agent-10", "not connected"}};
  s.held = {"agent-2", "agent-5"};
  s.replaced = {"agent-7"};
  s.source = "agent-4";
  s.record = 12;
  s.cancelledBy = "alice";
  s.copiedHere = {{"agent-5", "/srv/hnow/v1/image.iso"}};
  s.groups = {{{"agent-1", "agent-2"}, 200, 7 << 20, (7 << 20) + 4096, "fnf", 1.5, 1.75, true, ""},
              {{"agent-8"}, 400 + static_cast<unsigned>(seed), 21 << 20, 22 << 20, "flat", 2.5, 0.0, false,
               "refused: agent-8: no space left on device"}};
  s.tree = TreeSummary{310, 305, 3u << 20, true, 1, {{"outside", "symlink to /etc leads outside the tree"}}};
  s.tree->sentFiles = 4, s.tree->sentBytes = 4096, s.tree->deleteOthers = true;
  s.tree->queryBytes = 2800u + static_cast<unsigned>(seed);
  s.compression = {"zstd", 1000000u + static_cast<unsigned>(seed), 412000u, "zstd: 1.2 s predicted against 2.5 s plain (ratio 0.41)",
                   0.75 + seed};
  return s;
}

void checkSameProblems(const std::vector<PathProblem>& a, const std::vector<PathProblem>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].path == b[i].path);
    CHECK(a[i].why == b[i].why);
  }
}

void checkSameTree(const TreeOutcome& a, const TreeOutcome& b) {
  CHECK(a.files == b.files);
  CHECK(a.bytes == b.bytes);
  CHECK(a.replaced == b.replaced);
  CHECK(a.failedCount == b.failedCount);
  checkSameProblems(a.failed, b.failed);
}

void checkSame(const SendStatus& a, const SendStatus& b) {
  CHECK(a.finished == b.finished);
  CHECK(a.algo == b.algo);
  CHECK(a.size == b.size);
  CHECK(a.predictedS == b.predictedS);
  CHECK(a.elapsedS == b.elapsedS);
  REQUIRE(a.copies.size() == b.copies.size());
  for (std::size_t i = 0; i < a.copies.size(); ++i) {
    const CopyStatus &x = a.copies[i], &y = b.copies[i];
    CHECK(x.node == y.node);
    CHECK(x.parent == y.parent);
    CHECK(x.state == y.state);
    CHECK(x.bytes == y.bytes);
    CHECK(x.finishedS == y.finishedS);
    CHECK(x.plannedS == y.plannedS);
    CHECK(x.path == y.path);
    CHECK(x.sha256 == y.sha256);
    CHECK(x.message == y.message);
    CHECK(x.corruptChunks == y.corruptChunks);
    CHECK(x.stripeParents == y.stripeParents);
    CHECK(x.heldS == y.heldS);
    CHECK(x.stripeHeldS == y.stripeHeldS);
    REQUIRE(x.tree.has_value() == y.tree.has_value());
    if (x.tree) checkSameTree(*x.tree, *y.tree);
  }
  REQUIRE(a.considered.size() == b.considered.size());
  for (std::size_t i = 0; i < a.considered.size(); ++i) {
    CHECK(a.considered[i].algo == b.considered[i].algo);
    CHECK(a.considered[i].mode == b.considered[i].mode);
    CHECK(a.considered[i].predictedSeconds == b.considered[i].predictedSeconds);
  }
  CHECK(a.fluidBoundS == b.fluidBoundS);
  CHECK(a.replanning == b.replanning);
  CHECK(a.replans == b.replans);
  CHECK(a.replannedPredictedS == b.replannedPredictedS);
  REQUIRE(a.parentChanges.size() == b.parentChanges.size());
  for (std::size_t i = 0; i < a.parentChanges.size(); ++i) {
    CHECK(a.parentChanges[i].node == b.parentChanges[i].node);
    CHECK(a.parentChanges[i].oldParent == b.parentChanges[i].oldParent);
    CHECK(a.parentChanges[i].newParent == b.parentChanges[i].newParent);
    CHECK(a.parentChanges[i].atS == b.parentChanges[i].atS);
    CHECK(a.parentChanges[i].reason == b.parentChanges[i].reason);
  }
  CHECK(a.rateBounds == b.rateBounds);
  CHECK(a.boundS == b.boundS);
  CHECK(a.why == b.why);
  CHECK(a.stripeOffsets == b.stripeOffsets);
  CHECK(a.held == b.held);
  CHECK(a.replaced == b.replaced);
  CHECK(a.source == b.source);
  CHECK(a.record == b.record);
  CHECK(a.cancelledBy == b.cancelledBy);
  REQUIRE(a.copiedHere.size() == b.copiedHere.size());
  for (std::size_t i = 0; i < a.copiedHere.size(); ++i) {
    CHECK(a.copiedHere[i].agent == b.copiedHere[i].agent);
    CHECK(a.copiedHere[i].path == b.copiedHere[i].path);
  }
  REQUIRE(a.groups.size() == b.groups.size());
  for (std::size_t i = 0; i < a.groups.size(); ++i) {
    CHECK(a.groups[i].agents == b.groups[i].agents);
    CHECK(a.groups[i].sentFiles == b.groups[i].sentFiles);
    CHECK(a.groups[i].sentBytes == b.groups[i].sentBytes);
    CHECK(a.groups[i].size == b.groups[i].size);
    CHECK(a.groups[i].algo == b.groups[i].algo);
    CHECK(a.groups[i].predictedS == b.groups[i].predictedS);
    CHECK(a.groups[i].elapsedS == b.groups[i].elapsedS);
    CHECK(a.groups[i].finished == b.groups[i].finished);
    CHECK(a.groups[i].error == b.groups[i].error);
  }
  REQUIRE(a.skipped.size() == b.skipped.size());
  for (std::size_t i = 0; i < a.skipped.size(); ++i) {
    CHECK(a.skipped[i].node == b.skipped[i].node);
    CHECK(a.skipped[i].why == b.skipped[i].why);
  }
  REQUIRE(a.tree.has_value() == b.tree.has_value());
  if (a.tree) {
    CHECK(a.tree->entries == b.tree->entries);
    CHECK(a.tree->files == b.tree->files);
    CHECK(a.tree->fileBytes == b.tree->fileBytes);
    CHECK(a.tree->atomic == b.tree->atomic);
    CHECK(a.tree->refusedCount == b.tree->refusedCount);
    checkSameProblems(a.tree->refused, b.tree->refused);
    CHECK(a.tree->sentFiles == b.tree->sentFiles);
    CHECK(a.tree->sentBytes == b.tree->sentBytes);
    CHECK(a.tree->deleteOthers == b.tree->deleteOthers);
    CHECK(a.tree->queryBytes == b.tree->queryBytes);
  }
  CHECK(a.compression.algo == b.compression.algo);
  CHECK(a.compression.plainBytes == b.compression.plainBytes);
  CHECK(a.compression.sentBytes == b.compression.sentBytes);
  CHECK(a.compression.why == b.compression.why);
  CHECK(a.compression.compressS == b.compression.compressS);
}

}  // namespace

TEST_CASE("a send's report reads back as it was written, every field and every copy state") {
  const SendStatus sent = everyField(1);
  capnp::MallocMessageBuilder message;
  auto report = message.initRoot<hnow::wire::SendReport>();
  toWire(sent, report);
  checkSame(sendStatusFromWire(report.asReader()), sent);
}

TEST_CASE("a report without a compression part (an older hnowd) reads back with none said") {
  SendStatus sent = everyField(4);
  sent.compression = {};
  capnp::MallocMessageBuilder message;
  auto report = message.initRoot<hnow::wire::SendReport>();
  toWire(sent, report);
  CHECK_FALSE(report.asReader().hasCompression());
  CHECK(sendStatusFromWire(report.asReader()).compression.algo.empty());
}

TEST_CASE("a tree's lists of problems stop at 100 on the wire, and the counts stay whole") {
  SendStatus sent = everyField(2);
  for (int i = 0; i < 150; ++i) sent.tree->refused.push_back({"f" + std::to_string(i), "unreadable"});
  sent.tree->refusedCount = 151;
  capnp::MallocMessageBuilder message;
  auto report = message.initRoot<hnow::wire::SendReport>();
  toWire(sent, report);
  const SendStatus back = sendStatusFromWire(report.asReader());
  REQUIRE(back.tree);
  CHECK(back.tree->refused.size() == kMaxPathProblems);
  CHECK(back.tree->refusedCount == 151);
}

TEST_CASE("a manifest's report reads back as it was written, with each item's send report") {
  ManifestStatus sent;
  sent.finished = true;
  sent.algo = "wrp";
  sent.predictedS = 7.5;
  sent.elapsedS = 8.25;
  sent.replans = 4;
  sent.sequentialS = 12.5;
  sent.lowerBoundS = 5.25;
  sent.items = {{"agent-1", "a.bin", "in/a.bin", everyField(2)}, {"agent-2", "b.bin", "in/b.bin", everyField(3)}};
  sent.considered = {{"independent", "pipelined, together", 9.5}};
  capnp::MallocMessageBuilder message;
  auto report = message.initRoot<hnow::wire::ManifestReport>();
  toWire(sent, report);
  const ManifestStatus read = manifestStatusFromWire(report.asReader());
  CHECK(read.finished == sent.finished);
  CHECK(read.algo == sent.algo);
  CHECK(read.predictedS == sent.predictedS);
  CHECK(read.elapsedS == sent.elapsedS);
  CHECK(read.replans == sent.replans);
  CHECK(read.sequentialS == sent.sequentialS);
  CHECK(read.lowerBoundS == sent.lowerBoundS);
  REQUIRE(read.items.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(read.items[i].source == sent.items[i].source);
    CHECK(read.items[i].file == sent.items[i].file);
    CHECK(read.items[i].dest == sent.items[i].dest);
    checkSame(read.items[i].send, sent.items[i].send);
  }
  REQUIRE(read.considered.size() == 1);
  CHECK(read.considered[0].mode == "pipelined, together");
}
