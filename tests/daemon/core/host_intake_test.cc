// Agents that share a machine (daemon/core/links/host_intake.h, hosts.h): what a
// finished send says of the machine, and how plans share what it takes in.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "base/clock.h"
#include "core/links/host_intake.h"
#include "core/links/hosts.h"
#include "conf/trust_config.h"
#include "core/links/link_book.h"
#include "core/send/send_tree.h"

using namespace hnow::daemon;

namespace {

constexpr std::uint64_t kMiB = 1 << 20;

AgentView agentOn(const std::string& name, const std::string& host) {
  AgentView a;
  a.record.name = name;
  a.registration.name = name;
  a.registration.host = host;
  return a;
}

}  // namespace

TEST_CASE("a machine's intake lives in the link book under a name no agent can take") {
  const LinkId link = hostIntakeLink("20cbdd6da5f016d7");
  CHECK(link.direction == LinkDirection::kDown);
  CHECK(link.node == "host:20cbdd6da5f016d7");
  // ':' is in no agent's name (letters, digits, "._-"): no agent's link is it.
  CHECK_FALSE(hnow::conf::plainName("host:20cbdd6da5f016d7"));
  CHECK(hostIntakeLink("20cbdd6da5f016d8") != link);
}

TEST_CASE("a send whose copies on one machine all ran well over their plan reads its intake: the bytes over the time the last took") {
  // 4 copies of 64 MiB on machine m, planned to end by 10 s; the last took 20.
  std::vector<HostCopy> copies;
  for (double t : {12.0, 15.0, 18.0, 20.0}) copies.push_back({"m", 64 * kMiB, t, 10.0});
  const auto readings = hostIntakeOfSend(copies);
  REQUIRE(readings.size() == 1);
  CHECK(readings[0].link == hostIntakeLink("m"));
  CHECK(readings[0].saturated);
  CHECK(readings[0].bytesPerSecond == doctest::Approx(4.0 * 64 * kMiB / 20.0));
}

TEST_CASE("a send that ran as planned says only that the machine takes in at least that much") {
  // Within 15% of the plan: a flat tree slow by design, or a machine that kept up.
  const auto readings = hostIntakeOfSend({{"m", 64 * kMiB, 10.5, 10.0}, {"m", 64 * kMiB, 11.0, 9.0}});
  REQUIRE(readings.size() == 1);
  CHECK_FALSE(readings[0].saturated);
  CHECK(readings[0].bytesPerSecond == doctest::Approx(2.0 * 64 * kMiB / 11.0));
}

TEST_CASE("a short send, or one without a plan's time, says nothing of the machine: set-up and ramp are most of it") {
  CHECK(hostIntakeOfSend({{"m", 8 * kMiB, 0.6, 0.3}, {"m", 8 * kMiB, 0.6, 0.3}}).empty());
  CHECK(hostIntakeOfSend({{"m", 64 * kMiB, 12.0, 0.0}, {"m", 64 * kMiB, 12.0, 0.0}}).empty());
  CHECK(hostIntakeOfSend({{"m", 64 * kMiB, 12.0, 4.9}, {"m", 64 * kMiB, 12.0, 4.9}}).empty());
  CHECK(hostIntakeOfSend({{"m", 64 * kMiB, 12.0, 5.0}, {"m", 64 * kMiB, 12.0, 5.0}}).size() == 1);
}

TEST_CASE("no reading from one copy on a machine, from a machine with a copy not whole, or from agents on no shared machine") {
  CHECK(hostIntakeOfSend({{"m", 64 * kMiB, 30.0, 10.0}}).empty());
  CHECK(hostIntakeOfSend({{"m", 64 * kMiB, 30.0, 10.0}, {"m", 10 * kMiB, 0.0, 10.0}}).empty());
  CHECK(hostIntakeOfSend({{"", 64 * kMiB, 30.0, 10.0}, {"", 64 * kMiB, 30.0, 10.0}}).empty());
  // Two machines, judged apart.
  const auto two = hostIntakeOfSend(
      {{"a", kMiB, 30.0, 10.0}, {"a", kMiB, 30.0, 10.0}, {"b", kMiB, 10.0, 10.0}, {"b", kMiB, 10.0, 10.0}});
  REQUIRE(two.size() == 2);
  CHECK(two[0].saturated);
  CHECK_FALSE(two[1].saturated);
}

TEST_CASE("flows share a machine max-min fairly: the slow take what they want, the rest split what is left") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(fairShareLevel(std::vector<double>{10, 10, 10}, 60) == inf);  // all fit
  CHECK(fairShareLevel(std::vector<double>{100, 100, 100}, 60) == doctest::Approx(20));
  // 5 is taken whole; 55 left for two.
  CHECK(fairShareLevel(std::vector<double>{5, 100, 100}, 60) == doctest::Approx(27.5));
  CHECK(fairShareLevel(std::vector<double>{inf, inf}, 60) == doctest::Approx(30));
  CHECK(fairShareLevel(std::vector<double>{}, 60) == inf);
}

TEST_CASE("only machines two agents or more report are shared, and only plain keys group them") {
  const auto hostOf = sharedHosts({agentOn("a1", "m1"), agentOn("a2", "m1"), agentOn("a3", "m2"), agentOn("a4", "")});
  CHECK(hostOf.size() == 2);
  CHECK(hostOf.at("a1") == "m1");
  CHECK(hostOf.at("a2") == "m1");
  CHECK_FALSE(hostOf.count("a3"));
  CHECK_FALSE(hostOf.count("a4"));
}

TEST_CASE("plans share a machine's known intake among the send's agents on it, and the bound counts it") {
  // hnowd and 4 agents of 100 MB/s down on one machine that takes in 100 MB/s in all.
  std::vector<TreeNode> nodes{{"hnowd", "", {400e6, 400e6}}};
  for (int i = 0; i < 4; ++i) nodes.push_back({"a" + std::to_string(i), "", {100e6, 100e6}});
  std::vector<TreeNode> ownLinks = nodes;
  for (std::size_t i = 1; i < nodes.size(); ++i) {
    nodes[i].host = "m";
    nodes[i].hostIntakeBytesPerSecond = 100e6;
  }
  const auto rates = plannedRates(nodes);
  for (std::size_t i = 1; i < rates.size(); ++i) CHECK(rates[i].downlinkBytesPerSecond == doctest::Approx(25e6));
  CHECK(rates[0].uplinkBytesPerSecond == doctest::Approx(400e6));
  const double bytes = 64.0 * kMiB;
  CHECK(hostIntakeBound(nodes, bytes) == doctest::Approx(4 * bytes / 100e6));

  auto shared = planSendTree("auto", nodes, 64 * kMiB, 128 << 10, true);
  auto own = planSendTree("auto", ownLinks, 64 * kMiB, 128 << 10, true);
  REQUIRE(shared);
  REQUIRE(own);
  // Links alone: F / 100 MB/s. The machine: 4 F / 100 MB/s, and plans say so.
  CHECK(own->boundSeconds == doctest::Approx(bytes / 100e6));
  CHECK(shared->boundSeconds == doctest::Approx(4 * bytes / 100e6));
  CHECK(shared->predictedSeconds >= shared->boundSeconds * 0.999);
  CHECK(shared->predictedSeconds <= shared->boundSeconds * 1.10);
}

TEST_CASE("a machine's intake caps no one when its agents fit in it, and a done copy in a re-plan takes no share") {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<TreeNode> nodes{{"hnowd", "", {400e6, 400e6}}, {"a", "", {10e6, 10e6}}, {"b", "", {10e6, inf}}};
  for (std::size_t i = 1; i < nodes.size(); ++i) {
    nodes[i].host = "m";
    nodes[i].hostIntakeBytesPerSecond = 15e6;
  }
  // b's copy is done (unlimited downlink in a re-plan): a alone wants 10 of 15.
  const auto rates = plannedRates(nodes);
  CHECK(rates[1].downlinkBytesPerSecond == doctest::Approx(10e6));
  CHECK(std::isinf(rates[2].downlinkBytesPerSecond));
}

TEST_CASE("a machine's intake is taken from each send at once: a slower send lowers it, one well over it makes it a bound, one within it changes nothing") {
  hnow::ManualClock clock;
  LinkBook book(clock, {});
  const LinkId link = hostIntakeLink("m");
  book.adopt({link, 400e6, true, 0.0});
  REQUIRE(book.rate(link));
  CHECK(book.rate(link)->method == RateMethod::kPassive);
  CHECK(book.knownAtLeast(link) == doctest::Approx(400e6));
  // Minutes later (no dwell to pass): a send held at 300 lowers it.
  clock.advance(std::chrono::minutes(3));
  book.adopt({link, 300e6, true, 0.0});
  CHECK(book.knownAtLeast(link) == doctest::Approx(300e6));
  // One as planned, within the threshold: nothing.
  clock.advance(std::chrono::minutes(3));
  book.adopt({link, 330e6, false, 0.0});
  CHECK(book.knownAtLeast(link) == doctest::Approx(300e6));
  CHECK_FALSE(book.rate(link)->bound());
  // One that took in well more than known: the intake is stale, a bound now.
  clock.advance(std::chrono::minutes(3));
  book.adopt({link, 500e6, false, 0.0});
  CHECK(book.rate(link)->bound());
  CHECK(book.knownAtLeast(link) == doctest::Approx(500e6));
}
