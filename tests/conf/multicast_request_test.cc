#include <doctest/doctest.h>

#include <string>

#include "conf/plan_request.h"

using hnow::conf::MulticastRequest;
using hnow::conf::parsePlanRequest;

namespace {

const std::string kHead = "op = \"multicast\"\nalgo = \"ecf\"\nlink_s_per_byte = 0.5\n";
const std::string kNodes = R"(
[[node]]
name = "a"
send_overhead = 1
recv_overhead = 3
[[node]]
name = "b"
send_overhead = 2.0
send_s_per_byte = 0.25
recv_overhead = 6
recv_s_per_byte = 0.125
[[node]]
name = "c"
send_overhead = 2
recv_overhead = 6
)";
const std::string kMessage = "[[message]]\nsource = \"a\"\nbytes = 8\ndestinations = [\"c\", \"b\"]\n";

std::string errorOf(const std::string& text) {
  auto loaded = parsePlanRequest(text, "m.toml");
  return loaded ? "" : loaded.error().text();
}

}  // namespace

TEST_CASE("a multicast request loads node costs, messages in order and per-pair links") {
  auto loaded = parsePlanRequest(kHead + "seed = 7\n" + kNodes + kMessage +
                                     "[[message]]\nsource = \"b\"\nbytes = 0\ndestinations = [\"a\"]\n"
                                     "[[link]]\nfrom = \"a\"\nto = \"c\"\ns_per_byte = 2\nboth_ways = true\n",
                                 "m.toml");
  REQUIRE_MESSAGE(loaded.ok(), (loaded.ok() ? "" : loaded.error().text()));
  const auto& r = std::get<MulticastRequest>(loaded.value());
  CHECK(r.algo == "ecf");
  CHECK(r.seed == 7);
  CHECK(r.nodeNames == std::vector<std::string>{"a", "b", "c"});
  const auto& in = r.instance;
  CHECK(in.nodes[1].sendOverhead == 2.0);
  CHECK(in.nodes[1].sendPerByte == 0.25);
  CHECK(in.nodes[1].recvPerByte == 0.125);
  CHECK(in.nodes[0].sendPerByte == 0.0);  // per-byte costs default to 0
  REQUIRE(in.messages.size() == 2);
  CHECK(in.messages[0].source == 0);
  CHECK(in.messages[0].bytes == 8);
  CHECK(in.messages[0].destinations == std::vector<int>{2, 1});
  CHECK(in.messages[1].source == 1);
  CHECK(in.link(0, 1) == 0.5);  // uniform
  CHECK(in.link(0, 2) == 2.0);  // [[link]], both ways
  CHECK(in.link(2, 0) == 2.0);
  CHECK(in.sendTime(1, 0) == 2.0 + 0.25 * 8);
}

TEST_CASE("bad multicast requests are rejected with file:line:column and the problem") {
  CHECK(errorOf("op = \"multicast\"\nalgo = \"best\"\n") ==
        "m.toml:2:8: unknown algo 'best' in the request (expected one of: fef, ecf, wr, eaf, rr, rrs, "
        "ecfp, wrp, eafp, rrp, rrsp)");
  CHECK(errorOf("op = \"multicast\"\nalgo = \"wr\"\n" + kNodes + kMessage) ==
        "m.toml:1:1: missing key 'link_s_per_byte' in the request (X: seconds per byte on every link; "
        "[[link]] tables override single pairs)");
  CHECK(errorOf(kHead + kNodes + "[[message]]\nsource = \"a\"\nbytes = 8\ndestinations = [\"c\", \"zed\"]\n") ==
        "m.toml:22:22: 'zed' is not the name of any [[node]]");
  CHECK(errorOf(kHead + kNodes + "[[message]]\nsource = \"a\"\nbytes = 8\ndestinations = [\"a\"]\n") ==
        "m.toml:22:17: 'a' is the source of this message; remove it");
  CHECK(errorOf(kHead + kNodes + "[[message]]\nsource = \"a\"\nbytes = 8\ndestinations = [\"b\", \"b\"]\n") ==
        "m.toml:22:22: 'b' is listed twice");
  CHECK(errorOf(kHead + kNodes + "[[message]]\nsource = \"a\"\nbytes = 8\ndestinations = []\n") ==
        "m.toml:22:16: destinations must name at least one [[node]]");
  CHECK(errorOf(kHead + kNodes + "[[message]]\nsource = \"a\"\nbytes = -1\ndestinations = [\"b\"]\n") ==
        "m.toml:21:9: bytes cannot be negative");
  CHECK(errorOf(kHead + kNodes) == "m.toml:1:1: the request has no [[message]] tables; add at least one");
  CHECK(errorOf(kHead + "[[node]]\nname = \"a\"\nsend_overhead = 0\nrecv_overhead = 1\n" + kMessage) ==
        "m.toml:6:17: send_overhead must be greater than 0 seconds (S_c: seconds a send occupies the sender)");
  CHECK(errorOf(kHead + kNodes + kMessage + "[[message]]\nsource = \"b\"\nbytes = 1\ndestinations = [\"a\"]\nsize = 3\n") ==
        "m.toml:27:8: unknown key 'size' in [[message]] #2 (expected one of: bytes, destinations, source)");
  CHECK(errorOf(kHead + kNodes + kMessage + "[[link]]\nfrom = \"a\"\nto = \"b\"\ns_per_byte = 1\n"
                "[[link]]\nfrom = \"b\"\nto = \"a\"\ns_per_byte = 1\nboth_ways = true\n") ==
        "m.toml:27:1: the link a -> b is already given by [[link]] #1");
  CHECK(errorOf(kHead + kNodes + kMessage + "seed = -2\n").find("m.toml:") == 0);
}
