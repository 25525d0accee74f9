#pragma once
// hnowd's side of `hnow send --manifest`, on the kj thread. Every
// item's source agent opens and hashes its file (AgentControl.serveFile),
// the items are planned jointly (core/manifest_plan.h), every destination
// prepares its receive, and only then do all items start at once, each a
// SendOperation whose node 0 is its source agent. Any refusal on the way
// releases what was prepared and refuses the whole manifest, naming the
// item (file:line) and the agent.
#include <kj/async.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/coordinator.h"
#include "core/finished_operations.h"
#include "core/manifest_status.h"
#include "core/transfer_observer.h"

namespace hnow::daemon {

class ManifestService final : public TransferObserver {
 public:
  // Hears the coordinator's transfer reports, losses and drifts (of every
  // operation: it acts on its own tokens and agents only).
  ManifestService(Coordinator& coordinator, const Clock& clock);
  ~ManifestService() override;

  // Resolves once every item is prepared and started; fails with the reason otherwise.
  kj::Promise<std::pair<std::uint64_t, ManifestStatus>> start(ManifestRequest request);
  // None for an unknown operation.
  std::optional<ManifestStatus> status(std::uint64_t operation) const;

  void transferReport(const std::string& agent, const std::string& token,
                      const TransferReport& report) override;
  void agentGone(const std::string& agent) override;
  // Each item re-plans on its own, as a single send does (send_replan.h).
  void ratesDrifted(const RateEvent& event, const planner::NodeRates& rates) override;
  void collectFlows(Duration window, std::vector<Flow>& out) const override;
  bool moving() const override;

 private:
  struct Item;
  struct Running;
  std::unique_ptr<Running> itemsOf(ManifestRequest& request);
  void planItems(Running& running);
  std::pair<std::uint64_t, ManifestStatus> begin(std::unique_ptr<Running> running);
  kj::Promise<void> prepareSources(Running& running);
  kj::Promise<void> prepareReceives(Running& running);
  void releaseAll(Running& running);
  void endIfFinished(Running& running);
  void refuse(Running& running, const std::string& why);

  Coordinator& coordinator_;
  const Clock& clock_;
  std::map<std::uint64_t, std::unique_ptr<Running>> operations_;
  std::map<std::string, std::pair<std::uint64_t, Item*>> itemOfToken_;  // while its token is claimed
  FinishedOperations finished_;  // the newest 32 finished manifests stay answerable
  std::uint64_t nextOperation_ = 1;
};

}  // namespace hnow::daemon
