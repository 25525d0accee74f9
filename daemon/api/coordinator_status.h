#pragma once
// What `hnow status` and `hnow ops` show (transport/status.capnp
// AgentStatus, CoordinatorStatus, OperationRecord): hnowd, its agents,
// rooms, machines, owed sends and the sends waiting to run again after a
// restart, as plain values. hnowd's session fills
// them in from its core, coordinator_status_wire.h carries them, the CLI
// prints them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/node_rates.h"
#include "transport/link_report.h"

namespace hnow::api {

// One link as hnowd knows it (transport/rates.capnp LinkRate).
using LinkRate = transport::LinkRateReport;

// One direction's bandwidth cap in force (rates.capnp CapInForce).
struct CapInForce {
  double bytesPerSecond = 0.0;  // 0: none
  std::string by;               // max_uplink_mbps, max_downlink_mbps or the schedule entry
};

struct AgentStatus {
  std::string name;
  std::string site;
  bool alive = false;
  std::optional<double> ratesAgeSeconds;  // none before the first report
  planner::NodeRates rates;
  std::vector<std::string> roots;
  std::vector<std::string> capabilities;
  std::string dataAddress;
  LinkRate uplink, downlink;
  CapInForce uplinkCap, downlinkCap;  // in force now
  // Sends in which it relayed bytes that differ from the source's
  // (relay_faults.h): from kSuspectFaults on, planned as a leaf.
  int relayFaults = 0;
  // Why others cannot connect to its data plane, "" when they can
  // (docs/reachability.md): planned as a leaf that pulls from others.
  std::string unreachable;
  std::vector<std::string> networks;  // as it registered them: "10.1.2.3/26", its data plane's first
  std::string gateway;                // its default IPv4 gateway; "" when none or not told
  // Two addresses its key logged in from by turns lately (hnowd's
  // core/trust/key_hosts.h): a copied key? Empty: none.
  std::vector<std::string> keyHosts;
  int keyHostsChanges = 0;
  double keyHostsAgeSeconds = 0.0;  // since the latest change
};

// A send hnowd still owes to agents that were off (hnow send --until-all).
struct OwedSend {
  std::int64_t record = 0;
  std::string path, dest;
  std::vector<std::string> agents;
  std::int64_t sinceUnixMs = 0;
  bool sending = false;
};

// A send the last hnowd left under way, waiting for its agents before it
// runs again under its record (docs/send.md, "A send outlives hnowd").
struct WaitingSend {
  std::int64_t record = 0;
  std::string path, dest;
  std::vector<std::string> agents;   // it was for
  std::vector<std::string> away;     // not back yet
  double secondsLeft = 0.0;          // it waits for them at most this long more
};

// A room of agents and its trunk (status.capnp RoomStatus, docs/rooms.md).
struct RoomStatus {
  std::string name;
  int agents = 0;
  std::string foundBy;
  LinkRate in, out;
};

// A machine that runs two agents or more, and what they take in together
// (status.capnp HostStatus, docs/host-intake.md).
struct HostStatus {
  std::string key;
  int agents = 0;
  LinkRate intake;
};

struct CoordinatorStatus {
  std::vector<AgentStatus> agents;
  std::vector<RoomStatus> rooms;  // none: one room
  std::vector<HostStatus> hosts;  // machines with two agents or more
  LinkRate uplink, downlink;      // hnowd's own
  CapInForce uplinkCap, downlinkCap;
  bool surveying = false;
  std::vector<OwedSend> owed;
  std::vector<WaitingSend> waiting;
};

// One record of `hnow ops` (transport/status.capnp OperationRecord).
struct OperationSummary {
  std::int64_t id = 0;
  std::string kind;
  std::int64_t startedUnixMs = 0;
  std::int64_t finishedUnixMs = 0;  // 0 while it runs
  std::string status;
  std::string summary;  // a JSON object
  std::string progress{};  // under way: how far it is, or why a queued job waits
};

}  // namespace hnow::api
