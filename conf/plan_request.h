#pragma once
// What `hnow plan REQUEST.toml` asks for. Each `op` has its own request
// struct; PlanRequest is the sum of them. Later issues add ops by adding a
// struct here and a loader in plan_request.cc.
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/result.h"
#include "conf/multicast_request.h"
#include "conf/two_level_request.h"
#include "conf/worksharing_request.h"

namespace hnow::conf {

struct NodeSendTime {
  std::string name;
  double sendTime = 0.0;  // `t`: seconds to send one message (seed 000 §2)
};

// op = "broadcast" | "reduce" in the sender-determined model (seeds 000, 003).
struct CollectiveRequest {
  enum class Op { kBroadcast, kReduce };
  Op op = Op::kBroadcast;
  std::string algo;  // broadcast: fnf|optimal|binomial|flat|chain; reduce: snf|optimal|binomial
  std::vector<NodeSendTime> nodes;
  int root = 0;  // broadcast source or reduction sink, an index into nodes
};

using PlanRequest =
    std::variant<CollectiveRequest, TwoLevelRequest, MulticastRequest, WorksharingRequest>;

// `sourceName` is used in error messages only.
Result<PlanRequest> parsePlanRequest(std::string_view text, const std::string& sourceName);
Result<PlanRequest> loadPlanRequest(const std::string& path);

// The algorithm names each op accepts, in the order the docs list them.
const std::vector<std::string>& broadcastAlgorithms();
const std::vector<std::string>& reduceAlgorithms();

}  // namespace hnow::conf
