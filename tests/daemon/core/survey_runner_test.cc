// Surveys on fluid labs (fluid_lab.h): every link measured within a percent
// of what the lab gives, or reported as a bound no higher than it.
#include <doctest/doctest.h>

#include <optional>
#include <random>

#include "daemon/core/fluid_lab.h"

using namespace hnow::daemon;
using namespace hnow::testing;

namespace {

void checkAgainstLab(const FluidLab& f, const std::string& node, LinkDirection d) {
  const FluidNode& truth = f.lab.at(node);
  const double real = d == LinkDirection::kUp ? truth.up : truth.down;
  const LinkRate* r = f.rate(node, d);
  INFO(node << " " << directionName(d));
  REQUIRE(r != nullptr);
  if (r->bound()) CHECK(r->bytesPerSecond <= real * 1.001);
  else CHECK(r->bytesPerSecond == doctest::Approx(real).epsilon(0.01));
}

// hnowd (400 up) and 8 agents of 400/400, four in room A, four in B.
std::map<std::string, FluidNode> twoRoomsLab() {
  std::map<std::string, FluidNode> lab;
  lab[kCoordinatorNode] = {mbps(400), mbps(1000)};
  for (int k = 1; k <= 8; ++k) lab["agent-" + std::to_string(k)] = {mbps(400), mbps(400), 0, 0, k <= 4 ? "A" : "B"};
  return lab;
}

}  // namespace

TEST_CASE("a survey of the volunteer-like lab measures every agent's links, hnowd's uplink, and a bound for its downlink") {
  FluidLab f(volunteerLab());
  f.run(2.0);  // the settle time passes: one survey of everything
  REQUIRE(f.reports.size() == 1);
  CHECK(f.reports[0].errors.empty());
  CHECK(f.prober.rounds == 18);  // a downlink and an uplink round per node
  for (int k = 1; k <= 8; ++k)
    for (LinkDirection d : {LinkDirection::kUp, LinkDirection::kDown}) {
      const std::string name = "agent-" + std::to_string(k);
      checkAgainstLab(f, name, d);
      CHECK(f.rate(name, d)->method == RateMethod::kProbe);
    }
  CHECK(f.rate(kCoordinatorNode, LinkDirection::kUp)->method == RateMethod::kProbe);
  checkAgainstLab(f, kCoordinatorNode, LinkDirection::kUp);
  // Nothing could fill hnowd's 10 Gbit/s downlink: the agents' 440 Mbit/s together.
  CHECK(f.rate(kCoordinatorNode, LinkDirection::kDown)->bound());
  CHECK(f.rate(kCoordinatorNode, LinkDirection::kDown)->bytesPerSecond == doctest::Approx(mbps(440)).epsilon(0.01));
  f.run(5.0);
  CHECK(f.reports.size() == 1);  // nothing left to measure
}

TEST_CASE("links paced by hnow itself read from the loads its planes fit to their chunks - counts a chunk off would read them up to 9% high") {
  FluidLab f(volunteerLab(4));
  f.prober.pacedByHnow = true;
  f.run(2.0);
  REQUIRE(f.reports.size() == 1);
  for (int k = 1; k <= 4; ++k) {
    const std::string name = "agent-" + std::to_string(k);
    checkAgainstLab(f, name, LinkDirection::kUp);
    checkAgainstLab(f, name, LinkDirection::kDown);  // 400 Mbit/s: a bound, the others send 320 at most
    CHECK(f.rate(name, LinkDirection::kUp)->method == RateMethod::kProbe);
  }

  FluidLab counted(volunteerLab(4));
  counted.prober.pacedByHnow = true;
  counted.prober.fitted = false;
  counted.run(2.0);
  REQUIRE(counted.reports.size() == 1);
  // agent-4's 20 Mbit/s uplink: a chunk more in a 0.6 s window is 8.7% more.
  const LinkRate* up = counted.rate("agent-4", LinkDirection::kUp);
  REQUIRE(up);
  CHECK(up->bytesPerSecond > mbps(20) * 1.08);
}

TEST_CASE("downlinks four times hnowd's uplink are measured by several senders at once") {
  std::map<std::string, FluidNode> lab;
  lab[kCoordinatorNode] = {mbps(100), mbps(1000)};
  for (int k = 1; k <= 4; ++k) lab["agent-" + std::to_string(k)] = {mbps(200), mbps(400)};
  FluidLab f(lab);
  f.run(2.0);
  for (int k = 1; k <= 4; ++k) {
    const LinkRate* down = f.rate("agent-" + std::to_string(k), LinkDirection::kDown);
    REQUIRE(down);
    CHECK(down->method == RateMethod::kProbe);
    CHECK(down->bytesPerSecond == doctest::Approx(mbps(400)).epsilon(0.01));
  }
}

TEST_CASE("a downlink no set of peers can fill is a bound: the most the peers could send") {
  std::map<std::string, FluidNode> lab;
  lab[kCoordinatorNode] = {mbps(100), mbps(1000)};
  lab["agent-1"] = {mbps(50), mbps(1000)};
  lab["agent-2"] = {mbps(50), mbps(400)};
  FluidLab f(lab);
  f.run(2.0);
  const LinkRate* down = f.rate("agent-1", LinkDirection::kDown);
  REQUIRE(down);
  CHECK(down->bound());
  CHECK(down->bytesPerSecond == doctest::Approx(mbps(150)).epsilon(0.01));  // hnowd's 100 and agent-2's 50
  checkAgainstLab(f, "agent-2", LinkDirection::kDown);
}

TEST_CASE("random labs: every link within 1% of the lab or a bound below it - with two peers or more, a link they can fill by half again is measured") {
  std::mt19937 random(17);
  std::uniform_real_distribution<double> rate(10, 500);
  std::uniform_int_distribution<int> size(1, 10);
  for (int lab = 0; lab < 60; ++lab) {
    std::map<std::string, FluidNode> nodes;
    nodes[kCoordinatorNode] = {mbps(rate(random)), mbps(rate(random) * 4)};
    const int n = size(random);
    for (int k = 1; k <= n; ++k) nodes["agent-" + std::to_string(k)] = {mbps(rate(random)), mbps(rate(random))};
    FluidLab f(nodes);
    f.run(2.0);
    CAPTURE(lab);
    for (const auto& [name, truth] : nodes)
      for (LinkDirection d : {LinkDirection::kUp, LinkDirection::kDown}) {
        checkAgainstLab(f, name, d);
        // With at most 8 peers every other node takes part: what they can
        // send (receive) together against this link.
        double others = 0;
        for (const auto& [peer, p] : nodes)
          if (peer != name) others += d == LinkDirection::kDown ? p.up : p.down;
        const double real = d == LinkDirection::kUp ? truth.up : truth.down;
        if (nodes.size() >= 3 && nodes.size() <= 9 && others >= 1.5 * real) CHECK_FALSE(f.rate(name, d)->bound());
      }
  }
}

TEST_CASE("other traffic on a link does not lower its capacity: it is counted, and what is available is less") {
  auto lab = volunteerLab(4);
  lab["agent-2"].otherDown = std::numeric_limits<double>::infinity();  // iperf3 into agent-2
  lab["agent-3"].otherUp = mbps(20);                                    // a swarm seeding from agent-3
  FluidLab f(lab);
  f.run(2.0);
  for (const auto& [name, node] : lab)
    for (LinkDirection d : {LinkDirection::kUp, LinkDirection::kDown}) checkAgainstLab(f, name, d);
  CHECK_FALSE(f.rate("agent-2", LinkDirection::kDown)->bound());
  CHECK_FALSE(f.rate("agent-3", LinkDirection::kUp)->bound());
  // While it lasts, plans take what is left: at least half (a new flow's TCP share).
  const LinkBook& book = f.coordinator.links();
  CHECK(book.foreign({"agent-3", LinkDirection::kUp}) == doctest::Approx(mbps(20)).epsilon(0.05));
  CHECK(book.available({"agent-3", LinkDirection::kUp}) == doctest::Approx(mbps(20)).epsilon(0.05));
  CHECK(book.available({"agent-2", LinkDirection::kDown}) == doctest::Approx(mbps(200)).epsilon(0.01));
  CHECK(book.available({"agent-1", LinkDirection::kUp}) == doctest::Approx(mbps(100)).epsilon(0.01));  // no other traffic
  f.clock.advance(std::chrono::seconds(4));  // gone: nothing noted it again
  CHECK(book.available({"agent-3", LinkDirection::kUp}) == doctest::Approx(mbps(40)).epsilon(0.01));
}

TEST_CASE("a survey asked for while a send runs accounts for the send's traffic") {
  auto lab = volunteerLab(4);
  FluidLab f(lab);
  f.run(2.0);
  REQUIRE(f.reports.size() == 1);
  f.operation.moving_ = true;
  // The send: hnowd to agents 1 and 2, agent 1 relaying to 3 and 4.
  f.prober.background = {{kCoordinatorNode, "agent-1"}, {kCoordinatorNode, "agent-2"},
                         {"agent-1", "agent-3"}, {"agent-1", "agent-4"}};
  std::string result = "pending";
  f.runner.request({}, [&](const hnow::Result<void>& measured) { result = measured ? "" : measured.error().message; });
  f.run(2.0);
  CHECK(result == "");
  REQUIRE(f.reports.size() == 2);
  CHECK(f.reports[1].asked);
  for (const auto& [name, node] : lab)
    for (LinkDirection d : {LinkDirection::kUp, LinkDirection::kDown}) checkAgainstLab(f, name, d);
  CHECK(f.rate("agent-1", LinkDirection::kUp)->method == RateMethod::kProbe);
}

TEST_CASE("an automatic survey waits while an operation moves data, and gives way to one that starts") {
  FluidLab f(volunteerLab(4));
  f.operation.moving_ = true;
  f.run(3.0);
  CHECK(f.reports.empty());
  CHECK(f.prober.rounds == 0);
  f.operation.moving_ = false;
  // One round starts; the operation starts before the next.
  f.clock.advance(std::chrono::seconds(2));
  f.runner.tick();
  REQUIRE(f.prober.waiting());
  f.operation.moving_ = true;
  f.prober.answer();
  REQUIRE(f.reports.size() == 1);
  CHECK(f.reports[0].aborted);
  CHECK(f.rate("agent-1", LinkDirection::kDown) == nullptr);  // one round decides nothing
  f.operation.moving_ = false;
  f.run(2.0);
  REQUIRE(f.reports.size() == 2);
  CHECK_FALSE(f.reports[1].aborted);
  CHECK(f.rate("agent-1", LinkDirection::kDown) != nullptr);
}

TEST_CASE("agents that join later are measured against the peers already known - bounds are measured again once peers can fill them") {
  auto lab = volunteerLab(8);
  std::map<std::string, FluidNode> first;
  for (const char* name : {kCoordinatorNode, "agent-1", "agent-2", "agent-3", "agent-4"}) first[name] = lab[name];
  FluidLab f(first);
  f.run(2.0);
  // Four agents can send 320 to 380 Mbit/s into a 400 Mbit/s downlink: bounds.
  CHECK(f.rate("agent-1", LinkDirection::kDown)->bound());
  for (int k = 5; k <= 8; ++k) {
    const std::string name = "agent-" + std::to_string(k);
    f.lab[name] = lab[name];
    f.join(name, "lab");
    f.run(1.5);
    for (LinkDirection d : {LinkDirection::kUp, LinkDirection::kDown}) checkAgainstLab(f, name, d);
    CHECK(f.rate(name, LinkDirection::kUp)->method == RateMethod::kProbe);
  }
  f.run(5.0);
  for (int k = 1; k <= 8; ++k) {
    const std::string name = "agent-" + std::to_string(k);
    CHECK(f.rate(name, LinkDirection::kDown)->method == RateMethod::kProbe);
    checkAgainstLab(f, name, LinkDirection::kDown);
  }
  const std::size_t surveys = f.reports.size();
  f.run(10.0);
  CHECK(f.reports.size() == surveys);  // hnowd's downlink bound is not tried again in vain
}

TEST_CASE("a node that fails a round is left out of the rest, which measure without it - the survey says why") {
  FluidLab f(volunteerLab(2));
  f.prober.failing["agent-2"] = "this agent cannot probe";
  std::string result = "pending";
  f.runner.request({"agent-1"}, [&](const hnow::Result<void>& measured) { result = measured ? "" : measured.error().message; });
  f.run(0.5);
  REQUIRE(f.reports.size() == 1);
  CHECK_FALSE(f.reports[0].errors.empty());
  CHECK(f.reports[0].errors[0].find("agent-2: this agent cannot probe") != std::string::npos);
  CHECK(result == "");  // against hnowd alone
  REQUIRE(f.rate("agent-1", LinkDirection::kUp) != nullptr);
  f.prober.failing["agent-1"] = "this agent cannot probe either";
  f.runner.request({"agent-1"}, [&](const hnow::Result<void>& measured) { result = measured ? "" : measured.error().message; });
  f.run(0.5);
  CHECK(result.find("no probe round measured anything") != std::string::npos);
  std::string unknown;
  f.runner.request({"agent-9"}, [&](const hnow::Result<void>& measured) { unknown = measured ? "" : measured.error().message; });
  f.run(0.5);
  CHECK(unknown.find("no connected agent named 'agent-9'") != std::string::npos);
}

TEST_CASE("links an automatic survey could not measure are tried again a minute later, not at every tick") {
  FluidLab f(volunteerLab(3));
  f.prober.failing["agent-3"] = "this agent cannot probe";
  f.run(10.0);
  REQUIRE(f.reports.size() == 1);
  CHECK(f.rate("agent-3", LinkDirection::kDown) == nullptr);
  CHECK(f.rate("agent-1", LinkDirection::kDown) != nullptr);  // the rounds without agent-3 measured
  f.run(55.0);
  CHECK(f.reports.size() == 2);
  f.prober.failing.clear();
  f.run(65.0);
  CHECK(f.rate("agent-3", LinkDirection::kDown) != nullptr);
}

TEST_CASE("emulated links are taken as told and not surveyed - hnowd is not measured against them alone") {
  FluidLab f(volunteerLab(2));
  for (const char* name : {"agent-1", "agent-2"}) CHECK(f.coordinator.reportRates(f.join(name, "lab"), {}, {mbps(100), mbps(400)}));
  f.run(3.0);
  CHECK(f.reports.empty());
  CHECK(f.rate("agent-1", LinkDirection::kUp)->method == RateMethod::kEmulated);
  CHECK(f.rate(kCoordinatorNode, LinkDirection::kUp) == nullptr);
}

TEST_CASE("a survey that ran while hnowd paced its uplink leaves that uplink as it was, even when the send ended before the survey did") {
  auto lab = volunteerLab(4);
  FluidLab f(lab);
  f.run(2.0);
  const LinkId up{kCoordinatorNode, LinkDirection::kUp};
  REQUIRE(f.rate(kCoordinatorNode, LinkDirection::kUp));
  const double measured = f.rate(kCoordinatorNode, LinkDirection::kUp)->bytesPerSecond;
  // A send starts: hnowd paces its uplink, which then carries less.
  f.coordinator.pacing().paceSource(0);
  REQUIRE(f.coordinator.links().paced(up));
  f.lab[kCoordinatorNode].up = 0.8 * lab[kCoordinatorNode].up;
  f.runner.request({}, [](const hnow::Result<void>&) {});
  f.runner.tick();
  for (int round = 0; round < 4; ++round) {
    REQUIRE(f.prober.waiting());
    f.prober.answer();
  }
  // The send ends halfway through the survey: the pacing is lifted.
  CHECK(f.coordinator.pacing().sourceIdle());
  f.lab[kCoordinatorNode].up = lab[kCoordinatorNode].up;
  while (f.prober.waiting()) f.prober.answer();
  REQUIRE(f.reports.size() == 2);
  CHECK(f.rate(kCoordinatorNode, LinkDirection::kUp)->bytesPerSecond == measured);
  for (const SurveyFinding& finding : f.reports[1].findings) CHECK_FALSE(finding.link == up);
  // The agents' links were measured as usual.
  for (const auto& [name, node] : lab)
    if (name != kCoordinatorNode)
      for (LinkDirection d : {LinkDirection::kUp, LinkDirection::kDown}) checkAgainstLab(f, name, d);
}

TEST_CASE("a reading that falls under a known capacity is taken again - a node short of CPU once keeps its capacity, a slower link is confirmed") {
  std::map<std::string, FluidNode> lab;  // the downlinks are what the peers can fill
  lab[kCoordinatorNode] = {mbps(100), mbps(1000)};
  for (int k = 1; k <= 4; ++k) lab["agent-" + std::to_string(k)] = {mbps(200), mbps(400)};
  FluidLab f(lab);
  f.run(2.0);
  REQUIRE(f.reports.size() == 1);
  f.run(1.0);  // the rounds that look for rooms on the one subnet end
  const int firstRounds = f.prober.rounds;
  // agent-2 reads 12% short in its round, once: measured again, it keeps
  // what the link carries.
  f.prober.starveOnce["agent-2"] = 0.88;
  f.runner.request({"agent-2"}, [](const hnow::Result<void>&) {});
  f.run(1.0);
  REQUIRE(f.reports.size() == 2);
  CHECK(f.prober.starveOnce.empty());
  CHECK(f.prober.rounds == firstRounds + 3);  // its downlink, its uplink, the downlink again
  REQUIRE(f.reports[1].retaken.size() == 1);
  CHECK(f.reports[1].retaken[0].link == LinkId{"agent-2", LinkDirection::kDown});
  CHECK(f.reports[1].retaken[0].bytesPerSecond == doctest::Approx(0.88 * lab["agent-2"].down).epsilon(0.01));
  checkAgainstLab(f, "agent-2", LinkDirection::kDown);
  CHECK(f.rate("agent-2", LinkDirection::kDown)->method == RateMethod::kProbe);

  // The link itself slows by a fifth: both readings say so.
  f.lab["agent-2"].down = 0.8 * lab["agent-2"].down;
  f.runner.request({"agent-2"}, [](const hnow::Result<void>&) {});
  f.run(1.0);
  REQUIRE(f.reports.size() == 3);
  CHECK(f.reports[2].retaken.size() == 1);
  checkAgainstLab(f, "agent-2", LinkDirection::kDown);

  // Within the noise of TCP's readings (3% short): no second round.
  const int before = f.prober.rounds;
  f.prober.starveOnce["agent-2"] = 0.97;
  f.runner.request({"agent-2"}, [](const hnow::Result<void>&) {});
  f.run(1.0);
  REQUIRE(f.reports.size() == 4);
  CHECK(f.reports[3].retaken.empty());
  CHECK(f.prober.rounds == before + 2);
}

TEST_CASE("two rooms joined by a 100 Mbit/s trunk: once the agents' links are known, a survey of parallel flows measures the trunk each way") {
  FluidLab f(twoRoomsLab());
  f.prober.trunks["B"] = {mbps(100), mbps(100)};
  f.run(4.0);
  REQUIRE(f.reports.size() == 2);  // the agents' links, then the trunks
  for (int k = 1; k <= 8; ++k) checkAgainstLab(f, "agent-" + std::to_string(k), LinkDirection::kDown);
  for (LinkDirection d : {LinkDirection::kDown, LinkDirection::kUp}) {
    const LinkRate* trunk = f.coordinator.links().rate(trunkLink("B", d));
    REQUIRE(trunk);
    CHECK(trunk->method == RateMethod::kProbe);
    CHECK(trunk->bytesPerSecond == doctest::Approx(mbps(100)).epsilon(0.01));
  }
  // Seen from A, the one link between the rooms is A's trunk as well.
  const LinkRate* intoA = f.coordinator.links().rate(trunkLink("A", LinkDirection::kDown));
  REQUIRE(intoA);
  CHECK(intoA->bytesPerSecond == doctest::Approx(mbps(100)).epsilon(0.01));
  f.run(5.0);
  CHECK(f.reports.size() == 2);  // nothing left to measure
}

TEST_CASE("hnow measure of every node measures the trunks again after the links, and answers once both are done") {
  FluidLab f(twoRoomsLab());
  f.prober.trunks["B"] = {mbps(100), mbps(100)};
  f.run(4.0);
  REQUIRE(f.reports.size() == 2);
  // The trunk slows to 50 each way: nothing automatic measures it again.
  f.prober.trunks["B"] = {mbps(50), mbps(50)};
  std::optional<std::string> result;
  f.runner.request({}, [&](const hnow::Result<void>& measured) { result = measured ? "" : measured.error().message; });
  f.run(3.0);
  REQUIRE(result);
  CHECK(*result == "");
  REQUIRE(f.reports.size() == 4);  // the links asked for, then the trunks
  CHECK(f.reports[3].asked);
  for (LinkDirection d : {LinkDirection::kDown, LinkDirection::kUp})
    CHECK(f.coordinator.links().rate(trunkLink("B", d))->bytesPerSecond == doctest::Approx(mbps(50)).epsilon(0.01));
  // Measuring one agent leaves the trunks be.
  f.prober.trunks["B"] = {mbps(100), mbps(100)};
  result.reset();
  f.runner.request({"agent-5"}, [&](const hnow::Result<void>& measured) { result = measured ? "" : measured.error().message; });
  f.run(3.0);
  REQUIRE(result);
  CHECK(f.reports.size() == 5);
  CHECK(f.coordinator.links().rate(trunkLink("B", LinkDirection::kDown))->bytesPerSecond ==
        doctest::Approx(mbps(50)).epsilon(0.01));
}

TEST_CASE("a line of rooms A - B - C on B's router: A's and C's trunks measured, B's a bound of what they could send") {
  std::map<std::string, FluidNode> lab;
  lab[kCoordinatorNode] = {mbps(400), mbps(1000), 0, 0, "A"};
  const char* rooms[] = {"A", "A", "A", "B", "B", "B", "C", "C"};
  for (int k = 1; k <= 8; ++k) lab["agent-" + std::to_string(k)] = {mbps(400), mbps(400), 0, 0, rooms[k - 1]};
  FluidLab f(lab);
  f.prober.trunks["A"] = {mbps(100), mbps(100)};
  f.prober.trunks["C"] = {mbps(50), mbps(50)};
  f.run(5.0);
  for (LinkDirection d : {LinkDirection::kDown, LinkDirection::kUp}) {
    CAPTURE(directionName(d));
    const LinkRate* a = f.coordinator.links().rate(trunkLink("A", d));
    const LinkRate* b = f.coordinator.links().rate(trunkLink("B", d));
    const LinkRate* c = f.coordinator.links().rate(trunkLink("C", d));
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(c);
    CHECK_FALSE(a->bound());
    CHECK(a->bytesPerSecond == doctest::Approx(mbps(100)).epsilon(0.01));
    CHECK_FALSE(c->bound());
    CHECK(c->bytesPerSecond == doctest::Approx(mbps(50)).epsilon(0.01));
    CHECK(b->bound());
    CHECK(b->bytesPerSecond <= mbps(150) * 1.001);
  }
}

TEST_CASE("a trunk faster than the flows across it can fill is a bound, not a limit") {
  std::map<std::string, FluidNode> lab;
  lab[kCoordinatorNode] = {mbps(400), mbps(1000)};
  for (int k = 1; k <= 4; ++k) lab["agent-" + std::to_string(k)] = {mbps(100), mbps(100), 0, 0, k <= 2 ? "A" : "B"};
  FluidLab f(lab);
  f.prober.trunks["B"] = {mbps(1000), mbps(1000)};
  f.run(4.0);
  const LinkRate* trunk = f.coordinator.links().rate(trunkLink("B", LinkDirection::kDown));
  REQUIRE(trunk);
  CHECK(trunk->bound());
  CHECK(trunk->bytesPerSecond == doctest::Approx(mbps(200)).epsilon(0.01));
}

TEST_CASE("agents that pace their own links (hnow local) in two sites leave no trunk to measure") {
  std::map<std::string, FluidNode> lab;
  lab[kCoordinatorNode] = {mbps(400), mbps(1000)};
  for (int k = 1; k <= 4; ++k) lab["agent-" + std::to_string(k)] = {mbps(100), mbps(100), 0, 0, k <= 2 ? "A" : "B"};
  FluidLab f(lab);
  for (int k = 1; k <= 4; ++k)
    for (LinkDirection d : {LinkDirection::kDown, LinkDirection::kUp})
      f.coordinator.links().setFixed({"agent-" + std::to_string(k), d}, mbps(100), RateMethod::kEmulated);
  f.run(4.0);
  CHECK_FALSE(f.coordinator.links().rate(trunkLink("B", LinkDirection::kDown)));
}

TEST_CASE("two switches on one subnet, no labels: rounds between disjoint pairs find the rooms, then the trunk between them is measured") {
  std::map<std::string, FluidNode> lab;
  lab[kCoordinatorNode] = {mbps(400), mbps(400), 0, 0, "A"};
  for (int k = 1; k <= 8; ++k) lab["agent-" + std::to_string(k)] = {mbps(400), mbps(400), 0, 0, k <= 4 ? "A" : "B"};
  FluidLab f(lab, false);
  f.prober.trunks["B"] = {mbps(100), mbps(100)};
  f.run(8.0);
  const auto& rooms = f.coordinator.linkKnowledge().measuredRooms();
  REQUIRE(rooms.size() == 9);
  CHECK(rooms.at("agent-1") == rooms.at(kCoordinatorNode));
  CHECK(rooms.at("agent-5") != rooms.at("agent-1"));
  CHECK(rooms.at("agent-8") == rooms.at("agent-5"));
  const std::string far = rooms.at("agent-5");
  const LinkRate* in = f.coordinator.links().rate(trunkLink(far, LinkDirection::kDown));
  REQUIRE(in);
  CHECK(in->method == RateMethod::kProbe);
  CHECK(in->bytesPerSecond == doctest::Approx(mbps(100)).epsilon(0.01));
  // Decided: no more discovery rounds while the agents stay.
  const int rounds = f.prober.rounds;
  f.run(120.0);
  CHECK(f.prober.rounds == rounds);
}

TEST_CASE("one switch, no labels: the rounds find one room and are not run again") {
  FluidLab f(volunteerLab(4));
  f.run(4.0);
  CHECK(f.coordinator.linkKnowledge().measuredRooms().empty());
  const int rounds = f.prober.rounds;
  f.run(120.0);
  CHECK(f.prober.rounds == rounds);
}
