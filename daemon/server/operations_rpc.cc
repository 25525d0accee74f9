// `hnow ops` on the wire (ClientSession.operations, locate): the records in
// state.db, with how far each one under way is as its service tells it now,
// and the operation a record names for the follow calls and grantOutput.
#include <algorithm>

#include "api/coordinator_status_wire.h"
#include "server/sessions.h"
#include "server/status_views.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

StatusSources ClientSessionServer::sources() const {
  return {&coordinator_, sends_, manifests_, jobs_, surveys_, owed_, underWay_, operator_.keyHosts, operator_.clock};
}

kj::Promise<void> ClientSessionServer::operations(OperationsContext context) {
  const std::size_t limit = std::min<std::size_t>(context.getParams().getLimit(), 1000);
  auto newest = coordinator_.operations(limit);
  if (!newest) transport::refuse("cannot read hnowd's operation records: " + newest.error().message);
  std::vector<api::OperationSummary> records;
  for (const OperationRecord& r : *newest) records.push_back(summaryOf(sources(), r));
  api::toWire(records, context.getResults().initRecords(static_cast<unsigned>(records.size())));
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::locate(LocateContext context) {
  const auto id = static_cast<OperationId>(context.getParams().getRecord());
  auto record = coordinator_.operationLog().find(id);
  if (!record) transport::refuse("cannot read hnowd's operation records: " + record.error().message);
  const LocatedOperation where = locateOperation(sources(), id);
  auto results = context.getResults();
  results.setKind(where.kind);
  results.setOperation(where.operation);
  if (*record) api::toWire(summaryOf(sources(), **record), results.initEntry());
  return kj::READY_NOW;
}

}  // namespace hnow::daemon
