#pragma once
// How agents' transfer reports and losses reach hnowd's running sends
// (issue 6) through the Coordinator, which knows which session is whose.
#include <string>

#include "core/rate_table.h"
#include "core/send_operation.h"

namespace hnow::daemon {

class TransferObserver {
 public:
  virtual ~TransferObserver() = default;
  virtual void transferReport(const std::string& agent, const std::string& token,
                              const TransferReport& report) = 0;
  // The agent's connection ended or it stopped heartbeating.
  virtual void agentGone(const std::string& agent) = 0;
  // Issue 7: a drift event, with the agent's rates now; sends may re-plan.
  virtual void ratesDrifted(const RateEvent& /*event*/, const planner::NodeRates& /*rates*/) {}
};

}  // namespace hnow::daemon
