// SendsUnderWay over SendService in memory: a send is kept in state.db
// while it runs, and a restarted hnowd runs it again under its record.
#include "daemon/core/under_way_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::send_lab;
using namespace std::chrono_literals;

TEST_CASE("a send is kept in state.db with its agents before its client hears it started, and no longer once it ends") {
  UnderWayLab lab;
  const OperationId record = lab.startRecorded();
  auto kept = lab.store.loadSendsUnderWay().value();
  REQUIRE(kept.size() == 1);
  CHECK(kept[0].id == record);
  CHECK(kept[0].path == "/data/image.iso");
  CHECK(kept[0].dest == "in/image.iso");
  CHECK(kept[0].agents == std::vector<std::string>{"a1", "a2", "a3"});
  // hnowd stops now: its record stays under way for the next one.
  CHECK(*lab.store.interruptRunning(WallTime{}) == 0);
  CHECK(lab.statusOf(record) == "running");

  lab.finish(std::string(32, 't'));
  CHECK(lab.statusOf(record) == "done");
  CHECK(lab.store.loadSendsUnderWay()->empty());
}

TEST_CASE("a send refused by its agents is no longer kept, and an upload or a send for owed agents is never kept") {
  UnderWayLab lab;
  lab.agents.refusingOrders.insert("a2");
  CHECK_FALSE(started(lab, lab.toAll()));
  CHECK(lab.store.loadSendsUnderWay()->empty());
  SendRequest upload = lab.toAll();
  upload.scratch = true;
  upload.record = 4;
  CHECK_FALSE(SendsUnderWay::keeps(upload));
  SendRequest owed = lab.toAll();
  owed.record = 4;
  owed.owedBy = 2;
  CHECK_FALSE(SendsUnderWay::keeps(owed));
  owed.owedBy = 0;
  CHECK(SendsUnderWay::keeps(owed));
}

TEST_CASE("a restarted hnowd runs a kept send again under its record once every agent is back, and ends it done") {
  UnderWayLab lab;
  SendRequest request = lab.toAll();
  request.algo = "chain";
  request.force = true;
  const OperationId record = lab.startRecorded(request);
  const std::size_t receivesBefore = lab.agents.receives.size();

  SendsUnderWay again(lab.coordinator, lab.store, lab.clock, lab.start);
  REQUIRE(again.restore(10s));
  CHECK(again.waiting() == 1);
  again.tick();  // every agent is connected: no wait
  CHECK(again.waiting() == 0);
  REQUIRE(lab.started.size() == 1);
  CHECK(lab.started[0].record == record);
  CHECK(lab.started[0].to == std::vector<std::string>{"a1", "a2", "a3"});
  CHECK(lab.started[0].algo == "chain");
  CHECK(lab.started[0].force);
  REQUIRE(lab.answer);
  REQUIRE(*lab.answer);
  CHECK(lab.agents.receives.size() == receivesBefore + 3);  // every agent ordered again
  CHECK(lab.statusOf(record) == "running");
  // Its new token: the lab's second one.
  const std::string token = lab.agents.receives.back().second;
  lab.finish(token);
  CHECK(lab.statusOf(record) == "done");
  CHECK(lab.store.loadSendsUnderWay()->empty());
}

TEST_CASE("a kept send waits for its agents at most the grace, then runs for those back, and with none back ends interrupted") {
  UnderWayLab lab;
  const OperationId record = lab.startRecorded();
  lab.detach("a3");

  SendsUnderWay again(lab.coordinator, lab.store, lab.clock, lab.start);
  REQUIRE(again.restore(10s));
  again.tick();
  lab.clock.advance(9s);
  again.tick();
  CHECK(lab.started.empty());
  lab.clock.advance(2s);
  again.tick();
  REQUIRE(lab.started.size() == 1);
  CHECK(lab.started[0].record == record);
  CHECK(lab.started[0].to == std::vector<std::string>{"a1", "a2"});
  // a3 is reported skipped, with why.
  REQUIRE(lab.answer);
  REQUIRE(*lab.answer);
  const auto skipped = lab.service.status(**lab.answer)->skipped;
  REQUIRE(skipped.size() == 1);
  CHECK(skipped[0].node == "a3");
  CHECK(skipped[0].why == "not back when hnowd ran the send again after its restart");

  UnderWayLab none;
  const OperationId kept = none.startRecorded();
  for (const char* agent : {"a1", "a2", "a3"}) none.detach(agent);
  SendsUnderWay later(none.coordinator, none.store, none.clock, none.start);
  REQUIRE(later.restore(10s));
  none.clock.advance(11s);
  later.tick();
  CHECK(none.started.empty());
  CHECK(none.statusOf(kept) == "interrupted");
  CHECK(none.store.loadSendsUnderWay()->empty());
}

TEST_CASE("a kept send waiting for its agents after a restart is listed with the agents not back and how long it waits more") {
  UnderWayLab lab;
  const OperationId record = lab.startRecorded();
  lab.detach("a3");
  SendsUnderWay again(lab.coordinator, lab.store, lab.clock, lab.start);
  CHECK(again.waitingSends().empty());
  REQUIRE(again.restore(10s));
  lab.clock.advance(4s);
  again.tick();
  auto waiting = again.waitingSends();
  REQUIRE(waiting.size() == 1);
  CHECK(waiting[0].record == record);
  CHECK(waiting[0].path == "/data/image.iso");
  CHECK(waiting[0].dest == "in/image.iso");
  CHECK(waiting[0].agents == std::vector<std::string>{"a1", "a2", "a3"});
  CHECK(waiting[0].away == std::vector<std::string>{"a3"});
  CHECK(waiting[0].left == Duration(6s));
  lab.clock.advance(7s);
  again.tick();  // it ran for those back
  CHECK(again.waitingSends().empty());
}

TEST_CASE("a kept send refused when run again ends failed with why, and is no longer kept") {
  UnderWayLab lab;
  const OperationId record = lab.startRecorded();
  SendsUnderWay again(lab.coordinator, lab.store, lab.clock,
                      [](SendRequest, auto answered) { answered(Error{"/data/image.iso: No such file or directory"}); });
  REQUIRE(again.restore(10s));
  again.tick();
  CHECK(lab.statusOf(record) == "failed");
  CHECK(lab.store.operation(record).value()->summary.find("No such file") != std::string::npos);
  CHECK(lab.store.loadSendsUnderWay()->empty());
}

TEST_CASE("hnow cancel of a kept send waiting for its agents after a restart ends its record cancelled, and it never runs") {
  UnderWayLab lab;
  const OperationId record = lab.startRecorded();
  lab.detach("a3");
  SendsUnderWay again(lab.coordinator, lab.store, lab.clock, lab.start);
  REQUIRE(again.restore(10s));
  again.tick();
  REQUIRE(again.waiting() == 1);
  CHECK_FALSE(again.cancel(record + 100, "ops"));
  CHECK(again.cancel(record, "ops"));
  CHECK(again.waiting() == 0);
  CHECK(lab.statusOf(record) == "cancelled");
  CHECK(lab.store.operation(record).value()->summary.find("\"cancelled_by\":\"ops\"") != std::string::npos);
  CHECK(lab.store.loadSendsUnderWay()->empty());
  lab.clock.advance(11s);
  again.tick();
  CHECK(lab.started.empty());
}

TEST_CASE("a client's file sent from hnowd's kept copy is kept with the copy's key and stamp, and run again from that copy") {
  UnderWayLab lab;
  SendRequest fromCopy = lab.toAll();
  fromCopy.record = lab.coordinator.operationLog().begin("send", "{}").value();
  fromCopy.path = "/var/lib/hnow/trees/kept-files/3.file";
  fromCopy.scratch = true;
  fromCopy.keptCopy = true;
  fromCopy.uploadKey = "operator laptop /home/ops/image.bin";
  fromCopy.uploadStamp = {16777216, 1700000000123456789, 1700000000223456789, 4242};
  CHECK(SendsUnderWay::keeps(fromCopy));
  SendRequest bare = fromCopy;  // an upload hnowd had no room to keep a copy of
  bare.keptCopy = false;
  CHECK_FALSE(SendsUnderWay::keeps(bare));
  lab.underWay.keep(fromCopy, {"a1", "a2"});

  SendsUnderWay again(lab.coordinator, lab.store, lab.clock, lab.start);
  REQUIRE(again.restore(10s));
  again.tick();
  REQUIRE(lab.started.size() == 1);
  const SendRequest& request = lab.started[0];
  CHECK(request.record == fromCopy.record);
  CHECK(request.uploadKey == fromCopy.uploadKey);
  CHECK(request.uploadStamp == fromCopy.uploadStamp);
  CHECK(request.upload == 0);     // nothing to upload: SendService sends the kept copy
  CHECK_FALSE(request.scratch);   // set again by SendService once it holds the copy
  // This plane holds no copy under that key any more (replaced or dropped):
  // nothing is sent in its place, and the record says to send the file again.
  CHECK(lab.statusOf(fromCopy.record) == "interrupted");
  const std::string summary = lab.store.operation(fromCopy.record).value()->summary;
  CHECK(summary.find(kKeptCopyChanged) != std::string::npos);
  CHECK(summary.find("send the file again") != std::string::npos);
}

TEST_CASE("a tree sent as a bundle per group stays kept for every agent until its last group ends, and a restarted hnowd sends it again under its one record") {
  UnderWayLab lab;
  auto first = started(lab, lab.courseInGroups());
  REQUIRE(first);
  REQUIRE(first->second.groups.size() == 2);
  const OperationId record = static_cast<OperationId>(first->second.record);
  const std::size_t ordered = lab.agents.receives.size();
  REQUIRE(ordered == 3);
  // a1 and a2's group lands; a3's still runs.
  for (const auto& [agent, token] : lab.agents.receives)
    if (agent != "a3") lab.coordinator.reportTransfer(lab.sessions[agent], token, lab.done());
  CHECK(lab.statusOf(record) == "running");
  auto kept = lab.store.loadSendsUnderWay().value();
  REQUIRE(kept.size() == 1);
  CHECK(kept[0].id == record);
  CHECK(kept[0].agents == std::vector<std::string>{"a1", "a2", "a3"});

  // hnowd is killed now; the next one sends the tree again under its record.
  SendsUnderWay again(lab.coordinator, lab.store, lab.clock, lab.start);
  REQUIRE(again.restore(10s));
  again.tick();
  REQUIRE(lab.started.size() == 1);
  CHECK(lab.started[0].record == record);
  CHECK(lab.started[0].to == std::vector<std::string>{"a1", "a2", "a3"});
  REQUIRE(lab.answer);
  REQUIRE(*lab.answer);
  REQUIRE(lab.agents.receives.size() == ordered + 3);
  for (std::size_t i = ordered; i < lab.agents.receives.size(); ++i) {
    const auto& [agent, token] = lab.agents.receives[i];
    lab.coordinator.reportTransfer(lab.sessions[agent], token, lab.done());
  }
  CHECK(lab.statusOf(record) == "done");
  CHECK(lab.store.loadSendsUnderWay()->empty());
  // One record for the whole send, before and after the restart.
  CHECK(lab.coordinator.operations(10).value().size() == 1);
}

TEST_CASE("a tree's group that could not start leaves its agents owed by the tree's one record (--until-all), once the other group ends") {
  UnderWayLab lab;
  std::vector<SendEnd> ends;
  lab.service.onEnded([&](const SendEnd& end) {
    ends.push_back(end);
    lab.underWay.drop(end.record);
  });
  lab.agents.refusingOrders.insert("a3");
  auto first = started(lab, lab.courseInGroups());
  REQUIRE(first);
  const OperationId record = static_cast<OperationId>(first->second.record);
  CHECK(ends.empty());
  for (const auto& [agent, token] : lab.agents.receives)
    if (agent != "a3") lab.coordinator.reportTransfer(lab.sessions[agent], token, lab.done());
  REQUIRE(ends.size() == 1);
  CHECK(ends[0].record == record);
  CHECK(ends[0].request.untilAll);
  CHECK(ends[0].missed == std::vector<std::string>{"a3"});
  std::sort(ends[0].delivered.begin(), ends[0].delivered.end());
  CHECK(ends[0].delivered == std::vector<std::string>{"a1", "a2"});
  CHECK(lab.statusOf(record) == "failed");
  CHECK(lab.store.operation(record).value()->summary.find("\"owed\":[\"a3\"]") != std::string::npos);
  CHECK(lab.store.loadSendsUnderWay()->empty());
}
