#pragma once
// How agents' transfer reports, losses, fresh logins and drift reach
// hnowd's running operations through the Coordinator, which knows which
// session is whose; and what the coordinator asks of them in turn: the
// flows they move (for the link book's passive readings) and whether they
// move data at all.
#include <string>
#include <vector>

#include "core/links/link_verdict.h"
#include "core/links/rate_table.h"
#include "core/send/send_operation.h"

namespace hnow::daemon {

class TransferObserver {
 public:
  virtual ~TransferObserver() = default;
  virtual void transferReport(const std::string& agent, const std::string& token,
                              const TransferReport& report) = 0;
  // The agent's connection ended or it stopped heartbeating; or it logged
  // in afresh while hnowd still held its earlier session (agentBackAfresh
  // follows).
  virtual void agentGone(const std::string& agent) = 0;
  // The agent logged in holding nothing of what it ran for this hnowd (a
  // new process: it restarted, or its machine did; or one that dropped its
  // transfers) and now calls on its new session: what it lost may be
  // ordered again there, where it resumes from the bytes it kept on disk.
  virtual void agentBackAfresh(const std::string& /*agent*/) {}
  // A drift event, with the node's planning rates now; sends may re-plan.
  virtual void ratesDrifted(const RateEvent& /*event*/, const planner::NodeRates& /*rates*/) {}
  // Appends what each copy under way received over the last `window`
  // (SendOperation::flows).
  virtual void collectFlows(Duration /*window*/, std::vector<Flow>& /*out*/) const {}
  // An operation of this observer is under way (surveys wait for it).
  virtual bool moving() const { return false; }
};

}  // namespace hnow::daemon
