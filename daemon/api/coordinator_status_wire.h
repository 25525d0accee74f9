#pragma once
// The one codec of `hnow status` and `hnow ops` (transport/status.capnp:
// ClientSession.status's results, OperationRecord): hnowd's session writes
// them, the CLI reads them, both through these pairs.
#include <capnp/list.h>

#include <vector>

#include "api/coordinator_status.h"
#include "transport/client_session.capnp.h"
#include "transport/status.capnp.h"

namespace hnow::api {

void toWire(const CoordinatorStatus& status, wire::ClientSession::StatusResults::Builder out);
// Rates that are not finite or negative read as none (0).
CoordinatorStatus coordinatorStatusFromWire(wire::ClientSession::StatusResults::Reader in);

void toWire(const OperationSummary& record, wire::OperationRecord::Builder out);
OperationSummary operationFromWire(wire::OperationRecord::Reader in);
void toWire(const std::vector<OperationSummary>& records, capnp::List<wire::OperationRecord>::Builder out);
std::vector<OperationSummary> operationsFromWire(capnp::List<wire::OperationRecord>::Reader in);

}  // namespace hnow::api
