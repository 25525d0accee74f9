#include "planner/striped/striped_rooms.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>

#include "planner/broadcast/broadcast_tree.h"
#include "planner/pipelined/pipelined_tree.h"

namespace hnow::planner {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double uplinksOf(const StripeRoom& room, std::span<const NodeRates> rates, int source) {
  double sum = room.holdsSource ? std::max(0.0, rates[source].uplinkBytesPerSecond) : 0.0;
  for (int v : room.members) sum += std::max(0.0, rates[v].uplinkBytesPerSecond);
  return sum;
}

}  // namespace

std::vector<StripeRoom> stripeRooms(int source, std::span<const int> destinations, const SiteLinks& sites) {
  std::vector<StripeRoom> rooms(1);
  rooms[0].site = sites.siteOfNode(source);
  rooms[0].holdsSource = true;
  rooms[0].trunk = sites.trunkOf(rooms[0].site);
  std::map<int, int> roomOfSite{{rooms[0].site, 0}};
  for (int v : destinations) {
    const int site = sites.siteOfNode(v);
    auto [it, added] = roomOfSite.emplace(site, static_cast<int>(rooms.size()));
    if (added) {
      rooms.emplace_back();
      rooms.back().site = site;
      rooms.back().trunk = sites.trunkOf(site);
      rooms.back().parent = 0;
    }
    rooms[it->second].members.push_back(v);
  }
  for (StripeRoom& room : rooms) std::sort(room.members.begin(), room.members.end());
  std::vector<int> star(rooms.size(), 0);
  star[0] = -1;
  setRoomTree(rooms, star);
  return rooms;
}

int roomTreeCrossings(const std::vector<StripeRoom>& rooms, const std::vector<int>& parent) {
  int count = 0;
  for (std::size_t r = 1; r < rooms.size(); ++r)
    count += limitedCrossings(rooms[parent[r]].trunk, rooms[r].trunk);
  return count;
}

std::vector<std::vector<int>> roomTreeCandidates(const std::vector<StripeRoom>& rooms,
                                                 std::span<const NodeRates> rates, int source) {
  std::vector<int> star(rooms.size(), 0);
  star[0] = -1;
  std::vector<std::vector<int>> out{star};
  if (rooms.size() < 3) return out;
  auto add = [&](std::vector<int> parent) {
    if (std::find(out.begin(), out.end(), parent) == out.end()) out.push_back(std::move(parent));
  };
  // Through a hub: when the source's trunk out is limited and another
  // room's is not (the middle of a line, a room on the core), the source
  // sends each stripe out once, to the hub that takes most in, and the hub
  // feeds every other room: one copy through the source's trunk, not one
  // per room.
  if (rooms[0].trunk.limitsOut()) {
    auto inOf = [&](int r) { return rooms[r].trunk.limitsIn() ? rooms[r].trunk.inBytesPerSecond : kInfinity; };
    int hub = -1;
    for (int r = 1; r < static_cast<int>(rooms.size()); ++r)
      if (!rooms[r].trunk.limitsOut() &&
          (hub < 0 || inOf(r) > inOf(hub) ||
           (inOf(r) == inOf(hub) && uplinksOf(rooms[r], rates, source) > uplinksOf(rooms[hub], rates, source))))
        hub = r;
    if (hub > 0) {
      std::vector<int> parent(rooms.size(), hub);
      parent[0] = -1;
      parent[hub] = 0;
      add(std::move(parent));
    }
  }
  // Each room as a node: it sends out at most its trunk outwards and what
  // its nodes upload together, and takes in at most its trunk inwards; an
  // unlimited trunk stands as the lab's whole upload, which no tree exceeds.
  double everything = 0.0;
  for (const StripeRoom& room : rooms) everything += uplinksOf(room, rates, source);
  std::vector<NodeRates> roomRates(rooms.size());
  for (std::size_t r = 0; r < rooms.size(); ++r) {
    const Trunk t = rooms[r].trunk;
    const double up = uplinksOf(rooms[r], rates, source);
    roomRates[r].uplinkBytesPerSecond = t.outBytesPerSecond > 0.0 ? std::min(t.outBytesPerSecond, up) : up;
    roomRates[r].downlinkBytesPerSecond = t.inBytesPerSecond > 0.0 ? t.inBytesPerSecond : everything;
  }
  PipelinedTreeOptions options;
  options.allowRelays = false;
  auto tree = maxBottleneckTree(roomRates, 0, {}, options);
  if (tree) {
    std::vector<int> parent = tree->parent;
    parent[0] = -1;
    add(std::move(parent));
  }
  // Fewest copies through limited trunks first: of plans equally fast, the
  // first weighed stands.
  std::stable_sort(out.begin(), out.end(), [&](const std::vector<int>& a, const std::vector<int>& b) {
    return roomTreeCrossings(rooms, a) < roomTreeCrossings(rooms, b);
  });
  return out;
}

void setRoomTree(std::vector<StripeRoom>& rooms, const std::vector<int>& parent) {
  for (StripeRoom& room : rooms) room.children.clear();
  for (std::size_t r = 0; r < rooms.size(); ++r) {
    rooms[r].parent = r == 0 ? -1 : parent[r];
    if (r > 0) rooms[parent[r]].children.push_back(static_cast<int>(r));
  }
}

std::vector<int> roomOrder(const std::vector<StripeRoom>& rooms) {
  std::vector<int> order{0};
  for (std::size_t i = 0; i < order.size(); ++i)
    for (int c : rooms[order[i]].children) order.push_back(c);
  return order;
}

double roomCutBound(std::span<const NodeRates> rates, int source, std::span<const int> destinations,
                    double fileBytes, const SiteLinks& sites) {
  const int n = static_cast<int>(rates.size());
  if (!sites.hasTrunkLimits() || !(fileBytes > 0.0) || source < 0 || source >= n) return 0.0;
  auto dests = destinationSet(n, source, destinations);
  if (!dests || dests->empty()) return 0.0;
  const std::vector<StripeRoom> rooms = stripeRooms(source, *dests, sites);
  auto over = [](double bytes, double rate) { return rate > 0.0 ? bytes / rate : kInfinity; };
  double bound = 0.0;
  for (std::size_t r = 0; r < rooms.size(); ++r) {
    const StripeRoom& room = rooms[r];
    const double in = r == 0 ? 0.0 : room.trunk.inBytesPerSecond;
    if (in > 0.0) bound = std::max(bound, fileBytes / in);
    if (r == 0 && rooms.size() > 1 && room.trunk.outBytesPerSecond > 0.0)
      bound = std::max(bound, fileBytes / room.trunk.outBytesPerSecond);
    // With the trunk unlimited, bytes may come in at any rate: no bound here.
    if (r > 0 && in > 0.0)
      bound = std::max(bound, over(static_cast<double>(room.members.size()) * fileBytes,
                                   in + uplinksOf(room, rates, source)));
  }
  return bound;
}

}  // namespace hnow::planner
