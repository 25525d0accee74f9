#include "core/operation_records.h"

#include <spdlog/spdlog.h>

namespace hnow::daemon {

OperationId beginRecord(Coordinator& coordinator, const std::string& kind, const std::string& summary) {
  auto id = coordinator.operationLog().begin(kind, summary);
  if (id) return *id;
  spdlog::error("recording a {}: {}", kind, id.error().message);
  return 0;
}

OperationId queueRecord(Coordinator& coordinator, const std::string& kind, const std::string& summary) {
  auto id = coordinator.operationLog().queue(kind, summary);
  if (id) return *id;
  spdlog::error("recording a queued {}: {}", kind, id.error().message);
  return 0;
}

void launchRecord(Coordinator& coordinator, OperationId id) {
  if (id == 0) return;
  if (auto done = coordinator.operationLog().launch(id); !done)
    spdlog::error("recording the start of operation {}: {}", id, done.error().message);
}

void describeRecord(Coordinator& coordinator, OperationId id, const std::string& summary) {
  if (id == 0) return;
  if (auto done = coordinator.operationLog().describe(id, summary); !done)
    spdlog::error("recording the plan of operation {}: {}", id, done.error().message);
}

void finishRecord(Coordinator& coordinator, OperationId id, const std::string& status, const std::string& summary) {
  if (id == 0) return;
  if (auto done = coordinator.operationLog().finish(id, status, summary); !done)
    spdlog::error("recording the end of operation {}: {}", id, done.error().message);
}

}  // namespace hnow::daemon
