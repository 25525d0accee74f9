// ManifestService's cancel (manifest_service.h): a manifest under way
// released at once, one still prepared at its next step.
#include <spdlog/spdlog.h>

#include "core/manifest/manifest_running.h"
#include "core/operation_records.h"

namespace hnow::daemon {

ManifestStatus ManifestService::cancelledWhilePrepared(Running& running) {
  releaseAll(running);
  ManifestStatus s;
  s.finished = true;
  s.algo = running.plan.algo;
  s.predictedS = running.plan.predictedSeconds;
  s.record = running.record;
  s.cancelledBy = running.cancelledBy;
  for (const Item& it : running.items) {
    ManifestItemStatus item{it.request.source, it.request.file, it.request.dest, {}};
    item.send.finished = true;
    item.send.cancelledBy = running.cancelledBy;
    s.items.push_back(std::move(item));
  }
  return s;
}

bool ManifestService::cancel(OperationId record, const std::string& who) {
  if (record == 0) return false;
  if (auto p = preparing_.find(record); p != preparing_.end()) {
    auto held = p->second.lock();
    preparing_.erase(p);
    if (!held || !*held) return false;  // its agents' answers were dropped: nothing left to stop
    Running& running = **held;
    running.cancelledBy = who;
    spdlog::info("manifest record {}: cancelled by {} while it was prepared", record, who);
    finishRecord(coordinator_, record, "cancelled", running.summary + ",\"cancelled_by\":" + jsonString(who) + "}");
    return true;
  }
  for (auto& [id, running] : operations_) {
    if (running->record != record || running->recorded) continue;
    spdlog::info("manifest {} (record {}): cancelled by {}", id, record, who);
    running->cancelledBy = who;
    releaseAll(*running);
    endIfFinished(*running);
    return true;
  }
  return false;
}

}  // namespace hnow::daemon
