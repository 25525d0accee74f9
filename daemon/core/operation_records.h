#pragma once
// The operation records of hnowd's services (core/operation_log.h): a
// record state.db cannot keep is logged and the operation goes ahead
// unrecorded; the operation itself is never affected.
#include <string>

#include "core/coordinator.h"

namespace hnow::daemon {

// The record's id, or 0 when it could not be kept.
OperationId beginRecord(Coordinator& coordinator, const std::string& kind, const std::string& summary);
// The same, "queued" (a job waiting for its agents); launchRecord makes it "running".
OperationId queueRecord(Coordinator& coordinator, const std::string& kind, const std::string& summary);
void launchRecord(Coordinator& coordinator, OperationId id);
// Replaces a running record's summary (nothing for id 0).
void describeRecord(Coordinator& coordinator, OperationId id, const std::string& summary);
// Ends the record (nothing for id 0).
void finishRecord(Coordinator& coordinator, OperationId id, const std::string& status, const std::string& summary);

}  // namespace hnow::daemon
