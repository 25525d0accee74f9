#pragma once
// What hnowd knows of the network beside its agents: every link's rate
// (the link book), the traffic each node carries (node loads), hnowd's own
// networks and the rooms measurement found, kept across restarts in
// state.db. The Coordinator feeds it what agents report and the flows of
// the operations moving data; plans, surveys and `hnow status` read it.
// Logic only: time through Clock.
#include <map>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "core/links/link_book.h"
#include "core/links/link_verdict.h"
#include "core/links/node_loads.h"
#include "core/links/pacing.h"
#include "core/links/room_map.h"
#include "state/state_store.h"

namespace hnow::daemon {

// One link as `hnow status` shows it.
struct LinkView {
  LinkRate rate;             // method kUnknown: not measured yet
  double ageSeconds = 0.0;   // since it was last measured or confirmed
  double foreign = 0.0;      // other traffic on it now, bytes/s
  double available = 0.0;    // what a plan made now takes
  int samples = 0;
};

struct NodeLinks {
  LinkView up, down;
};

// Rates an agent paces its data plane at (0: not paced, a real link).
struct EmulatedLinks {
  double uplinkBytesPerSecond = 0.0;
  double downlinkBytesPerSecond = 0.0;
};

struct LinkOptions {
  LinkBookOptions book;
  VerdictOptions verdict;
  // Passive readings are judged over this window (link_verdict.h).
  Duration window = std::chrono::seconds(2);
  // Emulated links are measured like real ones instead of taken as told
  // (checking the surveys on one machine).
  bool measureEmulated = false;
};

class LinkKnowledge {
 public:
  LinkKnowledge(const Clock& clock, LinkOptions options);

  // The links an earlier run measured, at their ages then.
  Result<void> restore(StateStore& store);
  // Writes the links measured or confirmed since the last write.
  Result<void> persist(StateStore& store);

  // What `node`'s data plane and interface carried so far (node_loads.h):
  // the other traffic on its links now.
  void counters(const std::string& node, const CounterSample& counters);
  // The agent paces its links at `emulated`: taken as told (unless
  // LinkOptions::measureEmulated), else measured like a real link.
  void emulated(const std::string& node, const EmulatedLinks& emulated);
  // Judges the flows of the last window (link_verdict.h): first against
  // the trunks between rooms (`roomOf`: every node's room, empty for one
  // room; trunk_verdict.h), the rest against the end links.
  void observe(std::vector<Flow> flows, const std::map<std::string, std::string>& roomOf);
  // Capacities that moved past the drift threshold, and trunks first
  // measured by hnow's own flows, since the last call.
  std::vector<LinkChange> takeChanges();

  LinkView view(const std::string& node, LinkDirection direction) const;
  NodeLinks of(const std::string& node) const;
  // A machine gone for good: its links and loads.
  void forget(const std::string& node);

  LinkBook& book() { return book_; }
  const LinkBook& book() const { return book_; }
  const LinkOptions& options() const { return options_; }

  // hnowd's own networks (base/host_networks.h), as rooms see it
  // (room_map.h); main sets them at start.
  void setOwnNetworks(std::vector<std::string> networks, std::string gateway, std::string dataAddress) {
    own_ = {kCoordinatorNode, "", std::move(networks), std::move(gateway), std::move(dataAddress)};
  }
  const RoomMember& ownNetworks() const { return own_; }
  // Rooms found by measurement on one subnet (room_discovery.h): node
  // (hnowd's name too) -> room; empty when none were found.
  void setMeasuredRooms(std::map<std::string, std::string> rooms) { measuredRooms_ = std::move(rooms); }
  const std::map<std::string, std::string>& measuredRooms() const { return measuredRooms_; }

 private:
  std::vector<Flow> judgeTrunkFlows(std::vector<Flow> flows, const std::map<std::string, NodeLoad>& loads,
                                    const std::map<std::string, std::string>& roomOf, const KnownRate& known);

  const Clock& clock_;
  LinkOptions options_;
  LinkBook book_;
  NodeLoads loads_;
  std::map<LinkId, TimePoint> saved_;  // each link's `at` as last written
  std::vector<LinkChange> trunkNews_;  // reported as drift by the next takeChanges()
  RoomMember own_{kCoordinatorNode, "", {}, "", ""};
  std::map<std::string, std::string> measuredRooms_;
};

}  // namespace hnow::daemon
