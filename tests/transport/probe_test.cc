// Probe rounds on the data plane (DataPlane::probe) and its link counters,
// planes on 127.0.0.1 paced by their token buckets as `hnow local` paces
// agents: what a round reads is what the pacing allows.
#include <doctest/doctest.h>

#include <atomic>
#include <future>
#include <thread>

#include "transport/data/data_plane.h"
#include "transport/data/link_counters.h"

using namespace hnow::transport::data;
using namespace std::chrono_literals;

namespace {

struct Node {
  hnow::SteadyClock clock;
  DataPlane plane{clock, [](TransferEvent) {}};
  std::string address;
  Node(double up = 0, double down = 0) {
    auto port = plane.listen("127.0.0.1");
    REQUIRE(port.ok());
    address = "127.0.0.1:" + std::to_string(port.value());
    plane.setRates(up, down);
  }
};

const std::string kToken(32, 'p');

// Runs every node's part of one round at once and waits for every answer.
std::vector<hnow::Result<ProbeResult>> round(std::vector<std::pair<Node*, ProbeOrder>> parts) {
  std::vector<std::future<hnow::Result<ProbeResult>>> answers;
  for (auto& [node, order] : parts) {
    auto promise = std::make_shared<std::promise<hnow::Result<ProbeResult>>>();
    answers.push_back(promise->get_future());
    node->plane.probe(order, [promise](hnow::Result<ProbeResult> r) { promise->set_value(std::move(r)); });
  }
  std::vector<hnow::Result<ProbeResult>> out;
  for (auto& a : answers) {
    REQUIRE(a.wait_for(5s) == std::future_status::ready);
    out.push_back(a.get());
  }
  return out;
}

ProbeOrder order(bool serve, std::vector<std::string> pullFrom, double warm = 0.1, double window = 0.4) {
  return {kToken, serve, std::move(pullFrom), warm, window};
}

// What hnowd reads of a flow: its rate fitted to its arrivals.
double rate(const ProbeResult& r, std::size_t flow) { return r.flowBytesPerSecond.at(flow); }
double rate(const hnow::Result<ProbeResult>& r, std::size_t flow) {
  REQUIRE(r.ok());
  return rate(r.value(), flow);
}

}  // namespace

TEST_CASE("a probe flow from a paced sender reads the sender's rate - the sender's counters say what it sent") {
  Node sender(8e6), receiver;
  auto results = round({{&sender, order(true, {})}, {&receiver, order(false, {sender.address})}});
  REQUIRE(results[1].ok());
  CHECK(results[1]->windowSeconds == doctest::Approx(0.4).epsilon(0.1));
  CHECK(rate(results[1], 0) == doctest::Approx(8e6).epsilon(0.1));
  const double sent = static_cast<double>(results[0]->after.tcpSent - results[0]->before.tcpSent) / results[0]->windowSeconds;
  CHECK(sent == doctest::Approx(8e6).epsilon(0.15));
  // Payload is counted as it is queued, a window ahead of the acks: the same
  // rate, shifted.
  const double queued =
      static_cast<double>(results[0]->after.dataSent - results[0]->before.dataSent) / results[0]->windowSeconds;
  CHECK(queued == doctest::Approx(8e6).epsilon(0.25));
  CHECK(results[0]->flowBytes.empty());
  CHECK(results[0]->flowBytesPerSecond.empty());
}

TEST_CASE("three flows from a sender paced to a few chunks per flow in the window read its rate together - each the same share") {
  // 2 MB/s over three flows is about five 128 KiB chunks a second each: a
  // 0.6 s window holds three or four, and a count would be a chunk off.
  Node sender(2e6), a, b, c;
  auto r = round({{&sender, order(true, {}, 0.3, 0.6)},
                  {&a, order(false, {sender.address}, 0.3, 0.6)},
                  {&b, order(false, {sender.address}, 0.3, 0.6)},
                  {&c, order(false, {sender.address}, 0.3, 0.6)}});
  CHECK(rate(r[1], 0) + rate(r[2], 0) + rate(r[3], 0) == doctest::Approx(2e6).epsilon(0.1));
  for (int i = 1; i <= 3; ++i) CHECK(rate(r[i], 0) == doctest::Approx(2e6 / 3).epsilon(0.15));
}

TEST_CASE("two senders into a paced downlink share it - into an unpaced one each gets its own uplink") {
  Node slow(3e6), fast(5e6);
  SUBCASE("the downlink is the limit") {
    Node receiver(0, 4e6);
    auto r = round({{&slow, order(true, {})}, {&fast, order(true, {})},
                    {&receiver, order(false, {slow.address, fast.address})}});
    CHECK(rate(r[2], 0) + rate(r[2], 1) == doctest::Approx(4e6).epsilon(0.1));
    const double received =
        static_cast<double>(r[2]->after.dataReceived - r[2]->before.dataReceived) / r[2]->windowSeconds;
    CHECK(received == doctest::Approx(4e6).epsilon(0.1));
  }
  SUBCASE("the uplinks are") {
    Node receiver;
    auto r = round({{&slow, order(true, {})}, {&fast, order(true, {})},
                    {&receiver, order(false, {slow.address, fast.address})}});
    CHECK(rate(r[2], 0) == doctest::Approx(3e6).epsilon(0.1));
    CHECK(rate(r[2], 1) == doctest::Approx(5e6).epsilon(0.1));
  }
}

TEST_CASE("a pull presenting another token gets nothing - bad orders are refused at once") {
  Node sender(8e6), receiver;
  ProbeOrder other = order(false, {sender.address});
  other.token = std::string(32, 'x');
  auto r = round({{&sender, order(true, {})}, {&receiver, other}});
  CHECK(r[1].ok());
  CHECK(r[1]->flowBytes == std::vector<std::uint64_t>{0});

  ProbeOrder shortToken = order(false, {});
  shortToken.token = "short";
  CHECK(round({{&receiver, shortToken}})[0].error().message == "a probe token is 32 bytes");
  CHECK(round({{&receiver, order(false, {}, 4, 7)}})[0].error().message.find("at most 10 s") != std::string::npos);
  CHECK(round({{&receiver, order(false, {"nowhere"})}})[0].error().message.find("cannot resolve") != std::string::npos);
  ProbeOrder many = order(false, std::vector<std::string>(65, sender.address));
  CHECK(round({{&receiver, many}})[0].error().message.find("at most 64") != std::string::npos);
}

TEST_CASE("a flow to a peer that registers its token late is opened again until it can be") {
  Node sender(8e6), receiver;
  auto promise = std::make_shared<std::promise<ProbeResult>>();
  auto answer = promise->get_future();
  receiver.plane.probe(order(false, {sender.address}, 0.3, 0.4), [promise](hnow::Result<ProbeResult> r) { promise->set_value(r.value()); });
  std::this_thread::sleep_for(150ms);  // the first pulls are dropped: unknown token
  sender.plane.probe(order(true, {}, 0.15, 0.4), [](hnow::Result<ProbeResult>) {});
  REQUIRE(answer.wait_for(5s) == std::future_status::ready);
  CHECK(rate(answer.get(), 0) == doctest::Approx(8e6).epsilon(0.15));
}

TEST_CASE("a source stops serving a second after its window closed, whatever its pullers do") {
  Node sender(8e6), receiver;
  // The sender's round ends at 0.05 + 0.1 + 1 s; the puller's window opens later.
  auto r = round({{&sender, order(true, {}, 0.05, 0.1)}, {&receiver, order(false, {sender.address}, 1.3, 0.2)}});
  REQUIRE(r[1].ok());
  CHECK(r[1]->before.dataReceived > 4'000'000);  // the flow did run until then
  CHECK(r[1]->flowBytes == std::vector<std::uint64_t>{0});
  CHECK(r[1]->flowBytesPerSecond == std::vector<double>{0.0});
  CHECK(r[1]->after.dataReceived == r[1]->before.dataReceived);
}

TEST_CASE("planes destroyed in the middle of a round close their flows and sources without answering") {
  auto sender = std::make_unique<Node>(8e6);
  auto receiver = std::make_unique<Node>();
  auto answered = std::make_shared<std::atomic<int>>(0);
  sender->plane.probe(order(true, {}, 0.1, 5), [answered](hnow::Result<ProbeResult>) { ++*answered; });
  receiver->plane.probe(order(false, {sender->address}, 0.1, 5), [answered](hnow::Result<ProbeResult>) { ++*answered; });
  std::this_thread::sleep_for(300ms);
  CHECK(receiver->plane.counters().dataReceived > 0);
  const auto start = std::chrono::steady_clock::now();
  receiver.reset();
  sender.reset();
  CHECK(std::chrono::steady_clock::now() - start < 500ms);
  CHECK(*answered == 0);
}

TEST_CASE("link counters: hnow's payload as TCP counted it - loopback and foreign addresses have no interface") {
  Node sender(20e6), receiver;
  round({{&sender, order(true, {})}, {&receiver, order(false, {sender.address})}});
  std::this_thread::sleep_for(1200ms);  // the round's serving ends; every connection closed
  const LinkCounters s = sender.plane.counters(), r = receiver.plane.counters();
  CHECK(r.dataReceived > 0);
  // Frame headers on top of the DATA payload.
  CHECK(r.tcpReceived > r.dataReceived);
  CHECK(s.tcpSent > r.dataReceived / 2);  // acknowledged, most of it at least
  CHECK(r.tcpSent > 0);                   // the probe's request
  CHECK_FALSE(s.nicKnown);  // watchInterface was never called
  CHECK(interfaceOf("127.0.0.1").empty());
  CHECK(interfaceOf("::1").empty());
  CHECK(interfaceOf("192.0.2.77").empty());  // TEST-NET-1: no interface here has it
  CHECK(interfaceOf("not an address").empty());
  CHECK_FALSE(interfaceCounters("no-such-interface").has_value());
  CHECK_FALSE(interfaceCounters("../../etc").has_value());
  const auto lo = interfaceCounters("lo");  // every namespace has one
  REQUIRE(lo.has_value());
  CHECK(lo->rxPackets <= lo->rxBytes);
  sender.plane.watchInterface("127.0.0.1");
  CHECK_FALSE(sender.plane.counters().nicKnown);
}
