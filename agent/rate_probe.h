#pragma once
// What an agent measures of itself (docs/architecture.md "From measured rates
// to each model"): the fixed overheads of a message, by a small-message
// ping-pong with hnowd (Banikazemi, Moorthy and Panda, "Efficient collective
// communication on heterogeneous networks of workstations", 1998), and a short
// compute calibration. Its link capacities are hnowd's to measure, with
// several peers at once (daemon/core/links/link_survey.h): a probe between the agent
// and hnowd alone reads the slower end of the two, or what traffic on either
// leaves over, not the agent's link.
#include <kj/async.h>

#include "base/clock.h"
#include "planner/node_rates.h"

namespace hnow::agent {

// The far end of the ping-pong; the RPC glue implements it over AgentSession.
class ProbePeer {
 public:
  virtual ~ProbePeer() = default;
  virtual kj::Promise<void> ping() = 0;
};

struct ProbeSettings {
  double computeFactor = 1.0;
  int pings = 16;
};

// Overheads and compute; the links are left 0. `peer` and `clock` must
// outlive the promise.
kj::Promise<planner::NodeRates> probeRates(ProbePeer& peer, const hnow::Clock& clock, ProbeSettings settings);

}  // namespace hnow::agent
