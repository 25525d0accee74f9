// The sends that end before they run: refused with a record, owed to
// every agent they were for (--until-all), held by every agent already, or
// cancelled while they were prepared.
#include <spdlog/spdlog.h>

#include "core/operation_records.h"
#include "core/send/send_service.h"
#include "core/send/send_service_state.h"

namespace hnow::daemon {

void SendService::oweAll(const SendRequest& request, Started started) {
  const std::vector<SkippedAgent> skipped = skippedOf(request);
  std::string owed, why;
  for (const SkippedAgent& k : skipped) {
    owed += std::string(owed.empty() ? "" : ",") + jsonString(k.node);
    why += (why.empty() ? "" : ", ") + k.node + " (" + k.why + ")";
  }
  const std::string summary = "{\"file\":" + jsonString(request.path) + ",\"dest\":" + jsonString(request.dest) +
                              ",\"agents\":0,\"skipped\":" + std::to_string(skipped.size()) +
                              ",\"until_all\":true,\"owed\":[" + owed + "]}";
  const OperationId record = beginRecord(coordinator_, "send", summary);
  finishRecord(coordinator_, record, "owed", summary);
  SendEnd end{request, record, {}, {}};
  for (const SkippedAgent& k : skipped) end.missed.push_back(k.node);
  runs_.ended(end);
  started(Error{"no agent this send is for can receive now: " + why + "; it is owed to them (--until-all, send record " +
                std::to_string(record) + "): each gets it when it is connected again (hnow status lists it)"});
}

void SendService::beginPreparing(SendRequest& request, Started& started, const std::vector<AgentView>& chosen) {
  const std::string summary = "{\"file\":" + recordedFile(request) + ",\"dest\":" + jsonString(request.dest) +
                              ",\"algo\":" + jsonString(request.algo);
  if (request.record == 0) request.record = beginRecord(coordinator_, "send", summary + "}");
  else describeRecord(coordinator_, request.record, summary + "}");
  request.cancel = std::make_shared<SendCancel>();
  if (request.record == 0) return;
  preparing_[request.record] = {request.cancel, summary + "}"};
  if (keeper_.kept) {
    std::vector<std::string> agents;
    for (const AgentView& a : chosen) agents.push_back(a.record.name);
    keeper_.kept(request, agents);
  }
  started = [this, record = request.record, summary, started = std::move(started)](
                const Result<std::pair<std::uint64_t, SendStatus>>& answer) {
    preparing_.erase(record);
    // Ended already when it ran, was refused with its record, or was cancelled.
    if (!answer) {
      finishRecord(coordinator_, record, "failed", summary + ",\"error\":" + jsonString(answer.error().message) + "}");
      if (keeper_.dropped) keeper_.dropped(record);
    }
    started(answer);
  };
}

void SendService::cancelPreparing(const std::shared_ptr<SendCancel>& cancel, const std::string& who) {
  if (!cancel) return;
  cancel->by = who;
  for (auto it = preparing_.begin(); it != preparing_.end();) {
    if (it->second.cancel != cancel) {
      ++it;
      continue;
    }
    spdlog::info("send record {}: cancelled by {} while it was prepared", it->first, who);
    std::string summary = it->second.summary;
    summary.pop_back();  // its closing brace
    finishRecord(coordinator_, it->first, "cancelled", summary + ",\"cancelled_by\":" + jsonString(who) + "}");
    if (keeper_.dropped) keeper_.dropped(it->first);
    it = preparing_.erase(it);
  }
}

void SendService::endCancelled(const SendRequest& request, const Started& started) {
  SendStatus s;
  s.finished = true;
  s.algo = "none";
  s.record = request.record;
  s.cancelledBy = request.cancel->by;
  s.maxRateBytesPerSecond = request.maxRateBytesPerSecond;
  started(std::make_pair(runs_.nextId(), s));
}

void SendService::refuseRecorded(const SendRequest& request, const std::string& why, Started started) {
  const std::string summary = "{\"file\":" + recordedFile(request) + ",\"dest\":" + jsonString(request.dest) +
                              ",\"error\":" + jsonString(why) + "}";
  finishRecord(coordinator_, request.record ? request.record : beginRecord(coordinator_, "send", summary), "failed",
               summary);
  started(Error{why});
}

void SendService::finishHeld(const SendRequest& request, std::uint64_t size, const HeldAtDest& held, Started started) {
  SendStatus s;
  s.finished = true;
  s.algo = "none";
  s.size = size;
  s.held = held.same;
  s.copiedHere = held.copied;
  s.skipped = skippedOf(request);
  s.maxRateBytesPerSecond = request.maxRateBytesPerSecond;
  SendEnd end{request, 0, held.same, {}};
  for (const SkippedAgent& k : s.skipped) end.missed.push_back(k.node);
  const std::string summary = "{\"file\":" + recordedFile(request) + ",\"dest\":" + jsonString(request.dest) +
                              ",\"size\":" + std::to_string(size) + ",\"agents\":0,\"held\":" +
                              jsonStrings(held.same) + copiedHereField(held.copied) + ",\"actual_s\":0,\"ok\":0,\"failed\":0,\"skipped\":" +
                              std::to_string(s.skipped.size()) +
                              (request.untilAll ? ",\"until_all\":true,\"owed\":" + jsonStrings(end.missed)
                                                : std::string()) +
                              (request.owedBy ? ",\"owed_by\":" + std::to_string(request.owedBy) : std::string()) + "}";
  end.record = request.record ? request.record : beginRecord(coordinator_, "send", summary);
  finishRecord(coordinator_, end.record, "done", summary);
  spdlog::info("send {}: every agent it is for holds it at {} already: nothing moved", request.path, request.dest);
  runs_.ended(end);
  started(std::make_pair(runs_.nextId(), s));
}

}  // namespace hnow::daemon
