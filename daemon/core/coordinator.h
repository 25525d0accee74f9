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
#include <string>
#include <vector>

#include "core/agent_link.h"
#include "core/clock.h"
#include "core/rate_table.h"
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
  Coordinator(const Clock& clock, RateTableOptions options);

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
  // Empty on success, else the reason (unknown or disconnected agent).
  std::string setEmulatedRates(const std::string& name, const EmulatedRates& rates);
  std::size_t connectedCount() const;

  // Issue 6: the sends in progress hear of reports and losses; main() sets it.
  void setTransferObserver(TransferObserver* observer) { observer_ = observer; }
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

  const Clock& clock_;
  RateTable table_;
  std::map<std::string, Agent> agents_;
  std::map<SessionId, std::string> sessionNames_;
  SessionId nextSession_ = 1;
  TransferObserver* observer_ = nullptr;
};

}  // namespace hnow::daemon
