#include "conf/multicast_request.h"

#include <map>

#include "conf/toml_reader.h"
#include "planner/algorithms.h"

namespace hnow::conf {

const std::vector<std::string>& multicastAlgorithms() {
  static const std::vector<std::string> names = planner::algorithmNames(planner::kMulticastUse);
  return names;
}

namespace {

using NameIndex = std::map<std::string, int>;

double readPositive(TableReader& table, std::string_view key, std::string_view hint) {
  double value = table.requireNumber(key, hint);
  if (value <= 0) table.failAt(key, std::string(key) + " must be greater than 0 seconds (" + std::string(hint) + ")");
  return value;
}

double readNonNegative(TableReader& table, std::string_view key, double fallback) {
  double value = table.optionalNumber(key).value_or(fallback);
  if (value < 0) table.failAt(key, std::string(key) + " cannot be negative");
  return value;
}

int nodeIndex(TableReader& table, std::string_view key, const std::string& name, const NameIndex& nodes) {
  auto it = nodes.find(name);
  if (it == nodes.end()) table.failAt(key, "'" + name + "' is not the name of any [[node]]");
  return it->second;
}

void readNodes(TableReader& request, MulticastRequest& out, NameIndex& index) {
  for (TableReader& node : request.arrayOfTables("node")) {
    node.allowOnly({"name", "send_overhead", "send_s_per_byte", "recv_overhead", "recv_s_per_byte"});
    std::string name = node.requireString("name", "each [[node]] needs a unique name");
    if (name.empty()) node.failAt("name", "a node name cannot be empty");
    if (auto [it, fresh] = index.emplace(name, static_cast<int>(out.nodeNames.size())); !fresh)
      node.failAt("name", "duplicate node name '" + name + "' (first defined in [[node]] #" +
                              std::to_string(it->second + 1) + ")");
    planner::MulticastNode costs;
    costs.sendOverhead = readPositive(node, "send_overhead", "S_c: seconds a send occupies the sender");
    costs.sendPerByte = readNonNegative(node, "send_s_per_byte", 0.0);
    costs.recvOverhead = readPositive(node, "recv_overhead", "R_c: seconds a receive occupies the receiver");
    costs.recvPerByte = readNonNegative(node, "recv_s_per_byte", 0.0);
    out.nodeNames.push_back(std::move(name));
    out.instance.nodes.push_back(costs);
  }
  if (out.nodeNames.size() < 2) request.failHere("a multicast needs at least two [[node]] tables");
}

void readMessages(TableReader& request, MulticastRequest& out, const NameIndex& index) {
  for (TableReader& message : request.arrayOfTables("message")) {
    message.allowOnly({"source", "bytes", "destinations"});
    planner::MulticastMessage m;
    m.source = nodeIndex(message, "source", message.requireString("source", "the [[node]] that holds the message"),
                         index);
    m.bytes = message.requireNumber("bytes", "the message size in bytes, 0 or more");
    if (m.bytes < 0) message.failAt("bytes", "bytes cannot be negative");
    std::vector<std::string> names =
        message.requireStringArray("destinations", "the names of the nodes that need the message");
    if (names.empty()) message.failAt("destinations", "destinations must name at least one [[node]]");
    std::vector<char> listed(out.nodeNames.size(), 0);
    for (size_t e = 0; e < names.size(); ++e) {
      auto it = index.find(names[e]);
      if (it == index.end())
        message.failAtElement("destinations", e, "'" + names[e] + "' is not the name of any [[node]]");
      if (it->second == m.source)
        message.failAtElement("destinations", e, "'" + names[e] + "' is the source of this message; remove it");
      if (listed[it->second]++) message.failAtElement("destinations", e, "'" + names[e] + "' is listed twice");
      m.destinations.push_back(it->second);
    }
    out.instance.messages.push_back(std::move(m));
  }
  if (out.instance.messages.empty()) request.failHere("the request has no [[message]] tables; add at least one");
}

void readLinks(TableReader& request, MulticastRequest& out, const NameIndex& index) {
  const int n = static_cast<int>(out.nodeNames.size());
  std::map<std::pair<int, int>, int> seen;
  int number = 0;
  for (TableReader& link : request.arrayOfTables("link")) {
    ++number;
    link.allowOnly({"from", "to", "s_per_byte", "both_ways"});
    int from = nodeIndex(link, "from", link.requireString("from", "the sending [[node]]"), index);
    int to = nodeIndex(link, "to", link.requireString("to", "the receiving [[node]]"), index);
    if (from == to) link.failAt("to", "a link joins two different nodes");
    double x = link.requireNumber("s_per_byte", "X: seconds per byte from 'from' to 'to'");
    if (x < 0) link.failAt("s_per_byte", "s_per_byte cannot be negative");
    std::vector<std::pair<int, int>> pairs{{from, to}};
    if (link.optionalBool("both_ways").value_or(false)) pairs.push_back({to, from});
    for (auto pair : pairs) {
      if (auto [it, fresh] = seen.emplace(pair, number); !fresh)
        link.failHere("the link " + out.nodeNames[pair.first] + " -> " + out.nodeNames[pair.second] +
                      " is already given by [[link]] #" + std::to_string(it->second));
      out.instance.linkPerByte[pair.first * n + pair.second] = x;
    }
  }
}

}  // namespace

MulticastRequest readMulticastRequest(TableReader& request) {
  request.allowOnly({"op", "algo", "link_s_per_byte", "seed", "node", "message", "link"});
  MulticastRequest out;
  out.algo = request.requireChoice("algo", multicastAlgorithms());
  double uniform = request.requireNumber(
      "link_s_per_byte", "X: seconds per byte on every link; [[link]] tables override single pairs");
  if (uniform < 0) request.failAt("link_s_per_byte", "link_s_per_byte cannot be negative");
  if (auto seed = request.optionalInteger("seed")) {
    if (*seed < 0) request.failAt("seed", "seed must be 0 or more");
    out.seed = static_cast<std::uint64_t>(*seed);
  }
  NameIndex index;
  readNodes(request, out, index);
  out.instance.linkPerByte = planner::uniformLinks(static_cast<int>(out.nodeNames.size()), uniform);
  readMessages(request, out, index);
  readLinks(request, out, index);
  return out;
}

}  // namespace hnow::conf
