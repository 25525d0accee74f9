#include <doctest/doctest.h>

#include <string>

#include "conf/plan_request.h"

using hnow::conf::parsePlanRequest;
using hnow::conf::TwoLevelRequest;

namespace {

std::string errorOf(const std::string& text) {
  auto loaded = parsePlanRequest(text, "req.toml");
  return loaded ? "" : loaded.error().text();
}

// Line 1: op, 2: algo, 3: global_time, then `extra`, then the [[cluster]] tables.
std::string request(const std::string& op, const std::string& extra, const std::string& clusters) {
  return "op = \"" + op + "\"\nalgo = \"lcf\"\nglobal_time = 4\n" + extra + clusters;
}

const std::string kTwoClusters =
    "[[cluster]]\nname = \"a\"\nsize = 3\n"   // lines 4-6
    "[[cluster]]\nname = \"b\"\nsize = 5\n";  // lines 7-9

}  // namespace

TEST_CASE("a cluster-broadcast request loads with the seed's defaults: local time 1, blocking, no limits") {
  auto loaded = parsePlanRequest(request("cluster-broadcast", "", kTwoClusters), "req.toml");
  REQUIRE(loaded.ok());
  const auto& r = std::get<TwoLevelRequest>(loaded.value());
  CHECK(r.op == TwoLevelRequest::Op::kBroadcast);
  CHECK(r.algo == "lcf");
  CHECK_FALSE(r.postal);
  CHECK(r.localTime == 1.0);
  CHECK(r.globalTime == 4.0);
  CHECK(r.maxGlobal == 0);
  REQUIRE(r.clusters.size() == 2);
  CHECK(r.clusters[0].name == "a");
  CHECK(r.clusters[1].size == 5);
  CHECK(r.clusters[1].degree == 0);
}

TEST_CASE("a cluster-multicast request reads members (default 0) and degrees") {
  auto loaded = parsePlanRequest(
      request("cluster-multicast", "",
              "[[cluster]]\nname = \"a\"\nsize = 3\ndegree = 2\n[[cluster]]\nname = \"b\"\nsize = 5\n"
              "members = 4\n"),
      "req.toml");
  REQUIRE(loaded.ok());
  const auto& r = std::get<TwoLevelRequest>(loaded.value());
  CHECK(r.op == TwoLevelRequest::Op::kMulticast);
  CHECK(r.clusters[0].members == 0);
  CHECK(r.clusters[0].degree == 2);
  CHECK(r.clusters[1].members == 4);
}

TEST_CASE("a postal interleaved-lcf request loads") {
  auto loaded = parsePlanRequest(
      "op = \"cluster-broadcast\"\nalgo = \"interleaved-lcf\"\nmodel = \"postal\"\nglobal_time = 3\n"
      "local_time = 0.5\n" + kTwoClusters, "req.toml");
  REQUIRE(loaded.ok());
  const auto& r = std::get<TwoLevelRequest>(loaded.value());
  CHECK(r.postal);
  CHECK(r.localTime == 0.5);
}

TEST_CASE("bad two-level requests are rejected with file:line:column and how to fix them") {
  CHECK(errorOf(request("cluster-broadcast", "", "[[cluster]]\nname = \"a\"\nsize = 3\nmembers = 2\n")) ==
        "req.toml:7:11: 'members' applies to op = \"cluster-multicast\" only; a cluster-broadcast "
        "reaches every node");
  CHECK(errorOf("op = \"cluster-broadcast\"\nalgo = \"interleaved-lcf\"\nglobal_time = 4\n" + kTwoClusters) ==
        "req.toml:2:8: interleaved-lcf is for the postal model (seed 001 §6.2); add model = "
        "\"postal\" or use algo = \"lcf\"");
  CHECK(errorOf(request("cluster-multicast", "model = \"postal\"\n",
                        "[[cluster]]\nname = \"a\"\nsize = 3\nmembers = 1\n")) ==
        "req.toml:4:9: the postal model is planned for cluster-broadcast only (seed 001 §6); remove "
        "model or use op = \"cluster-broadcast\"");
  CHECK(errorOf("op = \"cluster-broadcast\"\nalgo = \"lcf\"\nglobal_time = 4\nmax_global = 2\n"
                "[[cluster]]\nname = \"a\"\nsize = 3\ndegree = 1\n") ==
        "req.toml:4:14: choose either per-cluster degree (seed 001 §5.1) or max_global (§5.3), not both");
  CHECK(errorOf("op = \"cluster-broadcast\"\nalgo = \"lcf\"\nmodel = \"postal\"\nglobal_time = 4\n"
                "max_global = 2\n" + kTwoClusters) ==
        "req.toml:5:14: the postal model has no degree or max_global limits (seed 001 §6); remove "
        "them or the model");
  CHECK(errorOf("op = \"cluster-broadcast\"\nalgo = \"lcf\"\nglobal_time = 0.5\n" + kTwoClusters) ==
        "req.toml:3:15: global_time must be at least local_time: seed 001's model is fast inside a "
        "cluster, slow across; with faster links across, describe one cluster");
  CHECK(errorOf(request("cluster-broadcast", "", "[[cluster]]\nname = \"a\"\nsize = 0\n")) ==
        "req.toml:6:8: 'size' in [[cluster]] #1 must be an integer from 1 to 100000 (its number of nodes)");
  CHECK(errorOf(request("cluster-broadcast", "", "[[cluster]]\nname = \"a\"\nsize = 2.5\n")) ==
        "req.toml:6:8: 'size' in [[cluster]] #1 must be an integer, not a float");
  CHECK(errorOf(request("cluster-broadcast", "", kTwoClusters + "[[cluster]]\nname = \"a\"\nsize = 1\n")) ==
        "req.toml:11:8: duplicate cluster name 'a' (first defined in [[cluster]] #1)");
  CHECK(errorOf(request("cluster-multicast", "", "[[cluster]]\nname = \"a\"\nsize = 3\nmembers = 4\n")) ==
        "req.toml:7:11: 'members' in [[cluster]] #1 must be an integer from 0 to the cluster's size 3 "
        "(its first nodes that need the message)");
  CHECK(errorOf(request("cluster-broadcast", "", "[[cluster]]\nname = \"a\"\nsize = 3\ndegree = 0\n")) ==
        "req.toml:7:10: 'degree' in [[cluster]] #1 must be an integer from 1 to the cluster's size 3 "
        "(nodes in global transfers at once)");
  CHECK(errorOf(request("cluster-broadcast", "", "")).find("no [[cluster]] tables") != std::string::npos);
  CHECK(errorOf(request("cluster-multicast", "", kTwoClusters)).find("no [[cluster]] has members > 0") !=
        std::string::npos);
  CHECK(errorOf(request("cluster-broadcast", "", "[[cluster]]\nname = \"a\"\nsise = 3\n")) ==
        "req.toml:6:8: unknown key 'sise' in [[cluster]] #1 (expected one of: degree, name, size)");
  CHECK(errorOf("op = \"cluster-broadcast\"\nalgo = \"lcf\"\n" + kTwoClusters)
            .find("missing key 'global_time'") != std::string::npos);
  CHECK(errorOf(request("cluster-broadcast", "model = \"lossy\"\n", kTwoClusters))
            .find("unknown model 'lossy' in the request (expected one of: blocking, postal)") !=
        std::string::npos);
  CHECK(errorOf(request("cluster-broadcast", "",
                        "[[cluster]]\nname = \"a\"\nsize = 60000\n[[cluster]]\nname = \"b\"\nsize = 50000\n")) ==
        "req.toml:9:8: the clusters have more than 100000 nodes in all; plan a smaller request");
  CHECK(errorOf("op = \"cluster-multicast\"\nalgo = \"interleaved-lcf\"\nglobal_time = 4\n") ==
        "req.toml:2:8: unknown algo 'interleaved-lcf' in the request (expected one of: lcf)");
}
