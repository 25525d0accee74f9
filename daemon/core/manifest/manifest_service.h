#pragma once
// hnowd's side of `hnow send --manifest`, on the control thread. Every
// item's source agent opens and hashes its file (AgentControl.serveFile),
// the items are planned jointly (core/manifest/manifest_plan.h), every destination
// prepares its receive, and only then do all items start at once, each a
// SendOperation whose node 0 is its source agent. Any refusal on the way
// releases what was prepared and refuses the whole manifest, naming the
// item (file:line) and the agent.
#include <cstdint>
#include <functional>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/coordinator.h"
#include "core/finished_operations.h"
#include "core/manifest/manifest_status.h"
#include "core/transfer_observer.h"

namespace hnow::daemon {

class ManifestService final : public TransferObserver {
 public:
  // Hears the coordinator's transfer reports, losses and drifts (of every
  // operation: it acts on its own tokens and agents only).
  // Files move in chunks of `chunkBytes`; `newToken` makes 32 random bytes.
  ManifestService(Coordinator& coordinator, const Clock& clock, std::uint32_t chunkBytes,
                  std::function<std::string()> newToken);
  ~ManifestService() override;

  // The operation's id and first status once every item is prepared and
  // started; else why the manifest was refused.
  using Started = std::function<void(const Result<std::pair<std::uint64_t, ManifestStatus>>& started)>;
  void start(ManifestRequest request, Started started);
  // None for an unknown operation.
  std::optional<ManifestStatus> status(std::uint64_t operation) const;
  // The operation whose record is `record`; 0: none known.
  std::uint64_t operationOf(OperationId record) const;
  // Ends the manifest whose record is `record` now, as operator `who`
  // asked: every item's agents release its token (stop pulling and
  // serving, remove their temp files), and its record says "cancelled" and
  // by whom. One still prepared (its sources hashing, its destinations
  // opening their receives) is released at its next step, and no item of
  // it starts. False: no manifest under way or prepared has that record.
  bool cancel(OperationId record, const std::string& who);

  void transferReport(const std::string& agent, const std::string& token,
                      const TransferReport& report) override;
  // Ends the items that waited in vain for a lost agent to report again
  // (SendOperation::kBackWithin); hnowd calls it every tick.
  void tick();
  void agentGone(const std::string& agent) override;
  // Each item that waits for the agent's copy orders it again on its new
  // session, as a single send does (manifest_returns.cc).
  void agentBackAfresh(const std::string& agent) override;
  // Each item re-plans on its own, as a single send does (send_replan.h).
  void ratesDrifted(const RateEvent& event, const planner::NodeRates& rates) override;
  void collectFlows(Duration window, std::vector<Flow>& out) const override;
  bool moving() const override;

 private:
  struct Item;
  struct Running;
  using Prepared = std::function<void(const Result<void>& prepared)>;
  Result<std::unique_ptr<Running>> itemsOf(ManifestRequest& request);
  Result<void> planItems(Running& running);
  std::pair<std::uint64_t, ManifestStatus> begin(std::unique_ptr<Running> running);
  // A manifest cancelled while it was prepared: released, its status for the client.
  ManifestStatus cancelledWhilePrepared(Running& running);
  // Each source serves its item's file, then each destination opens its
  // receive: `prepared` once, with every refusal named.
  void prepareSources(Running& running, Prepared prepared);
  void prepareReceives(Running& running, Prepared prepared);
  // What `agent`, a destination of `item`, is told to receive, paced as now.
  AgentLink::ReceiveOrder receiveOrder(const Running& running, const Item& item, const std::string& agent) const;
  void releaseAll(Running& running);
  void endIfFinished(Running& running);
  // The relays item `caughtIn` of manifest `id` caught altering bytes:
  // logged, counted (relay_suspects.h), barred in its other items too.
  void barInOtherItems(std::uint64_t id, Item& caughtIn);
  void unreachableInOtherItems(std::uint64_t id, const std::string& reporter, Item& foundIn,
                               const TransferReport& report);
  // Releases what was prepared, records the failure: the Error to answer.
  Error refused(Running& running, const std::string& why);

  Coordinator& coordinator_;
  const Clock& clock_;
  std::uint32_t chunkBytes_;
  std::function<std::string()> newToken_;
  std::map<std::uint64_t, std::unique_ptr<Running>> operations_;
  // Manifests prepared, by record: held by their agents' answers until they start.
  std::map<OperationId, std::weak_ptr<std::unique_ptr<Running>>> preparing_;
  std::map<std::string, std::pair<std::uint64_t, Item*>> itemOfToken_;  // while its token is claimed
  FinishedOperations finished_;  // the newest 32 finished manifests stay answerable
  std::uint64_t nextOperation_ = 1;
};

}  // namespace hnow::daemon
