// What hnow's own transfers teach the link book (Coordinator::
// observeTransfers): flows of a send on a fluid lab, counters in heartbeats.
// A busy link is not a slow link; a link that slowed is; one that carried
// more than it was thought to is faster.
#include <doctest/doctest.h>

#include <algorithm>

#include "daemon/core/fluid_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::testing;

namespace {

// A send's flows on the lab: TransferObserver's flows are the fluid rates,
// and every node's heartbeats carry counters that grow with its traffic.
struct PassiveLab {
  FluidLab f;
  struct Sending final : TransferObserver {
    std::vector<Flow> flows;
    void transferReport(const std::string&, const std::string&, const TransferReport&) override {}
    void agentGone(const std::string&) override {}
    void collectFlows(Duration, std::vector<Flow>& out) const override { out.insert(out.end(), flows.begin(), flows.end()); }
    bool moving() const override { return !flows.empty(); }
  } sending;
  std::vector<std::pair<std::string, std::string>> tree;
  FluidTrunks trunks;  // rooms' trunks, by FluidNode::room
  std::map<std::string, CounterSample> counters;
  std::vector<RateEvent> drift;

  explicit PassiveLab(std::map<std::string, FluidNode> lab) : f(std::move(lab)) {
    f.coordinator.addTransferObserver(&sending);
    for (const auto& [name, node] : f.lab)
      for (LinkDirection d : {LinkDirection::kUp, LinkDirection::kDown})
        f.coordinator.links().restore({name, d}, {d == LinkDirection::kUp ? node.up : node.down, RateMethod::kProbe,
                                                   f.clock.now(), 0.0});
  }
  ~PassiveLab() { f.coordinator.removeTransferObserver(&sending); }

  // Runs the send for `seconds`: every 250 ms the counters grow by the lab's
  // rates and go out in heartbeats; every second hnowd judges the window.
  void run(double seconds) {
    for (double t = 0; t < seconds; t += 0.25) {
      const FluidRates rates = maxMinRates(f.lab, tree, trunks);
      sending.flows.clear();
      for (std::size_t i = 0; i < tree.size(); ++i) sending.flows.push_back({tree[i].first, tree[i].second, rates.flows[i]});
      f.clock.advance(std::chrono::milliseconds(250));
      for (const auto& [name, node] : f.lab) {
        auto get = [&](const std::map<std::string, double>& m) {
          auto it = m.find(name);
          return it == m.end() ? 0.0 : it->second;
        };
        CounterSample step = countersAfter(0.25, get(rates.sent), get(rates.received), get(rates.otherSent),
                                           get(rates.otherReceived), 0.0);
        CounterSample& c = counters[name];
        c.atSeconds += 0.25;
        c.dataSent += step.dataSent, c.dataReceived += step.dataReceived;
        c.tcpSent += step.tcpSent, c.tcpReceived += step.tcpReceived;
        c.nicKnown = true;
        c.nicSent += step.nicSent, c.nicReceived += step.nicReceived;
        c.nicSentPackets += step.nicSentPackets, c.nicReceivedPackets += step.nicReceivedPackets;
      }
      for (std::size_t i = 0; i < f.sessions.size(); ++i) f.coordinator.heartbeat(f.sessions[i], counters["agent-" + std::to_string(i + 1)]);
      f.coordinator.localCounters(counters[kCoordinatorNode]);
      if (static_cast<int>(t * 4) % 4 == 3) f.coordinator.observeTransfers();
      for (const RateEvent& e : f.coordinator.tick())
        if (e.kind == RateEvent::Kind::kDrift) drift.push_back(e);
    }
  }
  double capacity(const std::string& node, LinkDirection d) const { return f.rate(node, d)->bytesPerSecond; }
};

// hnowd to agents 1 and 2; agent-1 relays to 3 and 4 (the volunteer lab:
// relay uplinks are the limit, downlinks carry shares far below theirs).
std::vector<std::pair<std::string, std::string>> relayTree() {
  return {{kCoordinatorNode, "agent-1"}, {kCoordinatorNode, "agent-2"}, {"agent-1", "agent-3"}, {"agent-1", "agent-4"}};
}

}  // namespace

TEST_CASE("a send's links keep their capacities: a share smaller than a downlink is not a slower downlink") {
  PassiveLab p(volunteerLab(4));
  p.tree = relayTree();
  p.run(20.0);
  CHECK(p.drift.empty());
  for (const auto& [name, node] : p.f.lab) {
    CHECK(p.capacity(name, LinkDirection::kDown) == doctest::Approx(node.down).epsilon(0.01));
    CHECK(p.capacity(name, LinkDirection::kUp) == doctest::Approx(node.up).epsilon(0.01));
  }
  // The uplinks that were the limit were confirmed by the transfer.
  CHECK(p.f.coordinator.links().samples({"agent-1", LinkDirection::kUp}) > 1);
  CHECK(p.f.coordinator.links().samples({kCoordinatorNode, LinkDirection::kUp}) > 1);
  CHECK(p.f.coordinator.links().samples({"agent-3", LinkDirection::kDown}) <= 1);
}

TEST_CASE("a relay's uplink cut mid-send is a drift of that uplink alone, after the dwell") {
  PassiveLab p(volunteerLab(4));
  p.tree = relayTree();
  p.run(5.0);
  p.f.lab["agent-1"].up = mbps(40);  // tc, not hnow
  p.run(1.5);
  CHECK(p.drift.empty());  // not yet: readings must disagree for the dwell time
  p.run(4.0);
  REQUIRE(p.drift.size() == 1);
  CHECK(p.drift[0].agent == "agent-1");
  CHECK(p.drift[0].rate == "uplink");
  CHECK(p.drift[0].after == doctest::Approx(mbps(40)).epsilon(0.02));
  CHECK(p.f.rate("agent-1", LinkDirection::kUp)->method == RateMethod::kPassive);
  for (const char* leaf : {"agent-3", "agent-4"})
    CHECK(p.capacity(leaf, LinkDirection::kDown) == doctest::Approx(mbps(400)).epsilon(0.01));
}

TEST_CASE("a relay whose CPU held its uplink low during a send is probed again once the send ends: the link gets its capacity back - one that really slowed keeps the lower") {
  for (const bool cpu : {true, false}) {
    INFO((cpu ? "CPU-bound relay" : "slower link"));
    PassiveLab p(volunteerLab(4));
    p.tree = relayTree();
    p.run(2.0);
    p.f.lab["agent-1"].up = mbps(40);  // expanding zstd, say, or tc
    p.run(4.0);
    REQUIRE(p.drift.size() == 1);
    CHECK(p.capacity("agent-1", LinkDirection::kUp) == doctest::Approx(mbps(40)).epsilon(0.02));
    // The send ends; the relay's CPU is free again, or its link stays slow.
    if (cpu) p.f.lab["agent-1"].up = mbps(100);
    p.tree.clear();
    p.sending.flows.clear();
    const std::size_t surveys = p.f.reports.size();
    p.f.run(3.0);
    REQUIRE(p.f.reports.size() == surveys + 1);
    const auto& targets = p.f.reports.back().targets;
    CHECK(std::find(targets.begin(), targets.end(), LinkId{"agent-1", LinkDirection::kUp}) != targets.end());
    CHECK(p.f.rate("agent-1", LinkDirection::kUp)->method == RateMethod::kProbe);
    CHECK(p.capacity("agent-1", LinkDirection::kUp) == doctest::Approx(mbps(cpu ? 100 : 40)).epsilon(0.01));
    p.f.run(3.0);
    CHECK(p.f.reports.size() == surveys + 1);  // once
  }
}

TEST_CASE("a transfer that fills a link known only by a bound sets its capacity - one that carries more than a bound raises it") {
  SUBCASE("hnowd's uplink, a bound of 100 Mbit/s, filled at 200 into a downlink with room") {
    PassiveLab p(volunteerLab(4));
    p.f.coordinator.links().restore({kCoordinatorNode, LinkDirection::kUp}, {mbps(100), RateMethod::kBound, p.f.clock.now(), 0});
    p.tree = {{kCoordinatorNode, "agent-2"}};
    p.run(6.0);
    CHECK(p.f.rate(kCoordinatorNode, LinkDirection::kUp)->method == RateMethod::kPassive);
    CHECK(p.capacity(kCoordinatorNode, LinkDirection::kUp) == doctest::Approx(mbps(200)).epsilon(0.01));
  }
  SUBCASE("agent-2's downlink, a bound of 50 Mbit/s, carrying hnowd's whole 200: a bound of 200") {
    PassiveLab p(volunteerLab(4));
    p.f.coordinator.links().restore({"agent-2", LinkDirection::kDown}, {mbps(50), RateMethod::kBound, p.f.clock.now(), 0});
    p.tree = {{kCoordinatorNode, "agent-2"}};
    p.run(6.0);
    CHECK(p.f.rate("agent-2", LinkDirection::kDown)->bound());
    CHECK(p.capacity("agent-2", LinkDirection::kDown) == doctest::Approx(mbps(200)).epsilon(0.01));
  }
}

TEST_CASE("other traffic during a send lowers what is available while it lasts, not the capacity") {
  PassiveLab p(volunteerLab(4));
  p.tree = relayTree();
  p.f.lab["agent-1"].otherUp = mbps(30);  // a swarm seeding from the relay
  p.run(8.0);
  CHECK(p.drift.empty());
  const LinkBook& book = p.f.coordinator.links();
  CHECK(p.capacity("agent-1", LinkDirection::kUp) == doctest::Approx(mbps(100)).epsilon(0.02));
  CHECK(book.foreign({"agent-1", LinkDirection::kUp}) == doctest::Approx(mbps(30)).epsilon(0.05));
  CHECK(book.available({"agent-1", LinkDirection::kUp}) == doctest::Approx(mbps(70)).epsilon(0.05));
  p.f.lab["agent-1"].otherUp = 0;
  p.run(4.0);
  CHECK(book.foreign({"agent-1", LinkDirection::kUp}) == 0.0);
  CHECK(book.available({"agent-1", LinkDirection::kUp}) == doctest::Approx(mbps(100)).epsilon(0.02));
}

TEST_CASE("a chain across a trunk three times, both ends of every crossing with room to spare: the trunk is measured, no end is blamed, and plans hear of it") {
  std::map<std::string, FluidNode> lab;
  lab[kCoordinatorNode] = {mbps(400), mbps(1000)};
  for (int k = 1; k <= 6; ++k) lab["agent-" + std::to_string(k)] = {mbps(400), mbps(400), 0, 0, k <= 3 ? "A" : "B"};
  PassiveLab p(lab);
  p.trunks["B"] = {mbps(100), mbps(100)};
  // hnowd > agent-4 (B) > agent-1 (A) > agent-5 (B) > agent-2 (A) > agent-6 (B).
  p.tree = {{kCoordinatorNode, "agent-4"}, {"agent-4", "agent-1"}, {"agent-1", "agent-5"},
            {"agent-5", "agent-2"}, {"agent-2", "agent-6"}};
  p.run(4.0);
  const LinkRate* intoB = p.f.coordinator.links().rate(trunkLink("B", LinkDirection::kDown));
  REQUIRE(intoB);
  CHECK(intoB->method == RateMethod::kPassive);
  CHECK(intoB->bytesPerSecond == doctest::Approx(mbps(100)).epsilon(0.02));
  const LinkRate* outOfB = p.f.coordinator.links().rate(trunkLink("B", LinkDirection::kUp));
  REQUIRE(outOfB);
  CHECK(outOfB->bytesPerSecond == doctest::Approx(mbps(100)).epsilon(0.02));
  // Every agent's links keep their 400: the trunk explained the flows.
  for (int k = 1; k <= 6; ++k)
    for (LinkDirection d : {LinkDirection::kUp, LinkDirection::kDown})
      CHECK(p.capacity("agent-" + std::to_string(k), d) == doctest::Approx(mbps(400)));
  // A send running now hears of the trunk as a drift of room:B.
  const bool heard = std::any_of(p.drift.begin(), p.drift.end(), [](const RateEvent& e) { return e.agent == "room:B"; });
  CHECK(heard);
}
