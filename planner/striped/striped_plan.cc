#include "planner/striped/striped_plan.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <string>

#include "planner/pipelined/concurrent_pipelines.h"

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
};

bool feasible(const Lab& lab, double rate, int stripes, const StripedOptions& options) {
  if (rate > lab.minDownlink * (1.0 + kSlack)) return false;
  const long long source =
      slotsOf(lab.rates[lab.source].uplinkBytesPerSecond, rate, stripes, options.maxSourceChildren);
  if (source < stripes) return false;
  long long slots = source;
  for (int v : lab.dests) slots += slotsOf(lab.rates[v].uplinkBytesPerSecond, rate, stripes, options.maxChildren);
  return slots >= static_cast<long long>(stripes) * static_cast<long long>(lab.dests.size());
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

// Each node's children per stripe: the source's spread over every stripe,
// then the nodes that feed most pour theirs into one stripe after another
// until each has a parent for every destination.
std::vector<std::vector<long long>> slotsPerStripe(const Lab& lab, double rate, int stripes,
                                                   const StripedOptions& options) {
  const int n = static_cast<int>(lab.rates.size());
  const long long need = static_cast<long long>(lab.dests.size());
  std::vector<std::vector<long long>> slots(stripes, std::vector<long long>(n, 0));
  std::vector<long long> have(stripes, 0);
  long long source = std::min<long long>(
      slotsOf(lab.rates[lab.source].uplinkBytesPerSecond, rate, stripes, options.maxSourceChildren),
      need * stripes);
  for (int k = 0; k < stripes; ++k) {
    const long long share = std::min(need, source / stripes + (k < source % stripes ? 1 : 0));
    slots[k][lab.source] = share;
    have[k] = share;
  }
  std::vector<int> order = lab.dests;
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
  return slots;
}

// One stripe's tree: breadth first from the source, the nodes with the
// most children in this stripe placed first, each under the earliest
// placed node with a free slot.
BroadcastTree stripeTree(const Lab& lab, const std::vector<long long>& slots) {
  const int n = static_cast<int>(lab.rates.size());
  BroadcastTree tree;
  tree.source = lab.source;
  tree.parent.assign(n, -1);
  tree.children.assign(n, {});
  std::vector<int> order = lab.dests;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return slots[a] > slots[b]; });
  std::deque<int> feeding{lab.source};
  std::vector<long long> free = slots;
  for (int v : order) {
    while (!feeding.empty() && free[feeding.front()] == 0) feeding.pop_front();
    if (feeding.empty()) break;  // cannot happen for a feasible rate
    const int p = feeding.front();
    --free[p];
    tree.parent[v] = p;
    tree.children[p].push_back(v);
    if (free[v] > 0) feeding.push_back(v);
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
    if (std::string problem = treeProblem(plan.trees.back(), lab.source, lab.dests); !problem.empty())
      return Error{"striped plan, stripe " + std::to_string(k) + ": " + problem};
    const double first = static_cast<double>(plan.firstChunk[k]) * chunkBytes;
    const double end = std::min(fileBytes, static_cast<double>(plan.firstChunk[k + 1]) * chunkBytes);
    items.push_back({plan.trees.back(), end - first});
  }
  auto predicted = predictConcurrentPipelines(items, lab.rates, chunkBytes);
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
                      double fileBytes, bool withHelpers) {
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
  return std::max({over(fileBytes, sourceUp), over(fileBytes, minDownlink), over(count * fileBytes, uplinks)});
}

Result<StripedPlan> planStriped(std::span<const NodeRates> rates, int source, std::span<const int> destinations,
                                double fileBytes, double chunkBytes, const StripedOptions& options) {
  const int n = static_cast<int>(rates.size());
  if (source < 0 || source >= n) return Error{"the source is not one of the nodes"};
  if (!(fileBytes > 0.0) || !(chunkBytes > 0.0)) return Error{"a striped plan needs a positive size and chunk size"};
  if (options.maxStripes < 1 || options.maxChildren < 1)
    return Error{"a striped plan needs at least one stripe and one child per node"};
  auto dests = destinationSet(n, source, destinations);
  if (!dests) return dests.error();
  Lab lab{rates, source, *dests};
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
  std::optional<StripedPlan> best;
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
  if (!best) return Error{"no striped plan: the nodes' uplinks cannot feed every destination"};
  best->boundSeconds = kumarRossBound(rates, source, lab.dests, fileBytes);
  return std::move(*best);
}

}  // namespace hnow::planner
