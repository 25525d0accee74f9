#pragma once
// hnowd's side of `hnow send`, on the kj thread: plans a tree from
// the rate table, makes hnowd the source on its data plane, asks every
// agent to prepare (any refusal stops the send before a byte moves), then
// runs the SendOperation and answers progress queries.
#include <kj/async.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/coordinator.h"
#include "core/finished_operations.h"
#include "core/send_operation.h"
#include "core/source_plane.h"
#include "core/transfer_observer.h"

namespace hnow::daemon {

struct SendRequest {
  std::string path;  // on this machine
  std::string dest;
  std::vector<std::string> to;
  std::string algo = "auto";
  bool replan = true;  // re-plan on drift events and losses
};

class SendService final : public TransferObserver {
 public:
  // `sourceAddress` is hnowd's data plane as agents reach it; hnowd paces
  // its uplink at `configuredUplinkBytesPerSecond` (hnowd's uplink_mbps; 0:
  // its measured uplink, Coordinator::sourceUplink).
  SendService(Coordinator& coordinator, SourcePlane& plane, std::string sourceAddress, const Clock& clock,
              double configuredUplinkBytesPerSecond = 0, std::function<std::string()> newToken = {});
  ~SendService() override;

  // Resolves once every agent has prepared; fails with the reason otherwise.
  kj::Promise<std::pair<std::uint64_t, SendStatus>> start(SendRequest request);
  // None for an unknown operation.
  std::optional<SendStatus> status(std::uint64_t operation) const;

  void transferReport(const std::string& agent, const std::string& token,
                      const TransferReport& report) override;
  void agentGone(const std::string& agent) override;
  void ratesDrifted(const RateEvent& event, const planner::NodeRates& rates) override;
  void collectFlows(Duration window, std::vector<Flow>& out) const override;
  bool moving() const override;

 private:
  struct Running;
  // The agents' answers to a receive order (the path each will write, or
  // its refusal), in the order asked. Held by pointer: GCC 12 warns falsely
  // about strings inside kj's ExceptionOr.
  using Answers = std::shared_ptr<std::vector<Result<std::string>>>;
  // The agents a request goes to, every check refused with its reason.
  std::vector<AgentView> receiversOf(const SendRequest& request);
  kj::Promise<Answers> prepareReceives(const std::vector<AgentView>& chosen,
                                                 const AgentLink::ReceiveOrder& order);
  void endIfFinished(Running& running);
  void logReplan(std::uint64_t id, const SendOperation& operation);

  Coordinator& coordinator_;
  SourcePlane& plane_;
  std::string sourceAddress_;
  const Clock& clock_;
  double configuredUplink_;
  std::function<std::string()> newToken_;  // 32 random bytes per send
  std::map<std::uint64_t, std::unique_ptr<Running>> operations_;
  std::map<std::string, std::uint64_t> operationOfToken_;  // while its token is claimed
  FinishedOperations finished_;  // the newest 32 finished sends stay answerable
  std::uint64_t nextOperation_ = 1;
};

// The links of a plan's nodes taken at a lower bound, for its report (SendTree::rateBounds).
std::vector<std::string> boundsOf(const Coordinator& coordinator, const std::vector<AgentView>& agents);

}  // namespace hnow::daemon
