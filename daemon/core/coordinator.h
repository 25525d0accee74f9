#pragma once
// hnowd's registry: which agents are connected through which session, their
// registrations and the rate table; and the routing of what they report:
// rates and counters to what hnowd knows of the links (link_knowledge.h),
// transfer reports to the operation that owns their token, losses and
// drift to every operation (TransferObserver). Sessions are numbered so that a late
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

#include "base/bandwidth_limits.h"
#include "base/clock.h"
#include "base/result.h"
#include "core/agent_link.h"
#include "core/event_counts.h"
#include "core/links/link_knowledge.h"
#include "core/links/pacing.h"
#include "core/links/rate_table.h"
#include "core/operation_log.h"
#include "core/transfer_observer.h"
#include "core/trust/relay_policy.h"
#include "state/state_store.h"

namespace hnow::daemon {

using SessionId = std::uint64_t;

struct AgentView {
  AgentRecord record;  // rates: the links' available rates, what plans take
  AgentRegistration registration;
  std::optional<double> ratesAgeSeconds;  // none before the first report
  bool connected = false;
  // Its logins to this hnowd so far. One that grew between two looks means
  // a new session even when the agent was never seen disconnected (its
  // process restarted, or it reconnected, within a tick): what it ran for
  // the earlier session is gone with it (docs/jobs.md).
  std::uint64_t logins = 0;
  NodeLinks links;
  NodeCaps caps;  // in force now
  // Sends in which it relayed bytes that differ from the source's
  // (relay_suspects.h); kSuspectFaults or more: planned as a leaf.
  int relayFaults = 0;
  ReachabilityView reachability;  // can others connect to it (reachability.h)
};

class Coordinator {
 public:
  // `store` keeps agents and operation records across restarts. The link
  // book's drift settings default to the rate table's.
  Coordinator(const Clock& clock, RateTableOptions options, StateStore& store,
              std::optional<LinkOptions> links = std::nullopt);

  // Loads the agents an earlier run knew, with their last rates and ages,
  // as lost until they register again. Call once, before serving.
  Result<void> restore();
  // Operations restore() found still "running" and marked "interrupted".
  int interruptedAtStart() const { return interruptedAtStart_; }
  // Writes agents whose registration or rates changed, and the last-seen
  // time of the others at most every `kLastSeenEvery`, in one transaction.
  // hnowd calls it every second: a restart forgets at most that much.
  Result<void> persist();
  static constexpr Duration kLastSeenEvery = std::chrono::seconds(30);

  // A registration under a name that is already connected replaces the
  // earlier session (the agent restarted or reconnected). One that keeps
  // nothing it ran for this instance (AgentRegistration::keptInstance) is
  // back afresh: every observer hears agentGone at once when the earlier
  // session was still held (what the agent did under it is gone with it),
  // and agentBackAfresh at the agent's first call on its new session (a
  // heartbeat, its rates or caps, a transfer report).
  SessionId attach(AgentRegistration registration, std::unique_ptr<AgentLink> link);
  // False when `session` is not the agent's current session. `counters`:
  // what its data plane and interface carried so far (node_loads.h).
  bool heartbeat(SessionId session, const std::optional<CounterSample>& counters = std::nullopt);
  // Overheads and compute replace the agent's; an emulated link is taken
  // as told (unless LinkOptions::measureEmulated), a real one is measured.
  bool reportRates(SessionId session, const planner::NodeRates& rates, const EmulatedLinks& emulated = {});
  // The bandwidth caps in force on the agent's links, as it evaluated its
  // [limits] (at login, and whenever its schedule changes them). False when
  // `session` is not the agent's current session.
  bool reportCaps(SessionId session, const CapsInForce& caps);
  // hnowd's own data plane's counters (it is a node of sends and surveys).
  void localCounters(const CounterSample& counters);
  // The latest of them: what hnowd's data plane has carried since it started.
  const CounterSample& localSample() const { return localSample_; }
  // The session's connection ended; a stale session is ignored.
  void detach(SessionId session);

  // hnowd's loop ran `lag` late (an overloaded machine): agents are not
  // counted silent for it (RateTable::excuse).
  void loopLagged(Duration lag) { table_.excuse(lag); }
  // Call periodically: marks agents lost or back, detects drift (the link
  // book's capacity changes and the agents' compute).
  std::vector<RateEvent> tick();
  // Judges the flows of every operation moving data over the last window
  // (link_verdict.h) into the link book; call about once a second.
  void observeTransfers();
  // Some operation is moving data now (surveys wait for it).
  bool moving() const;

  std::vector<AgentView> status() const;
  // hnowd's own links (its uplink sources every send).
  NodeLinks coordinatorLinks() const { return links_.of(kCoordinatorNode); }
  // What hnowd knows of the network (link_knowledge.h), and its link book.
  LinkKnowledge& linkKnowledge() { return links_; }
  const LinkKnowledge& linkKnowledge() const { return links_; }
  LinkBook& links() { return links_.book(); }
  const LinkBook& links() const { return links_.book(); }
  // Caps in force, pacing while data moves, and the rates plans take (pacing.h).
  Pacing& pacing() { return pacing_; }
  const Pacing& pacing() const { return pacing_; }
  // Refused for an unknown or disconnected agent. A command sent is an
  // operation record, finished when the agent answers.
  Result<void> setEmulatedRates(const std::string& name, const EmulatedRates& rates);
  std::size_t connectedCount() const;
  // A machine gone for good (`hnow agent forget`): its record, rates and
  // links, here and in state.db, so status and sends no longer name it.
  // Refused for an unknown agent and for a connected one (it would only
  // register again: stop it first).
  Result<void> forget(const std::string& name);
  // The newest `limit` operation records, newest first.
  Result<std::vector<OperationRecord>> operations(std::size_t limit) { return operations_.newest(limit); }
  // Where other services (sends) record their operations.
  OperationLog& operationLog() { return operations_; }
  // Who may feed others in a plan (relay_policy.h).
  RelayPolicy& relays() { return relays_; }
  // Relay faults caught in operation `id` of `kind` counted
  // (RelaySuspects::caught) and the ledger written to state.db at once, so
  // a suspect stays one after a restart; the lines to log.
  std::vector<std::string> relayFaultsCaught(const std::string& kind, std::uint64_t id,
                                             const std::vector<RelayFault>& faults);
  // A per-agent ledger in state.db (StoredLedgerEntry); a write that fails
  // is logged, and the ledger stays as it was there.
  Result<std::vector<StoredLedgerEntry>> loadLedger(const std::string& ledger) { return store_.loadLedger(ledger); }
  void saveLedger(const std::string& ledger, const std::vector<StoredLedgerEntry>& entries);
  const RelayPolicy& relays() const { return relays_; }
  // What hnowd caught and did since it started (event_counts.h); the
  // services add theirs here.
  EventCounts& counts() { return counts_; }
  const EventCounts& counts() const { return counts_; }

  // The sends in progress hear of reports and losses; main() sets it.
  // Every observer hears every report, loss and drift, and ignores what is
  // not its own (sends and manifests tell theirs apart by token). Not owned.
  void addTransferObserver(TransferObserver* observer) { observers_.push_back(observer); }
  // Also forgets the tokens it owns.
  void removeTransferObserver(TransferObserver* observer);
  // The reports on a token go to the operation that owns it, and to no one
  // else; a report on a token nobody owns (an operation already released,
  // or a guess) is dropped.
  void claimToken(const std::string& token, TransferObserver* owner) { owners_[token] = owner; }
  void releaseToken(const std::string& token);
  bool tokenOwned(const std::string& token) const { return owners_.count(token) > 0; }
  // Drawn at random at construction: an agent that logs back in to the
  // same instance keeps its transfers, which this hnowd still runs.
  std::uint64_t instance() const { return instance_; }
  // False when `session` is not the agent's current session.
  bool reportTransfer(SessionId session, const std::string& token, const TransferReport& report);
  // The command link of a connected agent, or null.
  AgentLink* link(const std::string& name);
  // Its registration at its last login, or null: never logged in here.
  const AgentRegistration* registration(const std::string& name) const;
  // AgentView::logins of `name` (0: it never logged in to this hnowd).
  std::uint64_t logins(const std::string& name) const;

 private:
  struct Agent {
    AgentRegistration registration;
    SessionId session = 0;  // 0: not connected
    std::uint64_t logins = 0;
    std::unique_ptr<AgentLink> link;
    bool backAfresh = false;  // logged in keeping nothing, not yet heard on its session
  };
  // The agent whose current session is `session`, or null.
  Agent* current(SessionId session);
  // The agent called on its current session: observers hear it is back
  // afresh, the first time since such a login.
  void heardOn(Agent& agent);

  const Clock& clock_;
  RateTable table_;
  LinkKnowledge links_;
  Pacing pacing_;
  StateStore& store_;
  OperationLog operations_;
  std::map<std::string, Agent> agents_;
  std::map<SessionId, Agent*> sessions_;  // into agents_ (map nodes do not move)
  SessionId nextSession_ = 1;
  std::set<std::string> changed_;                // to write at the next persist()
  std::map<std::string, TimePoint> lastSeenSaved_;  // lastHeard as last written
  std::vector<TransferObserver*> observers_;
  std::map<std::string, TransferObserver*> owners_;  // token -> the observer whose operation holds it
  RelayPolicy relays_;
  EventCounts counts_;
  CounterSample localSample_;
  // The corrupt chunks each agent's receive under a token has reported so
  // far: reports carry the running total, counts_ takes what is new.
  std::map<std::pair<std::string, std::string>, std::uint64_t> corruptSeen_;
  std::uint64_t instance_;
  int interruptedAtStart_ = 0;
};

}  // namespace hnow::daemon
