#include "planner/broadcast/broadcast_choice.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "planner/algorithms.h"
#include "planner/broadcast/broadcast.h"
#include "planner/broadcast/broadcast_search.h"
#include "planner/clusters/two_level_lcf.h"
#include "planner/pipelined/trunk_crossings.h"

namespace hnow::planner {

namespace {

// The max-bottleneck tree: a plan's name for it, not an --algo of its own.
constexpr const char* kPipelinedName = "pipelined";

// The seeds' algorithms take finite times. A node that cannot send (t =
// infinity) gets a time longer than any whole broadcast by the others, so no
// schedule that can avoid it uses it; the prediction, from the real rates,
// is then infinite only for a schedule that does use it.
std::vector<double> finiteSendTimes(std::vector<double> t) {
  double total = 1.0;
  for (double x : t)
    if (std::isfinite(x)) total += x;
  for (double& x : t)
    if (!std::isfinite(x)) x = total * static_cast<double>(t.size() + 1);
  return t;
}

bool isBaseline(BroadcastAlgorithm algorithm) {
  for (const Algorithm& a : algorithms())
    if (a.broadcast == algorithm) return a.baseline;
  return false;
}

// Participants in more than one site: only then is LCF's model different
// from a one-cluster broadcast.
bool spansSites(const BroadcastRequest& request, const Participants& participants) {
  if (request.sites.siteOf.empty()) return false;
  std::set<int> seen;
  for (int v : participants.nodes) seen.insert(request.sites.siteOf[v]);
  return seen.size() > 1;
}

Result<Schedule> storeAndForwardSchedule(const BroadcastRequest& request, const Participants& participants,
                                         BroadcastAlgorithm algorithm) {
  const std::vector<double> t =
      finiteSendTimes(senderDeterminedSendTimes(ratesOf(participants, request.rates), request.fileBytes));
  const int s = participants.sourceIndex;
  if (algorithm == BroadcastAlgorithm::kLcf) {
    auto model = twoLevelFromRates(request.rates, participants, request.sites, request.fileBytes);
    if (!model) return Result<Schedule>::failure(model.error().message);
    Schedule s2 = largestClusterFirst(model->instance);
    for (Transfer& x : s2) {
      x.from = model->nodeOfLayout[x.from];
      x.to = model->nodeOfLayout[x.to];
    }
    return s2;
  }
  // The others are schedules over the send times (planner/algorithms.h).
  for (const Algorithm& a : algorithms())
    if (a.broadcast == algorithm && a.sendTimes) return toNodeIds(participants, a.sendTimes(t, s, request.limits).schedule);
  return Result<Schedule>::failure("not a store-and-forward algorithm");
}

}  // namespace

const char* broadcastAlgorithmName(BroadcastAlgorithm algorithm) {
  if (algorithm == BroadcastAlgorithm::kMaxBottleneck) return kPipelinedName;
  for (const Algorithm& a : algorithms())
    if (a.broadcast == algorithm) return a.name.data();  // the table's names are literals
  return "?";
}

std::optional<BroadcastAlgorithm> broadcastAlgorithmFromName(std::string_view name) {
  if (name == kPipelinedName) return BroadcastAlgorithm::kMaxBottleneck;
  for (const Algorithm& a : algorithms())
    if (a.broadcast && a.name == name) return a.broadcast;
  return std::nullopt;
}

const char* transferModeName(TransferMode mode) {
  return mode == TransferMode::kPipelined ? "pipelined" : "store-and-forward";
}

Result<BroadcastPlan> planBroadcast(const BroadcastRequest& request, BroadcastAlgorithm algorithm,
                                    TransferMode mode) {
  using Result = Result<BroadcastPlan>;
  const int n = static_cast<int>(request.rates.size());
  if (request.source < 0 || request.source >= n) return Result::failure("source out of range");
  if (!request.sites.siteOf.empty() && static_cast<int>(request.sites.siteOf.size()) != n)
    return Result::failure("one site per node");
  if (!(request.fileBytes >= 0.0)) return Result::failure("the file size is negative");
  if (!(request.chunkBytes > 0.0)) return Result::failure("the chunk size must be positive");

  BroadcastPlan plan;
  plan.algorithm = algorithm;
  plan.mode = mode;
  if (algorithm == BroadcastAlgorithm::kMaxBottleneck) {
    auto tree = maxBottleneckTree(request.rates, request.source, request.destinations, request.tree);
    if (!tree) return Result::failure(tree.error().message);
    plan.tree = std::move(tree.value());
  } else {
    auto participants = participantsOf(n, request.source, request.destinations);
    if (!participants) return Result::failure(participants.error().message);
    auto schedule = storeAndForwardSchedule(request, *participants, algorithm);
    if (!schedule) return Result::failure(schedule.error().message);
    auto tree = treeFromSchedule(*schedule, request.source, n);
    if (!tree) return Result::failure(tree.error().message);
    plan.tree = std::move(tree.value());
  }
  // A node with no uplink cannot send, and hnowd plans a relay it keeps
  // from relaying so: whatever shape the algorithm gave, it feeds nobody.
  std::vector<bool> canSend(static_cast<std::size_t>(n));
  for (int v = 0; v < n; ++v) canSend[static_cast<std::size_t>(v)] = request.rates[v].uplinkBytesPerSecond > 0.0;
  plan.tree = hangOffNonRelays(plan.tree, canSend);
  // The plans hnow makes cross each slow trunk as few times as their time
  // allows; the baselines stay as the tools they stand for run them.
  if (!isBaseline(algorithm))
    plan.tree = fewerTrunkCrossings(plan.tree, request.rates, request.fileBytes, request.chunkBytes, request.sites);
  plan.storeAndForward = predictStoreAndForward(plan.tree, request.rates, request.fileBytes, request.sites);
  auto pipelined = predictPipelined(plan.tree, request.rates, request.fileBytes, request.chunkBytes, request.sites);
  if (!pipelined) return Result::failure(pipelined.error().message);
  plan.pipelined = std::move(pipelined.value());
  return plan;
}

Result<BroadcastChoice> chooseBroadcastPlan(const BroadcastRequest& request) {
  using Result = Result<BroadcastChoice>;
  auto participants = participantsOf(static_cast<int>(request.rates.size()), request.source, request.destinations);
  if (!participants) return Result::failure(participants.error().message);
  if (!request.sites.siteOf.empty() && request.sites.siteOf.size() != request.rates.size())
    return Result::failure("one site per node");
  const BroadcastAlgorithm seedAlgorithm =
      spansSites(request, *participants) ? BroadcastAlgorithm::kLcf : BroadcastAlgorithm::kFnf;

  BroadcastChoice choice;
  auto storeAndForward = planBroadcast(request, seedAlgorithm, TransferMode::kStoreAndForward);
  if (!storeAndForward) return Result::failure(storeAndForward.error().message);
  choice.storeAndForward = std::move(storeAndForward.value());
  auto pipelined = planBroadcast(request, BroadcastAlgorithm::kMaxBottleneck, TransferMode::kPipelined);
  if (!pipelined) return Result::failure(pipelined.error().message);
  choice.pipelined = std::move(pipelined.value());
  choice.chosen = choice.pipelined.predictedSeconds() <= choice.storeAndForward.predictedSeconds()
                      ? choice.pipelined
                      : choice.storeAndForward;
  for (const Algorithm& baseline : algorithms()) {
    if (!baseline.baseline || !baseline.broadcast) continue;
    auto plan = planBroadcast(request, *baseline.broadcast, TransferMode::kPipelined);
    if (!plan) return Result::failure(plan.error().message);
    choice.baselines.push_back(std::move(plan.value()));
  }
  choice.fluidLowerBound =
      fluidLowerBound(request.rates, request.source, request.destinations, request.fileBytes, request.tree);
  return choice;
}

}  // namespace hnow::planner
