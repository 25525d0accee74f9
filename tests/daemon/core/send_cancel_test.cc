// A send cancelled while it runs (SendService::cancel): in memory, with
// send_lab's agents and source plane.
#include "daemon/core/send_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::send_lab;
using namespace std::chrono_literals;

namespace {

// The one operation record's status and summary.
OperationRecord onlyRecord(Lab& lab) {
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  return ops[0];
}

}  // namespace

TEST_CASE("a cancelled send releases every agent and the plane, ends finished, and its record says cancelled and by whom") {
  Lab lab;
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  CHECK_FALSE(first.finished);
  REQUIRE(first.record != 0);
  CHECK(lab.plane.served == std::set<std::string>{std::string(32, 't')});
  lab.clock.advance(1s);
  lab.coordinator.reportTransfer(lab.sessions["a1"], std::string(32, 't'), lab.done());  // one copy done already

  CHECK(lab.service.cancel(first.record, "alice"));
  CHECK(lab.plane.served.empty());
  std::vector<std::string> released = lab.agents.releases;
  std::sort(released.begin(), released.end());
  CHECK(released == std::vector<std::string>{"a1", "a2", "a3"});
  const SendStatus status = *lab.service.status(id);
  CHECK(status.finished);
  CHECK(status.cancelledBy == "alice");
  const OperationRecord record = onlyRecord(lab);
  CHECK(record.id == first.record);
  CHECK(record.status == "cancelled");
  CHECK(record.summary.find("\"cancelled_by\":\"alice\"") != std::string::npos);

  // Late reports on its token change nothing; a second cancel finds nothing under way.
  lab.coordinator.reportTransfer(lab.sessions["a2"], std::string(32, 't'), lab.done());
  CHECK(onlyRecord(lab).status == "cancelled");
  CHECK_FALSE(lab.service.cancel(first.record, "bob"));
  CHECK(lab.service.status(id)->cancelledBy == "alice");
}

TEST_CASE("a cancelled striped send releases every agent and every stripe's token") {
  Lab lab(2e6, 5e7);
  SendRequest request = lab.toAll();
  request.algo = "striped";
  auto answer = started(lab, request);
  REQUIRE(answer);
  REQUIRE(lab.plane.cuts.size() >= 2);
  CHECK_FALSE(lab.plane.served.empty());
  CHECK(lab.service.cancel(answer->second.record, "alice"));
  CHECK(lab.plane.served.empty());
  CHECK(lab.agents.releases.size() == 3);
  CHECK(onlyRecord(lab).status == "cancelled");
}

TEST_CASE("a send --until-all that is cancelled leaves nothing owed") {
  Lab lab;
  SendRequest request = lab.toAll();
  request.untilAll = true;
  std::vector<std::string> missed;
  bool ended = false;
  lab.service.onEnded([&](const SendEnd& end) { ended = true, missed = end.missed; });
  auto answer = started(lab, request);
  REQUIRE(answer);
  CHECK(lab.service.cancel(answer->second.record, "alice"));
  CHECK(ended);
  const OperationRecord record = onlyRecord(lab);
  CHECK(record.status == "cancelled");
  CHECK(record.summary.find("\"owed\"") == std::string::npos);
}

TEST_CASE("cancel of a record no send runs under finds nothing") {
  Lab lab;
  CHECK_FALSE(lab.service.cancel(0, "alice"));
  CHECK_FALSE(lab.service.cancel(41, "alice"));
}

TEST_CASE("a send cancelled while hnowd hashes its file never starts: no agent is asked to receive, the plane serves nothing, its record says cancelled") {
  Lab lab;
  lab.plane.deferred = true;  // serveFile (its hash) answers later
  std::optional<Result<std::pair<std::uint64_t, SendStatus>>> answer;
  lab.service.start(lab.toAll(), [&](const Result<std::pair<std::uint64_t, SendStatus>>& a) { answer = a; });
  CHECK_FALSE(answer);
  const OperationRecord preparing = onlyRecord(lab);
  CHECK(preparing.status == "running");

  CHECK(lab.service.cancel(preparing.id, "alice"));
  OperationRecord record = onlyRecord(lab);
  CHECK(record.status == "cancelled");
  CHECK(record.summary.find("\"cancelled_by\":\"alice\"") != std::string::npos);

  lab.plane.answerDue();
  REQUIRE(answer);
  REQUIRE(*answer);
  CHECK((*answer)->second.finished);
  CHECK((*answer)->second.cancelledBy == "alice");
  CHECK((*answer)->second.record == preparing.id);
  CHECK(lab.agents.receives.empty());
  CHECK(lab.agents.pulls.empty());
  CHECK(lab.plane.served.empty());
  CHECK(onlyRecord(lab).status == "cancelled");
  CHECK_FALSE(lab.service.cancel(preparing.id, "bob"));
}

TEST_CASE("a send cancelled once compressed, while hnowd hashes what it will serve, never starts and drops the compressed file") {
  Lab lab;
  lab.plane.ratio = 0.25;
  SendRequest request = lab.toAll();
  request.compress = "zstd";
  lab.plane.deferred = true;
  std::optional<Result<std::pair<std::uint64_t, SendStatus>>> answer;
  lab.service.start(request, [&](const Result<std::pair<std::uint64_t, SendStatus>>& a) { answer = a; });
  CHECK(lab.service.cancel(onlyRecord(lab).id, "alice"));
  lab.plane.answerDue();
  REQUIRE(answer);
  REQUIRE(*answer);
  CHECK((*answer)->second.cancelledBy == "alice");
  CHECK(lab.agents.receives.empty());
  CHECK(lab.plane.served.empty());
  CHECK(lab.plane.bundles.empty());
}
