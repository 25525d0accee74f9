#pragma once
// The sends that run, from the moment every agent has prepared to their
// record: the Coordinator routes every report on their tokens here, losses
// and drift replan them, and each ends with its record and what it left
// owed. SendService prepares a send (agents, destinations, plan, the
// agents' receive orders) and hands it here once every agent has answered.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/coordinator.h"
#include "core/finished_operations.h"
#include "core/send/send_operation.h"
#include "core/send/source_plane.h"
#include "core/transfer_observer.h"

namespace hnow::daemon {

struct RunningSend;  // send_service_state.h
struct SendEnd;      // send_service.h

class SendRuns final : public TransferObserver {
 public:
  // `configuredUplink`: hnowd's uplink_mbps in bytes/s (0: not set).
  SendRuns(Coordinator& coordinator, SourcePlane& plane, double configuredUplink);
  ~SendRuns() override;

  // Ids are shared by every send SendService answers for (one that moved
  // nothing, a family of groups), so that no two share one.
  std::uint64_t nextId() { return nextOperation_++; }
  // `send`, whose every agent has prepared, runs from now: hnowd's uplink
  // and the agents' paced, its operation started, its tokens routed here.
  // Its id and first status.
  std::pair<std::uint64_t, SendStatus> run(std::unique_ptr<RunningSend> send);
  // None for an unknown or forgotten send.
  std::optional<SendStatus> status(std::uint64_t id) const;
  bool knows(std::uint64_t id) const { return operations_.count(id) > 0; }
  // The send under way whose operation record is `record`; 0: none.
  std::uint64_t runningWithRecord(OperationId record) const;
  // The same, under way or ended (while still known); 0: none.
  std::uint64_t withRecord(OperationId record) const;
  // Ends send `id` now, as operator `who` asked: every agent releases its
  // tokens (stops pulling and serving, removes its temp file: DataPlane::
  // release), the plane stops serving it, and its record says "cancelled"
  // and by whom; nothing is owed to anyone. False: it is not under way.
  bool cancel(std::uint64_t id, const std::string& who);
  // The oldest finished sends past the newest 32 forgotten.
  void forgetOldest();
  // hnowd's caps changed: the sends under way pace its uplink anew.
  void sourceCapsChanged();
  // Ends the sends that waited in vain for a lost agent (SendOperation::kBackWithin).
  void tick();
  // Told of every send that ends, after its record is finished.
  void onEnded(std::function<void(const SendEnd&)> ended) { ended_ = std::move(ended); }
  void ended(const SendEnd& end) const {
    if (ended_) ended_(end);
  }
  // A tree's bundle for one group of its agents (SendRequest::groups > 1)
  // shares its record with the other groups: when it ends, it is told
  // here, with what it delivered and missed, and neither finishes the
  // record nor tells onEnded: the family does, once every group has ended
  // (send_groups.cc).
  void onGroupEnded(std::function<void(const SendEnd&)> ended) { groupEnded_ = std::move(ended); }

  void transferReport(const std::string& agent, const std::string& token, const TransferReport& report) override;
  void agentGone(const std::string& agent) override;
  // Each send that waits for the agent's copy orders it again on its new
  // session (send_runs_returns.cc).
  void agentBackAfresh(const std::string& agent) override;
  void ratesDrifted(const RateEvent& event, const planner::NodeRates& rates) override;
  void collectFlows(Duration window, std::vector<Flow>& out) const override;
  bool moving() const override;

 private:
  void endIfFinished(RunningSend& running);
  // Releases everything `running` holds and writes its record.
  void end(RunningSend& running);
  void logReplan(const RunningSend& running);

  Coordinator& coordinator_;
  SourcePlane& plane_;
  double configuredUplink_;
  std::map<std::uint64_t, std::unique_ptr<RunningSend>> operations_;
  std::function<void(const SendEnd&)> ended_, groupEnded_;
  std::map<std::string, std::uint64_t> operationOfToken_;  // while its token is claimed
  FinishedOperations finished_;  // the newest 32 finished sends stay answerable
  std::uint64_t nextOperation_ = 1;
};

}  // namespace hnow::daemon
