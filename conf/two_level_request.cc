#include "conf/two_level_request.h"

#include <map>

#include "conf/toml_reader.h"
#include "planner/algorithms.h"

namespace hnow::conf {

const std::vector<std::string>& clusterBroadcastAlgorithms() {
  static const std::vector<std::string> names = planner::algorithmNames(planner::kClusterBroadcastUse);
  return names;
}

const std::vector<std::string>& clusterMulticastAlgorithms() {
  static const std::vector<std::string> names = planner::algorithmNames(planner::kClusterMulticastUse);
  return names;
}

namespace {

// An optional integer key in [low, high]; `what` explains it in messages.
std::optional<int> boundedInteger(TableReader& table, std::string_view key, long long low,
                                  long long high, const std::string& what) {
  auto value = table.optionalInteger(key);
  if (value && (*value < low || *value > high))
    table.failAt(key, "'" + std::string(key) + "' in " + table.where() + " must be " + what);
  if (!value) return std::nullopt;
  return static_cast<int>(*value);
}

std::vector<ClusterSpec> readClusters(TableReader& request, bool multicast, bool* anyDegree) {
  std::vector<ClusterSpec> clusters;
  std::map<std::string, int> seen;
  long long nodes = 0;
  for (TableReader& table : request.arrayOfTables("cluster")) {
    if (multicast) {
      table.allowOnly({"name", "size", "degree", "members"});
    } else if (table.has("members")) {
      table.failAt("members", "'members' applies to op = \"cluster-multicast\" only; a "
                              "cluster-broadcast reaches every node");
    } else {
      table.allowOnly({"name", "size", "degree"});
    }
    ClusterSpec spec;
    spec.name = table.requireString("name", "each [[cluster]] needs a unique name");
    if (spec.name.empty()) table.failAt("name", "a cluster name cannot be empty");
    if (auto [it, fresh] = seen.emplace(spec.name, static_cast<int>(clusters.size())); !fresh)
      table.failAt("name", "duplicate cluster name '" + spec.name +
                               "' (first defined in [[cluster]] #" + std::to_string(it->second + 1) +
                               ")");
    auto size = boundedInteger(table, "size", 1, kMaxTwoLevelNodes,
                               "an integer from 1 to " + std::to_string(kMaxTwoLevelNodes) +
                                   " (its number of nodes)");
    if (!size) table.failHere("missing key 'size' in " + table.where() + " (its number of nodes, >= 1)");
    spec.size = *size;
    nodes += spec.size;
    if (nodes > kMaxTwoLevelNodes)
      table.failAt("size", "the clusters have more than " + std::to_string(kMaxTwoLevelNodes) +
                               " nodes in all; plan a smaller request");
    if (auto degree = boundedInteger(table, "degree", 1, spec.size,
                                     "an integer from 1 to the cluster's size " +
                                         std::to_string(spec.size) +
                                         " (nodes in global transfers at once)")) {
      spec.degree = *degree;
      *anyDegree = true;
    }
    if (multicast)
      spec.members = boundedInteger(table, "members", 0, spec.size,
                                    "an integer from 0 to the cluster's size " +
                                        std::to_string(spec.size) + " (its first nodes that need the message)")
                         .value_or(0);
    clusters.push_back(std::move(spec));
  }
  return clusters;
}

}  // namespace

TwoLevelRequest readTwoLevelRequest(TableReader& request, TwoLevelRequest::Op op) {
  TwoLevelRequest out;
  out.op = op;
  const bool multicast = op == TwoLevelRequest::Op::kMulticast;
  request.allowOnly({"op", "algo", "model", "global_time", "local_time", "max_global", "cluster"});
  out.algo = request.requireChoice("algo", multicast ? clusterMulticastAlgorithms()
                                                     : clusterBroadcastAlgorithms());
  out.postal = request.optionalChoice("model", {"blocking", "postal"}).value_or("blocking") == "postal";
  out.globalTime = request.requireNumber(
      "global_time", "seconds for a transfer between clusters, >= local_time");
  if (out.globalTime <= 0) request.failAt("global_time", "global_time must be greater than 0 (seconds)");
  out.localTime = request.optionalNumber("local_time").value_or(1.0);
  if (out.localTime <= 0) request.failAt("local_time", "local_time must be greater than 0 (seconds)");
  if (out.globalTime < out.localTime)
    request.failAt("global_time", "global_time must be at least local_time: seed 001's model is "
                                  "fast inside a cluster, slow across; with faster links across, "
                                  "describe one cluster");
  out.maxGlobal = boundedInteger(request, "max_global", 1, kMaxTwoLevelNodes,
                                 "an integer >= 1 (global transfers in progress at once)")
                      .value_or(0);
  bool anyDegree = false;
  out.clusters = readClusters(request, multicast, &anyDegree);
  if (out.clusters.empty())
    request.failHere("the request has no [[cluster]] tables; add at least one (the first holds the source)");

  if (out.algo == "interleaved-lcf" && !out.postal)
    request.failAt("algo", "interleaved-lcf is for the postal model (seed 001 §6.2); add "
                           "model = \"postal\" or use algo = \"lcf\"");
  if (out.postal && multicast)
    request.failAt("model", "the postal model is planned for cluster-broadcast only (seed 001 §6); "
                            "remove model or use op = \"cluster-broadcast\"");
  if (out.postal && (anyDegree || out.maxGlobal > 0))
    request.failAt(out.maxGlobal > 0 ? "max_global" : "model",
                   "the postal model has no degree or max_global limits (seed 001 §6); remove "
                   "them or the model");
  if (anyDegree && out.maxGlobal > 0)
    request.failAt("max_global", "choose either per-cluster degree (seed 001 §5.1) or max_global "
                                 "(§5.3), not both");
  if (multicast) {
    bool anyMember = false;
    for (const auto& c : out.clusters) anyMember = anyMember || c.members > 0;
    if (!anyMember)
      request.failHere("no [[cluster]] has members > 0: a cluster-multicast needs at least one node "
                       "that wants the message");
  }
  return out;
}

}  // namespace hnow::conf
