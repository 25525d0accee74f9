#pragma once
// `hnow send --algo`: plans a file broadcast from measured rates with any of
// the algorithms, predicts it in both transfer modes, and for `auto` takes
// the faster of the store-and-forward schedule (FNF, or LCF when agents carry
// site labels) and the max-bottleneck pipelined tree
// (docs/pipelined-broadcast.md "`--algo auto` and the baselines").
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "planner/broadcast/broadcast_tree.h"
#include "planner/node_rates.h"
#include "planner/pipelined/pipelined_tree.h"
#include "planner/rate_models.h"
#include "planner/search_limits.h"
#include "planner/site_links.h"

namespace hnow::planner {

enum class BroadcastAlgorithm {
  kFnf,            // seed 000 §3
  kOptimal,        // seed 000 §5, branch-and-bound (bounded by `limits`)
  kLcf,            // seed 001 §3, over the site labels (one site if none)
  kBinomial,       // MPICH's binomial tree in node order
  kChain,          // host order, as Kascade does
  kFlat,           // the source sends to everyone
  kMaxBottleneck,  // the size-aware pipelined tree (pipelined_tree.h)
};

// "fnf", "optimal", "lcf", "binomial", "chain", "flat", "pipelined".
const char* broadcastAlgorithmName(BroadcastAlgorithm algorithm);
std::optional<BroadcastAlgorithm> broadcastAlgorithmFromName(std::string_view name);

enum class TransferMode {
  kStoreAndForward,  // relay after full receipt, one child at a time
  kPipelined,        // relay chunks as they arrive, children concurrently
};
const char* transferModeName(TransferMode mode);  // "store-and-forward", "pipelined"

struct BroadcastRequest {
  std::vector<NodeRates> rates;   // per node id
  int source = 0;
  std::vector<int> destinations;  // empty: every node but the source
  double fileBytes = 0.0;
  double chunkBytes = 1 << 20;
  SiteLinks sites;                // siteOf empty: no site labels
  PipelinedTreeOptions tree;      // relays for the max-bottleneck tree
  SearchLimits limits;            // for kOptimal
};

struct BroadcastPlan {
  BroadcastAlgorithm algorithm = BroadcastAlgorithm::kFnf;
  TransferMode mode = TransferMode::kPipelined;  // how the data plane should run `tree`
  BroadcastTree tree;                            // children in sending order
  StoreAndForwardPrediction storeAndForward;     // `tree` run store-and-forward
  PipelinedPrediction pipelined;                 // `tree` run pipelined
  double predictedSeconds() const {
    return mode == TransferMode::kPipelined ? pipelined.seconds : storeAndForward.seconds;
  }
  const std::vector<double>& predictedFinish() const {
    return mode == TransferMode::kPipelined ? pipelined.finishSeconds : storeAndForward.finishSeconds;
  }
};

// One algorithm's tree, predicted both ways, to be run in `mode`. The seeds'
// algorithms plan over the source and the destinations only (no relays).
Result<BroadcastPlan> planBroadcast(const BroadcastRequest& request, BroadcastAlgorithm algorithm,
                                    TransferMode mode = TransferMode::kPipelined);

struct BroadcastChoice {
  BroadcastPlan chosen;           // the faster of the two below
  BroadcastPlan storeAndForward;  // FNF, or LCF with sites; mode store-and-forward
  BroadcastPlan pipelined;        // max-bottleneck tree; mode pipelined
  // binomial, chain, flat: their trees run pipelined (what the data plane
  // does with --algo binomial|chain|flat), with store-and-forward predictions too.
  std::vector<BroadcastPlan> baselines;
  double fluidLowerBound = 0.0;
};

// --algo auto. Ties go to the pipelined tree (it needs no full-file buffering).
Result<BroadcastChoice> chooseBroadcastPlan(const BroadcastRequest& request);

}  // namespace hnow::planner
