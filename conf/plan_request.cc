#include "conf/plan_request.h"

#include <algorithm>
#include <map>

#include "conf/toml_reader.h"
#include "planner/algorithms.h"

namespace hnow::conf {

const std::vector<std::string>& broadcastAlgorithms() {
  static const std::vector<std::string> names = planner::algorithmNames(planner::kBroadcastUse);
  return names;
}

const std::vector<std::string>& reduceAlgorithms() {
  static const std::vector<std::string> names = planner::algorithmNames(planner::kReduceUse);
  return names;
}

namespace {

const std::vector<std::string>& operations() {
  static const std::vector<std::string> names{"broadcast", "reduce", "cluster-broadcast",
                                              "cluster-multicast", "multicast", "worksharing"};
  return names;
}

// Reads [[node]] tables: unique names, t > 0.
std::vector<NodeSendTime> readNodes(TableReader& request) {
  std::vector<NodeSendTime> nodes;
  std::map<std::string, int> seen;
  for (TableReader& node : request.arrayOfTables("node")) {
    node.allowOnly({"name", "t"});
    NodeSendTime spec;
    spec.name = node.requireString("name", "each [[node]] needs a unique name");
    if (spec.name.empty()) node.failAt("name", "a node name cannot be empty");
    if (auto [it, fresh] = seen.emplace(spec.name, static_cast<int>(nodes.size())); !fresh)
      node.failAt("name", "duplicate node name '" + spec.name + "' (first defined in [[node]] #" +
                              std::to_string(it->second + 1) + ")");
    spec.sendTime = node.requireNumber("t", "seconds this node needs to send one message, > 0");
    if (spec.sendTime <= 0)
      node.failAt("t", "t of node '" + spec.name + "' must be greater than 0 (seconds to send one message)");
    nodes.push_back(std::move(spec));
  }
  return nodes;
}

CollectiveRequest readCollective(TableReader& request, CollectiveRequest::Op op) {
  CollectiveRequest out;
  out.op = op;
  request.allowOnly({"op", "algo", "root", "node"});
  const bool broadcast = op == CollectiveRequest::Op::kBroadcast;
  out.algo = request.requireChoice("algo", broadcast ? broadcastAlgorithms() : reduceAlgorithms());
  auto root = request.optionalString("root");
  out.nodes = readNodes(request);
  if (out.nodes.empty()) request.failHere("the request has no [[node]] tables; add at least one");
  if (root) {
    auto it = std::find_if(out.nodes.begin(), out.nodes.end(),
                           [&](const NodeSendTime& n) { return n.name == *root; });
    if (it == out.nodes.end())
      request.failAt("root", "root '" + *root + "' is not the name of any [[node]]");
    out.root = static_cast<int>(it - out.nodes.begin());
  } else if (broadcast) {
    request.failHere("missing key 'root' (the node that holds the message at the start)");
  } else {
    // seed 003 §2: the slowest node should only receive, so it is the default sink.
    auto slowest = std::max_element(out.nodes.begin(), out.nodes.end(),
                                    [](const auto& a, const auto& b) { return a.sendTime < b.sendTime; });
    out.root = static_cast<int>(slowest - out.nodes.begin());
  }
  return out;
}

PlanRequest readRequest(TableReader& request) {
  std::string op = request.requireChoice("op", operations());
  if (op.rfind("cluster-", 0) == 0)
    return readTwoLevelRequest(request, op == "cluster-broadcast" ? TwoLevelRequest::Op::kBroadcast
                                                                  : TwoLevelRequest::Op::kMulticast);
  if (op == "multicast") return readMulticastRequest(request);
  if (op == "worksharing") return readWorksharing(request);
  return readCollective(
      request, op == "broadcast" ? CollectiveRequest::Op::kBroadcast : CollectiveRequest::Op::kReduce);
}

}  // namespace

Result<PlanRequest> parsePlanRequest(std::string_view text, const std::string& sourceName) {
  try {
    toml::table root = parseToml(text, sourceName);
    TableReader request(root, sourceName, "the request");
    return readRequest(request);
  } catch (const ConfFailure& failure) {
    return failure.error;
  }
}

Result<PlanRequest> loadPlanRequest(const std::string& path) {
  try {
    toml::table root = parseTomlFile(path);
    TableReader request(root, path, "the request");
    return readRequest(request);
  } catch (const ConfFailure& failure) {
    return failure.error;
  }
}

}  // namespace hnow::conf
