#include "planner/striped/striped_plan.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <string>

#include "planner/pipelined/concurrent_pipelines.h"
#include "planner/striped/striped_rooms.h"

namespace hnow::planner {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// A rate this close to a slot boundary counts as reaching it (floating point).
constexpr double kSlack = 1e-9;

// Children a node of uplink `up` can feed at R/S each, capped.
long long slotsOf(double up, double rate, int stripes, int maxChildren) {
  if (!(up > 0.0) || !(rate > 0.0)) return 0;
  const double slots = std::floor(up * stripes / rate * (1.0 + kSlack));
  return std::min<long long>(maxChildren, static_cast<long long>(std::min(slots, 1e15)));
}

struct Lab {
  std::span<const NodeRates> rates;
  int source = 0;
  std::vector<int> dests;
  double minDownlink = kInfinity;
  const SiteLinks* sites = nullptr;
  // rooms[0] holds the source; one room when no trunk is known
  // (striped_rooms.h), which is the plan over one switch.
  std::vector<StripeRoom> rooms;
};

// Children each stripe needs from a room's nodes: a parent for each of its
// destinations (but the one the stripe enters by, outside the source's
// room) and the entry of every room it feeds.
long long needOf(const Lab& lab, int r) {
  const StripeRoom& room = lab.rooms[r];
  const long long members = static_cast<long long>(room.members.size());
  return (room.holdsSource ? members : members - 1) + static_cast<long long>(room.children.size());
}

bool feasible(const Lab& lab, double rate, int stripes, const StripedOptions& options) {
  if (rate > lab.minDownlink * (1.0 + kSlack)) return false;
  const long long source =
      slotsOf(lab.rates[lab.source].uplinkBytesPerSecond, rate, stripes, options.maxSourceChildren);
  if (source < stripes) return false;
  for (std::size_t r = 0; r < lab.rooms.size(); ++r) {
    const StripeRoom& room = lab.rooms[r];
    // Every stripe enters once and leaves once per room it feeds: R each way.
    if (r > 0 && room.trunk.inBytesPerSecond > 0.0 && rate > room.trunk.inBytesPerSecond * (1.0 + kSlack))
      return false;
    const double out = rate * static_cast<double>(room.children.size());
    if (room.trunk.outBytesPerSecond > 0.0 && out > room.trunk.outBytesPerSecond * (1.0 + kSlack)) return false;
    long long slots = room.holdsSource ? source : 0;
    for (int v : room.members)
      slots += slotsOf(lab.rates[v].uplinkBytesPerSecond, rate, stripes, options.maxChildren);
    if (slots < static_cast<long long>(stripes) * needOf(lab, static_cast<int>(r))) return false;
  }
  return true;
}

// The largest feasible R for S stripes (feasibility falls as R rises).
double bestRate(const Lab& lab, int stripes, const StripedOptions& options) {
  double lo = 0.0, hi = std::min(lab.minDownlink, lab.rates[lab.source].uplinkBytesPerSecond);
  if (!(hi > 0.0) || !std::isfinite(hi)) return 0.0;
  if (feasible(lab, hi, stripes, options)) return hi;
  for (int i = 0; i < 100 && hi - lo > hi * 1e-12; ++i) {
    const double mid = (lo + hi) / 2;
    (feasible(lab, mid, stripes, options) ? lo : hi) = mid;
  }
  return lo;
}

// Each node's children per stripe, room by room: in the source's room the
// source's spread over every stripe, then the nodes that feed most pour
// theirs into one stripe after another until each has a parent for every
// child the stripe needs from the room.
std::vector<std::vector<long long>> slotsPerStripe(const Lab& lab, double rate, int stripes,
                                                   const StripedOptions& options) {
  const int n = static_cast<int>(lab.rates.size());
  std::vector<std::vector<long long>> slots(stripes, std::vector<long long>(n, 0));
  for (std::size_t r = 0; r < lab.rooms.size(); ++r) {
    const StripeRoom& room = lab.rooms[r];
    const long long need = needOf(lab, static_cast<int>(r));
    std::vector<long long> have(stripes, 0);
    if (room.holdsSource) {
      const long long source = std::min<long long>(
          slotsOf(lab.rates[lab.source].uplinkBytesPerSecond, rate, stripes, options.maxSourceChildren),
          need * stripes);
      for (int k = 0; k < stripes; ++k) {
        const long long share = std::min(need, source / stripes + (k < source % stripes ? 1 : 0));
        slots[k][lab.source] = share;
        have[k] = share;
      }
    }
    std::vector<int> order = room.members;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return lab.rates[a].uplinkBytesPerSecond > lab.rates[b].uplinkBytesPerSecond;
    });
    int k = 0;
    for (int v : order) {
      long long left = slotsOf(lab.rates[v].uplinkBytesPerSecond, rate, stripes, options.maxChildren);
      while (left > 0 && k < stripes) {
        if (have[k] >= need) {
          ++k;
          continue;
        }
        const long long take = std::min(left, need - have[k]);
        slots[k][v] += take;
        have[k] += take;
        left -= take;
      }
    }
  }
  return slots;
}

// The node a stripe enters a room by: the one with the most children in
// the stripe (it starts the stripe's tree inside), then the fastest
// downlink, then the lowest index.
int entryOf(const Lab& lab, const StripeRoom& room, const std::vector<long long>& slots) {
  int best = room.members.front();
  for (int v : room.members) {
    if (slots[v] != slots[best]) {
      if (slots[v] > slots[best]) best = v;
    } else if (lab.rates[v].downlinkBytesPerSecond > lab.rates[best].downlinkBytesPerSecond) {
      best = v;
    }
  }
  return best;
}

// One stripe's tree, room by room from the source's: breadth first inside
// each room from the source or the stripe's entry, the nodes with the most
// children in this stripe placed first, each under the earliest placed
// node of its room with a free slot. The entries of the rooms this one
// feeds come after the room's relays, before its leaves, so they are
// shallow and every relay's slots are already offered.
BroadcastTree stripeTree(const Lab& lab, const std::vector<long long>& slots) {
  const int n = static_cast<int>(lab.rates.size());
  BroadcastTree tree;
  tree.source = lab.source;
  tree.parent.assign(n, -1);
  tree.children.assign(n, {});
  std::vector<int> entry(lab.rooms.size(), lab.source);
  for (std::size_t r = 1; r < lab.rooms.size(); ++r) entry[r] = entryOf(lab, lab.rooms[r], slots);
  std::vector<long long> free = slots;
  for (int r : roomOrder(lab.rooms)) {
    const StripeRoom& room = lab.rooms[r];
    std::vector<int> members;
    for (int v : room.members)
      if (v != entry[r]) members.push_back(v);
    std::stable_sort(members.begin(), members.end(), [&](int a, int b) { return slots[a] > slots[b]; });
    auto leaves = std::find_if(members.begin(), members.end(), [&](int v) { return slots[v] == 0; });
    std::vector<int> order(members.begin(), leaves);
    for (int c : room.children) order.push_back(entry[c]);
    order.insert(order.end(), leaves, members.end());
    std::deque<int> feeding{entry[r]};
    for (int v : order) {
      while (!feeding.empty() && free[feeding.front()] == 0) feeding.pop_front();
      if (feeding.empty()) break;  // cannot happen for a feasible rate
      const int p = feeding.front();
      --free[p];
      tree.parent[v] = p;
      tree.children[p].push_back(v);
      if (free[v] > 0 && lab.sites->siteOfNode(v) == room.site) feeding.push_back(v);
    }
  }
  return tree;
}

// The plan of `stripes` stripes at `rate`, predicted.
Result<StripedPlan> stripedAt(const Lab& lab, double rate, int stripes, long long chunks, double fileBytes,
                              double chunkBytes, const StripedOptions& options) {
  const int n = static_cast<int>(lab.rates.size());
  StripedPlan plan;
  const auto slots = slotsPerStripe(lab, rate, stripes, options);
  std::vector<PipelinedItem> items;
  for (int k = 0; k <= stripes; ++k) plan.firstChunk.push_back(chunks * k / stripes);
  for (int k = 0; k < stripes; ++k) {
    plan.trees.push_back(stripeTree(lab, slots[k]));
    if (auto checked = checkTree(plan.trees.back(), lab.source, lab.dests); !checked)
      return Error{"striped plan, stripe " + std::to_string(k) + ": " + checked.error().message};
    const double first = static_cast<double>(plan.firstChunk[k]) * chunkBytes;
    const double end = std::min(fileBytes, static_cast<double>(plan.firstChunk[k + 1]) * chunkBytes);
    items.push_back({plan.trees.back(), end - first});
  }
  auto predicted = predictConcurrentPipelines(items, lab.rates, chunkBytes, *lab.sites);
  if (!predicted) return predicted.error();
  plan.rateBytesPerSecond = rate;
  plan.chunkBytes = chunkBytes;
  plan.predictedSeconds = predicted.value().seconds;
  plan.finishSeconds.assign(n, -1.0);
  plan.finishSeconds[lab.source] = 0.0;
  for (int v : lab.dests) {
    double last = 0.0;
    for (const auto& perNode : predicted.value().finishSeconds) last = std::max(last, perNode[v]);
    plan.finishSeconds[v] = last;
  }
  return plan;
}

}  // namespace

double kumarRossBound(std::span<const NodeRates> rates, int source, std::span<const int> destinations,
                      double fileBytes, bool withHelpers, const SiteLinks& sites) {
  const int n = static_cast<int>(rates.size());
  auto dests = destinationSet(n, source, destinations);
  if (!dests || dests->empty() || !(fileBytes > 0.0)) return 0.0;
  const double count = static_cast<double>(dests->size());
  const double sourceUp = std::max(rates[source].uplinkBytesPerSecond, 0.0);
  double minDownlink = kInfinity, uplinks = sourceUp;
  std::vector<bool> isDestination(n, false);
  for (int d : *dests) {
    isDestination[d] = true;
    minDownlink = std::min(minDownlink, rates[d].downlinkBytesPerSecond);
    uplinks += std::max(rates[d].uplinkBytesPerSecond, 0.0);
  }
  if (withHelpers)
    for (int h = 0; h < n; ++h)
      if (h != source && !isDestination[h])
        uplinks += std::min(std::max(rates[h].uplinkBytesPerSecond, 0.0),
                            count * std::max(rates[h].downlinkBytesPerSecond, 0.0)) *
                   (1.0 - 1.0 / count);
  auto over = [&](double bytes, double rate) { return rate > 0.0 ? bytes / rate : kInfinity; };
  return std::max({over(fileBytes, sourceUp), over(fileBytes, minDownlink), over(count * fileBytes, uplinks),
                   roomCutBound(rates, source, *dests, fileBytes, sites)});
}

Result<StripedPlan> planStriped(std::span<const NodeRates> rates, int source, std::span<const int> destinations,
                                double fileBytes, double chunkBytes, const StripedOptions& options,
                                const SiteLinks& sites) {
  const int n = static_cast<int>(rates.size());
  if (source < 0 || source >= n) return Error{"the source is not one of the nodes"};
  if (!(fileBytes > 0.0) || !(chunkBytes > 0.0)) return Error{"a striped plan needs a positive size and chunk size"};
  if (options.maxStripes < 1 || options.maxChildren < 1)
    return Error{"a striped plan needs at least one stripe and one child per node"};
  if (!sites.siteOf.empty() && static_cast<int>(sites.siteOf.size()) != n) return Error{"one site per node"};
  auto dests = destinationSet(n, source, destinations);
  if (!dests) return dests.error();
  Lab lab;
  lab.rates = rates;
  lab.source = source;
  lab.dests = *dests;
  lab.sites = &sites;
  lab.rooms = stripeRooms(source, lab.dests, sites);
  for (int d : lab.dests) {
    if (!(rates[d].downlinkBytesPerSecond > 0.0))
      return Error{"destination " + std::to_string(d) + " has no downlink to receive with"};
    lab.minDownlink = std::min(lab.minDownlink, rates[d].downlinkBytesPerSecond);
  }
  if (lab.dests.empty()) {
    StripedPlan none;
    none.finishSeconds.assign(n, -1.0);
    none.finishSeconds[source] = 0.0;
    return none;
  }
  if (!(rates[source].uplinkBytesPerSecond > 0.0)) return Error{"the source has no uplink to send with"};

  // More stripes waste less of each uplink to rounding but fill each
  // stripe's pipeline more slowly (a chunk crosses a hop at R/S), which
  // smaller chunks make up for: the fewest stripes and the largest chunk of
  // the least predicted time.
  // Rooms: each way the stripes may pass between them, the star first.
  std::optional<StripedPlan> best;
  for (const std::vector<int>& roomTree : roomTreeCandidates(lab.rooms, rates, source)) {
    setRoomTree(lab.rooms, roomTree);
    for (double chunk = chunkBytes;; chunk /= 2) {
      const long long chunks = static_cast<long long>(std::ceil(fileBytes / chunk));
      const int most = static_cast<int>(std::min<long long>(options.maxStripes, chunks));
      for (int stripes = std::max(1, options.minStripes); stripes <= most; ++stripes) {
        const double rate = bestRate(lab, stripes, options);
        if (!(rate > 0.0)) continue;
        auto candidate = stripedAt(lab, rate, stripes, chunks, fileBytes, chunk, options);
        if (!candidate) return candidate.error();
        if (!best || candidate.value().predictedSeconds < best->predictedSeconds * (1.0 - 1e-2))
          best = std::move(candidate.value());
      }
      if (chunk / 2 < options.minChunkBytes) break;
    }
  }
  if (!best) return Error{"no striped plan: the nodes' uplinks (or the rooms' trunks) cannot feed every destination"};
  best->boundSeconds = kumarRossBound(rates, source, lab.dests, fileBytes, false, sites);
  return std::move(*best);
}

}  // namespace hnow::planner
