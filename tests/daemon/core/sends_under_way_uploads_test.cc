// SendsUnderWay and a client's uploads: a directory unpacked over hnowd's
// kept copy of it is kept and run again from that copy while the copy
// still lists what the send read; an upload hnowd kept no copy of ends
// "interrupted" at the next start, its record saying why and what to do.
#include "daemon/core/under_way_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::send_lab;
using namespace std::chrono_literals;

namespace {

constexpr const char* kKey = "ana laptop:/home/ana/course";

// What the session hands SendService for a client's upload (server/sessions.cc).
SendRequest uploaded(UnderWayLab& lab, const std::string& from, bool tree, const std::string& key) {
  SendRequest r = lab.toAll();
  r.path = "/state/uploads/1.upload";
  r.dest = tree ? "in/course" : "in/image.iso";
  r.upload = 1;
  r.uploadIsTree = tree;
  r.uploadKey = key;
  r.uploadedFrom = from;
  r.scratch = true;
  lab.plane.files[r.path] = 64 << 20;
  // Every agent lacks the same file of the tree: one bundle for all.
  for (const char* agent : {"a1", "a2", "a3"}) lab.agents.lacking[agent]["part one"] = {1};
  return r;
}

// The directory /home/ana/course uploaded over hnowd's kept copy, whose
// listing is 64 'c': its send's record, once running.
OperationId keptTreeSend(UnderWayLab& lab) {
  lab.plane.listings[RecordingPlane::keptDir(kKey)] = std::string(64, 'c');
  return lab.startRecorded(uploaded(lab, "/home/ana/course", true, kKey));
}

std::string errorOf(UnderWayLab& lab, OperationId record) {
  const std::string summary = lab.store.operation(record).value()->summary;
  const auto at = summary.find("\"error\":\"");
  return at == std::string::npos ? "" : summary.substr(at + 9, summary.find('"', at + 9) - at - 9);
}

}  // namespace

TEST_CASE("an uploaded directory unpacked over hnowd's kept copy is kept with the copy's key and listing and run again from that copy under its record") {
  UnderWayLab lab;
  const OperationId record = keptTreeSend(lab);
  const std::string dir = RecordingPlane::keptDir(kKey);
  auto kept = lab.store.loadSendsUnderWay().value();
  REQUIRE(kept.size() == 1);
  CHECK(kept[0].id == record);
  CHECK(kept[0].path == dir);
  CHECK(kept[0].uploadKey == kKey);
  CHECK(kept[0].keptTree == std::string(64, 'c'));
  CHECK(kept[0].uploadedFrom == "/home/ana/course");
  CHECK(kept[0].notKeptWhy.empty());
  CHECK(lab.plane.keptBusy.count(dir) == 1);

  // The next hnowd's plane: the copy is on disk, no send reads it yet.
  lab.plane.keptBusy.clear();
  const std::size_t ordersBefore = lab.agents.orders.size();
  SendsUnderWay again(lab.coordinator, lab.store, lab.clock, lab.start);
  REQUIRE(again.restore(10s));
  auto waiting = again.waitingSends();
  REQUIRE(waiting.size() == 1);
  CHECK(waiting[0].path == "/home/ana/course");  // as the client named it, not hnowd's copy
  again.tick();
  REQUIRE(lab.started.size() == 1);
  const SendRequest& request = lab.started[0];
  CHECK(request.record == record);
  CHECK(request.uploadKey == kKey);
  CHECK(request.keptTree == std::string(64, 'c'));
  CHECK(request.upload == 0);  // nothing to upload or unpack: SendService sends the copy
  REQUIRE(lab.answer);
  REQUIRE_MESSAGE(*lab.answer, lab.answer->error().message);
  CHECK(lab.agents.orders.size() == ordersBefore + 3);  // every agent ordered again, the tree's bundle
  CHECK(lab.agents.orders.back().tree);
  CHECK(lab.plane.keptBusy.count(dir) == 1);  // no upload is unpacked over it while it runs
  CHECK(lab.statusOf(record) == "running");
  const std::string summary = lab.store.operation(record).value()->summary;
  CHECK(summary.find("\"file\":\"/home/ana/course\",\"uploaded\":true") != std::string::npos);
  // Kept again as it runs again, from the same copy.
  REQUIRE(lab.store.loadSendsUnderWay()->size() == 1);
  CHECK(lab.store.loadSendsUnderWay()->at(0).keptTree == std::string(64, 'c'));
}

TEST_CASE("a restored send of a directory whose kept copy changed or was dropped since ends interrupted saying so and nothing is sent in its place") {
  UnderWayLab lab;
  const OperationId record = keptTreeSend(lab);
  const std::string dir = RecordingPlane::keptDir(kKey);
  lab.plane.keptBusy.clear();
  std::string detail;
  SUBCASE("a later upload of the directory changed the copy") {
    lab.plane.listings[dir] = std::string(64, 'd');
    detail = "it lists other files now";
  }
  SUBCASE("the copy was dropped") {
    lab.plane.directories.erase(dir);
    detail = "hnowd no longer holds it";
  }
  SUBCASE("a later send of the directory runs from the copy") {
    lab.plane.keptBusy.insert(dir);
    detail = "a later send of the directory";
  }
  const std::size_t ordersBefore = lab.agents.orders.size();
  const std::size_t scansBefore = lab.agents.asked.size();
  SendsUnderWay again(lab.coordinator, lab.store, lab.clock, lab.start);
  REQUIRE(again.restore(10s));
  again.tick();
  CHECK(lab.statusOf(record) == "interrupted");
  const std::string why = errorOf(lab, record);
  CHECK_MESSAGE(why.rfind(kKeptCopyChanged, 0) == 0, why);
  CHECK_MESSAGE(why.find(detail) != std::string::npos, why);
  CHECK_MESSAGE(why.find("send the directory again") != std::string::npos, why);
  CHECK(lab.agents.orders.size() == ordersBefore);  // no agent ordered to receive anything
  CHECK(lab.agents.asked.size() == scansBefore);    // nor asked what it lacks
  CHECK(lab.store.loadSendsUnderWay()->empty());
}

TEST_CASE("keeps takes an upload sent from hnowd's kept copy and no other upload") {
  UnderWayLab lab;
  SendRequest tree = uploaded(lab, "/home/ana/course", true, kKey);
  tree.record = 4;
  tree.uploadIsTree = false;  // unpacked
  tree.uploadedTree = true;
  tree.path = RecordingPlane::keptDir(kKey);
  tree.keptTree = std::string(64, 'c');
  CHECK(SendsUnderWay::keeps(tree));
  CHECK(SendsUnderWay::notKeptWhy(tree).empty());
  SendRequest scratch = tree;  // unpacked into a scratch directory: the kept copy was in use
  scratch.uploadKey.clear();
  scratch.keptTree.clear();
  scratch.path = "/state/trees/1.tree";
  CHECK_FALSE(SendsUnderWay::keeps(scratch));
  CHECK(SendsUnderWay::notKeptWhy(scratch).find("scratch copy") != std::string::npos);
  SendRequest unlisted = tree;  // its copy could not be listed: nothing to check it by later
  unlisted.keptTree.clear();
  CHECK_FALSE(SendsUnderWay::keeps(unlisted));
  CHECK_FALSE(SendsUnderWay::notKeptWhy(unlisted).empty());
  SendRequest owed = tree;  // owed_sends.h keeps those
  owed.owedBy = 2;
  CHECK_FALSE(SendsUnderWay::keeps(owed));
  CHECK(SendsUnderWay::notKeptWhy(owed).empty());
  SendRequest onHost = lab.toAll();  // a path on hnowd's host: no why, it runs again
  onHost.record = 4;
  CHECK(SendsUnderWay::keeps(onHost));
  CHECK(SendsUnderWay::notKeptWhy(onHost).empty());
}

TEST_CASE("an upload hnowd kept no copy of ends interrupted at the next start with why and what to do") {
  UnderWayLab lab;
  SendRequest request;
  std::string says;
  SUBCASE("standard input") {
    request = uploaded(lab, "-", false, "");
    says = "standard input, which cannot be read again; pipe it into `hnow send -` again";
  }
  SUBCASE("a file hnowd had no room to keep a copy of") {
    request = uploaded(lab, "/home/ana/image.iso", false, "ana laptop:/home/ana/image.iso");  // the plane keeps none
    says = "no room to keep a copy of the uploaded file";
  }
  SUBCASE("a file that changed while it was uploaded") {
    request = uploaded(lab, "/home/ana/image.iso", false, "");
    says = "the file changed while it was uploaded";
  }
  SUBCASE("a directory unpacked into a scratch directory") {
    request = uploaded(lab, "/home/ana/course", true, "");
    says = "it sent the directory from a scratch copy";
  }
  const OperationId record = lab.startRecorded(request);
  auto kept = lab.store.loadSendsUnderWay().value();
  REQUIRE(kept.size() == 1);
  CHECK_MESSAGE(kept[0].notKeptWhy.find(says) != std::string::npos, kept[0].notKeptWhy);
  // Left "running" at the start, for the restore to end it saying why (not a bare "interrupted").
  CHECK(*lab.store.interruptRunning(WallTime{}) == 0);

  SendsUnderWay again(lab.coordinator, lab.store, lab.clock, lab.start);
  REQUIRE(again.restore(10s));
  CHECK(again.waiting() == 0);
  again.tick();
  CHECK(lab.started.empty());
  CHECK(lab.statusOf(record) == "interrupted");
  const std::string why = errorOf(lab, record);
  CHECK_MESSAGE(why.rfind("hnowd stopped mid-send and cannot run it again: ", 0) == 0, why);
  CHECK_MESSAGE(why.find(says) != std::string::npos, why);
  CHECK_MESSAGE(why.find("again") != std::string::npos, why);
  // The record keeps what the send was: the client's path and its plan.
  const std::string summary = lab.store.operation(record).value()->summary;
  CHECK(summary.find("\"file\":" + jsonString(request.uploadedFrom) + ",\"uploaded\":true") != std::string::npos);
  CHECK(summary.find("\"plan\":") != std::string::npos);
  CHECK(lab.store.loadSendsUnderWay()->empty());
}
