#include <doctest/doctest.h>

#include <string>

#include "conf/plan_request.h"

using hnow::conf::CollectiveRequest;
using hnow::conf::parsePlanRequest;

namespace {

// The error line for `text`, or "" if it loads.
std::string errorOf(const std::string& text) {
  auto loaded = parsePlanRequest(text, "req.toml");
  return loaded ? "" : loaded.error().text();
}

const char* kNodes = R"(
[[node]]
name = "a"
t = 1
[[node]]
name = "b"
t = 2.5
)";

}  // namespace

TEST_CASE("a broadcast request loads with integer and float t") {
  auto loaded = parsePlanRequest(std::string("op = \"broadcast\"\nalgo = \"fnf\"\nroot = \"b\"\n") + kNodes,
                                 "req.toml");
  REQUIRE(loaded.ok());
  const auto& r = std::get<CollectiveRequest>(loaded.value());
  CHECK(r.op == CollectiveRequest::Op::kBroadcast);
  CHECK(r.algo == "fnf");
  CHECK(r.root == 1);
  REQUIRE(r.nodes.size() == 2);
  CHECK(r.nodes[0].sendTime == 1.0);
  CHECK(r.nodes[1].sendTime == 2.5);
}

TEST_CASE("a reduce request without root sinks at the slowest node") {
  auto loaded = parsePlanRequest(std::string("op = \"reduce\"\nalgo = \"snf\"\n") + kNodes, "r.toml");
  REQUIRE(loaded.ok());
  CHECK(std::get<CollectiveRequest>(loaded.value()).root == 1);
}

TEST_CASE("bad requests are rejected with file:line:column and the problem") {
  std::string head = "op = \"broadcast\"\nalgo = \"fnf\"\nroot = \"a\"\n";
  CHECK(errorOf(head + "colour = 3\n" + kNodes) ==
        "req.toml:4:10: unknown key 'colour' in the request (expected one of: algo, node, op, root)");
  CHECK(errorOf("op = \"broadcast\"\nalgo = \"fastest\"\nroot = \"a\"\n" + std::string(kNodes)) ==
        "req.toml:2:8: unknown algo 'fastest' in the request (expected one of: fnf, optimal, "
        "binomial, chain, flat)");
  CHECK(errorOf("op = \"gather\"\n")
            .rfind("req.toml:1:6: unknown op 'gather' in the request (expected one of: broadcast, reduce", 0) == 0);
  CHECK(errorOf("op = \"broadcast\"\nalgo = \"fnf\"\nroot = \"z\"\n" + std::string(kNodes)) ==
        "req.toml:3:8: root 'z' is not the name of any [[node]]");
  CHECK(errorOf(head + "[[node]]\nname = \"a\"\nt = 1\n[[node]]\nname = \"a\"\nt = 2\n") ==
        "req.toml:8:8: duplicate node name 'a' (first defined in [[node]] #1)");
  CHECK(errorOf(head + "[[node]]\nname = \"a\"\nt = 0\n") ==
        "req.toml:6:5: t of node 'a' must be greater than 0 (seconds to send one message)");
  CHECK(errorOf(head + "[[node]]\nname = \"a\"\nt = -2\n") ==
        "req.toml:6:5: t of node 'a' must be greater than 0 (seconds to send one message)");
  CHECK(errorOf(head + "[[node]]\nname = \"a\"\nt = \"fast\"\n") ==
        "req.toml:6:5: 't' in [[node]] #1 must be a number, not a string");
  CHECK(errorOf(head + "[[node]]\nname = \"a\"\nt = nan\n") ==
        "req.toml:6:5: 't' in [[node]] #1 must be a finite number");
  CHECK(errorOf(head + "[[node]]\nname = \"a\"\nspeed = 1\n").find("unknown key 'speed' in [[node]] #1") !=
        std::string::npos);
  CHECK(errorOf("op = \"broadcast\"\nalgo = \"fnf\"\n" + std::string(kNodes)).find("missing key 'root'") !=
        std::string::npos);
  CHECK(errorOf(head + "[[nodes]]\nname = \"a\"\nt = 1\n").find("unknown key 'nodes'") !=
        std::string::npos);
  CHECK(errorOf(head).find("no [[node]] tables") != std::string::npos);
  CHECK(errorOf("op = \"broadcast\"\nalgo = ").rfind("req.toml:2:", 0) == 0);  // TOML syntax error
}

TEST_CASE("a request file that cannot be read is an error naming the file") {
  auto loaded = hnow::conf::loadPlanRequest("/nonexistent/req.toml");
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.error().text() == "/nonexistent/req.toml: cannot open the file for reading");
}
