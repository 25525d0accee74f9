#pragma once
// /metrics: hnowd's numbers in the Prometheus text exposition format 0.0.4
// (prometheus.io/docs/instrumenting/exposition_formats). The names are
// stable and say their unit (docs/metrics.md lists them); every value is one
// hnowd measured or counted, none is a constant but build_info's 1.
#include <cstdint>
#include <string>
#include <vector>

#include "api/coordinator_status.h"
#include "core/event_counts.h"
#include "state/state_store.h"

namespace hnow::daemon {

struct MetricsValues {
  std::string version;                      // hnow's
  std::vector<api::AgentStatus> agents;     // as `hnow status` shows them
  std::vector<OperationCount> operations;   // the records in state.db by kind and status
  EventCounts counts;                       // since hnowd started
  std::uint64_t bytesSent = 0, bytesReceived = 0;  // hnowd's data plane's payload since it started
};

std::string metricsText(const MetricsValues& values);

// A label value as the format writes it: backslash, double quote and line
// feed escaped (agent names come from agents: never trusted to be plain).
std::string labelValue(const std::string& text);

}  // namespace hnow::daemon
