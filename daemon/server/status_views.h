#pragma once
// What `hnow status` and `hnow ops` show, read from hnowd's core as
// daemon/api's plain values. The client sessions put them on the wire; the
// web view and /metrics read the very same values.
#include <cstdint>
#include <string>

#include "api/coordinator_status.h"
#include "base/clock.h"
#include "core/coordinator.h"

namespace hnow::daemon {

class SendService;
class ManifestService;
class JobService;
class SurveyRunner;
class OwedSends;
class SendsUnderWay;
class KeyHosts;

// Where the views read from; a null service has nothing to show.
struct StatusSources {
  Coordinator* coordinator = nullptr;
  SendService* sends = nullptr;
  ManifestService* manifests = nullptr;
  JobService* jobs = nullptr;
  SurveyRunner* surveys = nullptr;
  OwedSends* owed = nullptr;
  SendsUnderWay* underWay = nullptr;
  KeyHosts* keyHosts = nullptr;  // with `clock`: status's flags of keys taking turns between hosts
  const Clock* clock = nullptr;
};

// `hnow status`: hnowd, its agents, rooms, machines, owed and waiting sends.
api::CoordinatorStatus coordinatorStatusOf(const StatusSources& from);
// One agent as `hnow status` shows it.
api::AgentStatus agentStatusOf(const StatusSources& from, const AgentView& agent);

// The operation a record names, and its kind ("send", "run", "manifest");
// {"", 0}: none held now.
struct LocatedOperation {
  std::string kind;
  std::uint64_t operation = 0;
};
LocatedOperation locateOperation(const StatusSources& from, OperationId record);

// How far the operation of `record` under way is ("" when none holds it).
std::string progressOf(const StatusSources& from, OperationId record);

// One record of `hnow ops`, with its progress while under way.
api::OperationSummary summaryOf(const StatusSources& from, const OperationRecord& record);

}  // namespace hnow::daemon
