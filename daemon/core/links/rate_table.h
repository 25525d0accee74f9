#pragma once
// hnowd's view of the cluster: every registered agent with what it reports
// of itself (overheads, compute), their age, and whether it is still heard
// from. Link rates are the LinkBook's (link_book.h): the coordinator puts
// them into the snapshots plans are made from.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "planner/node_rates.h"

namespace hnow::daemon {

enum class AgentState { kAlive, kLost };

struct AgentRecord {
  std::string name;
  std::string site;
  AgentState state = AgentState::kAlive;
  planner::NodeRates rates;  // uplink and downlink: filled by the coordinator
  bool hasRates = false;
  TimePoint ratesAt{};    // when the agent last reported
  TimePoint lastHeard{};  // registration, heartbeat or report
};

struct RateTableOptions {
  Duration lostAfter = std::chrono::milliseconds(2500);
  // A rate that stays more than this fraction away from the one plans were
  // made with, for longer than `driftDwell`, is a drift event (the compute
  // rate here; link rates in LinkBookOptions, from the same settings).
  double driftThreshold = 0.25;
  Duration driftDwell = std::chrono::seconds(2);
  // Weight of a confirming reading of a real transfer in a link's capacity.
  double ewmaWeight = 0.3;
};

struct RateEvent {
  enum class Kind { kLost, kBack, kDrift };
  Kind kind;
  std::string agent;
  std::string rate;        // kDrift: "uplink", "downlink" or "compute"
  double before = 0.0;     // kDrift: the rate plans were made with
  double after = 0.0;      // kDrift: the rate now
};

class RateTable {
 public:
  RateTable(const Clock& clock, RateTableOptions options);

  // An agent a previous run of hnowd knew (state/): lost until it registers.
  void restore(AgentRecord record);
  // A (re-)registration keeps known rates: an agent reconnecting after a
  // coordinator restart need not be probed before it can be planned with.
  void registerAgent(const std::string& name, const std::string& site);
  // False for an unknown agent (it must register first).
  bool heartbeat(const std::string& name);
  // What the agent measured of itself replaces its overheads and compute rate.
  bool reportRates(const std::string& name, const planner::NodeRates& measured);

  // The agent's connection is gone: it is lost at the next tick instead of
  // after `lostAfter`, until it registers again.
  void disconnected(const std::string& name);
  // The agent's record dropped (hnow agent forget).
  void forget(const std::string& name) { agents_.erase(name); }

  // hnowd's own loop ran `lag` late: no message was read meanwhile, so
  // that much silence is hnowd's, not the agents' (each is heard `lag`
  // later than it was, at most now).
  void excuse(Duration lag);
  // Marks agents lost or back and detects compute drift; call it periodically.
  std::vector<RateEvent> tick();

  std::vector<AgentRecord> snapshot() const;
  const AgentRecord* find(const std::string& name) const;

 private:
  struct Watched {
    double baseline = 0.0;  // the value plans were made with
    std::optional<TimePoint> outsideSince;
  };
  struct Entry {
    AgentRecord record;
    Watched compute;
    bool disconnected = false;
  };

  void watch(Entry& entry, double value, std::vector<RateEvent>& events);

  const Clock& clock_;
  RateTableOptions options_;
  std::map<std::string, Entry> agents_;
};

}  // namespace hnow::daemon
