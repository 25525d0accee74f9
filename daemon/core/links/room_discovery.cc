#include "core/links/room_discovery.h"

#include <algorithm>
#include <numeric>

namespace hnow::daemon {

namespace {

struct Components {
  std::vector<int> parent;
  explicit Components(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int i) { return parent[i] == i ? i : parent[i] = find(parent[i]); }
  void join(int a, int b) { parent[find(a)] = find(b); }
};

}  // namespace

std::vector<ProbeRound> planRoomDiscovery(std::vector<std::string> nodes, const DiscoveryOptions& options) {
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  const std::size_t n = nodes.size();
  std::vector<ProbeRound> rounds;
  if (n < 3) return rounds;
  const std::size_t perRound = static_cast<std::size_t>(std::max(2, options.maxFlows));
  for (std::size_t shift = 1; shift < n; shift *= 2)
    for (std::size_t first = 0; first < n; first += perRound) {
      if (static_cast<int>(rounds.size()) >= options.maxRounds) return rounds;
      ProbeRound round;
      round.target = {"rooms", LinkDirection::kDown};  // not a link: the rounds judge pairs
      for (std::size_t i = first; i < std::min(n, first + perRound); ++i)
        round.flows.emplace_back(nodes[i], nodes[(i + shift) % n]);
      rounds.push_back(std::move(round));
    }
  return rounds;
}

DiscoveredRooms judgeRoomDiscovery(const std::vector<ProbeRound>& rounds, const std::vector<RoundOutcome>& outcomes,
                                   const KnownRate& known, const DiscoveryOptions& options) {
  std::vector<std::string> names;
  for (const ProbeRound& r : rounds)
    for (const auto& [from, to] : r.flows) names.push_back(from), names.push_back(to);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  auto index = [&](const std::string& name) {
    return static_cast<int>(std::lower_bound(names.begin(), names.end(), name) - names.begin());
  };
  Components rooms(names.size());
  std::vector<std::pair<int, int>> held;
  DiscoveredRooms out;
  for (std::size_t r = 0; r < rounds.size() && r < outcomes.size(); ++r)
    for (const auto& [from, to] : rounds[r].flows) {
      double got = 0.0;
      for (const Flow& f : outcomes[r].flows)
        if (f.from == from && f.to == to) got = std::max(got, f.bytesPerSecond);
      const double ends = std::min(known({from, LinkDirection::kUp}), known({to, LinkDirection::kDown}));
      if (!(ends > 0.0)) continue;  // nothing to judge it by
      if (got >= (1.0 - options.headroom) * ends) {
        rooms.join(index(from), index(to));
        ++out.fullSpeedPairs;
      } else {
        held.emplace_back(index(from), index(to));
        ++out.heldPairs;
      }
    }
  // A pair held back inside one room: something else was shared (a busy
  // node, other traffic), so the rounds say nothing for sure.
  for (const auto& [a, b] : held)
    if (rooms.find(a) == rooms.find(b)) return {{}, out.fullSpeedPairs, out.heldPairs};
  std::map<int, std::string> nameOf;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const int root = rooms.find(static_cast<int>(i));
    if (!nameOf.count(root)) nameOf[root] = "switch-" + std::to_string(nameOf.size() + 1);
    out.roomOf[names[i]] = nameOf[root];
  }
  if (nameOf.size() < 2) out.roomOf.clear();
  return out;
}

}  // namespace hnow::daemon
