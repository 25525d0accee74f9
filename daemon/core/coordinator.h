#pragma once
// hnowd's registry: which agents are connected through which session, their
// registrations, and the rate table. Sessions are numbered so that a late
// message or disconnect from an agent's previous connection cannot touch
// its current one (an agent that reconnects before its old TCP connection
// times out would otherwise be marked lost by the old one's end).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/agent_link.h"
#include "core/clock.h"
#include "core/operation_log.h"
#include "core/rate_table.h"
#include "state/state_store.h"
#include "core/transfer_observer.h"

namespace hnow::daemon {

using SessionId = std::uint64_t;

struct AgentView {
  AgentRecord record;
  AgentRegistration registration;
  std::optional<double> ratesAgeSeconds;  // none before the first report
  bool connected = false;
};

class Coordinator {
 public:
  // `store` keeps agents and operation records across restarts.
  Coordinator(const Clock& clock, RateTableOptions options, StateStore& store);

  // Loads the agents an earlier run knew, with their last rates and ages,
  // as lost until they register again. Call once, before serving.
  void restore();
  // Operations restore() found still "running" and marked "interrupted".
  int interruptedAtStart() const { return interruptedAtStart_; }
  // Writes agents whose registration or rates changed, and the last-seen
  // time of the others at most every `kLastSeenEvery`, in one transaction.
  // hnowd calls it every second: a restart forgets at most that much.
  void persist();
  static constexpr Duration kLastSeenEvery = std::chrono::seconds(30);

  // A registration under a name that is already connected replaces the
  // earlier session (the agent restarted or reconnected).
  SessionId attach(AgentRegistration registration, std::unique_ptr<AgentLink> link);
  // False when `session` is not the agent's current session.
  bool heartbeat(SessionId session);
  bool reportRates(SessionId session, const planner::NodeRates& rates);
  // The session's connection ended; a stale session is ignored.
  void detach(SessionId session);

  // Call periodically: marks agents lost or back, detects drift.
  std::vector<RateEvent> tick();

  std::vector<AgentView> status() const;
  // Empty on success, else the reason (unknown or disconnected agent). A
  // command sent is an operation record, finished when the agent answers.
  std::string setEmulatedRates(const std::string& name, const EmulatedRates& rates);
  std::size_t connectedCount() const;
  // The newest `limit` operation records, newest first.
  std::vector<OperationRecord> operations(std::size_t limit) { return operations_.newest(limit); }
  // Where other services (sends) record their operations.
  OperationLog& operationLog() { return operations_; }

  // Issue 6: the sends in progress hear of reports and losses; main() sets it.
  // Every observer hears every report, loss and drift, and ignores what is
  // not its own (sends and manifests tell theirs apart by token). Not owned.
  void addTransferObserver(TransferObserver* observer) { observers_.push_back(observer); }
  void removeTransferObserver(TransferObserver* observer) { std::erase(observers_, observer); }
  // False when `session` is not the agent's current session.
  bool reportTransfer(SessionId session, const std::string& token, const TransferReport& report);
  // The command link of a connected agent, or null.
  AgentLink* link(const std::string& name);

 private:
  struct Agent {
    AgentRegistration registration;
    SessionId session = 0;  // 0: not connected
    std::unique_ptr<AgentLink> link;
  };
  // The agent whose current session is `session`, or null.
  Agent* current(SessionId session);

  WallTime wallOf(TimePoint t) const;
  TimePoint steadyOf(WallTime t) const;

  const Clock& clock_;
  RateTable table_;
  StateStore& store_;
  OperationLog operations_;
  std::map<std::string, Agent> agents_;
  std::map<SessionId, Agent*> sessions_;  // into agents_ (map nodes do not move)
  SessionId nextSession_ = 1;
  std::set<std::string> changed_;                // to write at the next persist()
  std::map<std::string, TimePoint> lastSeenSaved_;  // lastHeard as last written
  std::vector<TransferObserver*> observers_;
  int interruptedAtStart_ = 0;
};

}  // namespace hnow::daemon
