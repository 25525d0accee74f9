#pragma once
// SendsUnderWay over SendService in memory, wired as hnowd wires it: the
// sends a restarted hnowd runs again are started on the same service.
#include "core/send/sends_under_way.h"
#include "daemon/core/send_lab.h"

namespace hnow::daemon::send_lab {

// `again`, a test's own SendsUnderWay, is the next hnowd's, over the same state.db.
struct UnderWayLab : Lab {
  std::vector<SendRequest> started;  // the sends a restored one started
  std::optional<Result<std::uint64_t>> answer;
  SendsUnderWay::StartSend start = [this](SendRequest request, auto answered) {
    started.push_back(request);
    service.start(request, [this, answered](const Result<std::pair<std::uint64_t, SendStatus>>& s) {
      answer = s ? Result<std::uint64_t>(s->first) : Result<std::uint64_t>(s.error());
      answered(*answer);
    });
  };
  SendsUnderWay underWay{coordinator, store, clock, start};
  UnderWayLab() {
    service.keepWith(underWay.keeper());
    service.onEnded([this](const SendEnd& end) { underWay.drop(end.record); });
  }
  void detach(const char* agent) {
    coordinator.detach(sessions[agent]);
    coordinator.tick();
  }
  // Every receive order so far with `token` answered done by its agent.
  void finish(const std::string& token) {
    for (const auto& [agent, t] : agents.receives)
      if (t == token) coordinator.reportTransfer(sessions[agent], t, done());
  }
  std::string statusOf(OperationId record) { return store.operation(record).value()->status; }
  // A tree whose agents lack different files: this week's file changed on
  // every agent, a3 also lacks last week's, far larger; sent --until-all,
  // it goes as a bundle per group.
  SendRequest courseInGroups() {
    plane.scanSizes = {0, 10 << 20, 200 << 20};
    for (const char* a : {"a1", "a2", "a3"}) agents.lacking[a]["part one"] = {1};
    agents.lacking["a3"]["part two"] = {1};
    SendRequest tree = toAll();
    tree.path = "/data/course";
    tree.dest = "course";
    tree.untilAll = true;
    return tree;
  }
  // `request` started (toAll() when none): its record.
  OperationId startRecorded(std::optional<SendRequest> request = std::nullopt) {
    auto answer = send_lab::started(*this, request.value_or(toAll()));
    REQUIRE(answer);
    return static_cast<OperationId>(answer->second.record);
  }
};

}  // namespace hnow::daemon::send_lab
