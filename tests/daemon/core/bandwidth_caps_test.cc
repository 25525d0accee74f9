// Bandwidth caps in hnowd's core (docs/bandwidth-limits.md): the planner's
// rates, the paces in receive orders, hnowd's source pace, and --max-rate.
#include "base/bandwidth_limits.h"
#include "daemon/core/send_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::send_lab;

namespace {

// The caps at noon on a Monday of limits with these caps (Mbit/s) and entries.
CapsInForce capsOf(double upMbps, double downMbps, std::initializer_list<const char*> schedule = {}) {
  BandwidthLimits limits;
  limits.maxUplinkMbps = upMbps;
  limits.maxDownlinkMbps = downMbps;
  for (const char* entry : schedule) limits.schedule.push_back(parseScheduleWindow(entry).value());
  return capsAt(limits, {1, 12, 0, 0});
}

void measureUplink(Lab& lab, const std::string& agent, double bytesPerSecond) {
  const LinkId up{agent, LinkDirection::kUp};
  lab.coordinator.links().clearFixed(up);
  lab.coordinator.links().applySurvey({{up, bytesPerSecond, true, 0.0, 1, 0.0}}, {up}, false);
}

const AgentLink::ReceiveOrder& orderOf(const Lab& lab, const std::string& agent) {
  for (std::size_t i = 0; i < lab.agents.receives.size(); ++i)
    if (lab.agents.receives[i].first == agent) return lab.agents.orders[i];
  FAIL("no receive order for " << agent);
  return lab.agents.orders.front();
}

}  // namespace

TEST_CASE("an agent's caps bound the rates it is planned with and its pace, a percentage taken of its measured link") {
  Lab lab;  // emulated links of 10 MB/s each way
  CHECK(lab.coordinator.reportCaps(lab.sessions["a1"], capsOf(40, 0)));  // 5 MB/s up
  measureUplink(lab, "a2", 8e6);
  CHECK(lab.coordinator.reportCaps(lab.sessions["a2"], capsOf(0, 0, {"08:00-18:00 weekdays: 50% up"})));
  CHECK(lab.coordinator.reportCaps(lab.sessions["a3"], capsOf(0, 16)));  // 2 MB/s down

  CHECK(lab.coordinator.pacing().planningRates("a1").uplinkBytesPerSecond == doctest::Approx(5e6));
  CHECK(lab.coordinator.pacing().planningRates("a1").downlinkBytesPerSecond == doctest::Approx(1e7));
  CHECK(lab.coordinator.pacing().agentUplinkPace("a1") == doctest::Approx(5e6));  // emulated: paced only by the cap
  CHECK(lab.coordinator.pacing().planningRates("a2").uplinkBytesPerSecond == doctest::Approx(4e6));  // 50% of 8 MB/s
  CHECK(lab.coordinator.pacing().agentUplinkPace("a2") == doctest::Approx(4e6));
  CHECK(lab.coordinator.pacing().planningRates("a3").downlinkBytesPerSecond == doctest::Approx(2e6));
  CHECK(lab.coordinator.pacing().agentDownlinkPace("a3") == doctest::Approx(2e6));
  CHECK(lab.coordinator.pacing().agentUplinkPace("a3") == 0);

  std::map<std::string, NodeCaps> shown;
  for (const AgentView& v : lab.coordinator.status()) shown[v.record.name] = v.caps;
  CHECK(shown["a1"].up.by == "max_uplink_mbps");
  CHECK(shown["a1"].down.bytesPerSecond == 0);
  CHECK(shown["a1"].down.by.empty());
  CHECK(shown["a2"].up.by == "08:00-18:00 weekdays: 50% up");
  CHECK(shown["a3"].down.by == "max_downlink_mbps");
}

TEST_CASE("caps reported on a replaced session are refused, and a forgotten agent's caps go with it") {
  Lab lab;
  const SessionId old = lab.sessions["a1"];
  AgentRegistration again{"a1", "room", {"relay"}, "a1:9000", {"/srv"}};
  const SessionId now = lab.coordinator.attach(again, std::make_unique<FakeAgent>("a1", &lab.agents));
  CHECK_FALSE(lab.coordinator.reportCaps(old, capsOf(40, 0)));
  CHECK(lab.coordinator.pacing().capsOf("a1").up.bytesPerSecond == 0);
  CHECK(lab.coordinator.reportCaps(now, capsOf(40, 0)));
  CHECK(lab.coordinator.pacing().capsOf("a1").up.bytesPerSecond == doctest::Approx(5e6));
  lab.coordinator.detach(now);
  REQUIRE(lab.coordinator.forget("a1"));
  CHECK(lab.coordinator.pacing().capsOf("a1").up.bytesPerSecond == 0);
}

TEST_CASE("a send's receive orders carry each agent's capped paces, and readings of capped links are the pacing's while it runs") {
  Lab lab;
  CHECK(lab.coordinator.reportCaps(lab.sessions["a1"], capsOf(40, 16)));
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  CHECK(orderOf(lab, "a1").uplinkPaceBytesPerSecond == doctest::Approx(5e6));
  CHECK(orderOf(lab, "a1").downlinkPaceBytesPerSecond == doctest::Approx(2e6));
  for (const char* other : {"a2", "a3"}) {
    CHECK(orderOf(lab, other).uplinkPaceBytesPerSecond == 0);
    CHECK(orderOf(lab, other).downlinkPaceBytesPerSecond == 0);
  }
  CHECK(lab.coordinator.links().paced({"a1", LinkDirection::kUp}));
  CHECK(lab.coordinator.links().paced({"a1", LinkDirection::kDown}));
  CHECK_FALSE(lab.coordinator.links().paced({"a2", LinkDirection::kDown}));
  // a1 receives at 2 MB/s at most: 64 MiB take it at least 33 s.
  CHECK(answer->second.predictedS >= 0.99 * (64 << 20) / 2e6);
  lab.clock.advance(40s);
  for (const char* agent : {"a1", "a2", "a3"})
    lab.coordinator.reportTransfer(lab.sessions[agent], std::string(32, 't'), lab.done());
  CHECK_FALSE(lab.coordinator.moving());
  lab.coordinator.pacing().sourceIdle();
  CHECK_FALSE(lab.coordinator.links().paced({"a1", LinkDirection::kDown}));
}

TEST_CASE("hnowd's caps bound its uplink as a send's source in the plan and the pace, a percentage of uplink_mbps when not measured") {
  Lab lab;  // hnowd's uplink_mbps: 12.5 MB/s
  lab.coordinator.pacing().setCoordinatorCaps(capsOf(40, 0), 12.5e6);
  CHECK(lab.coordinator.pacing().sourceUplink(12.5e6).plan == doctest::Approx(5e6));
  CHECK(lab.coordinator.pacing().sourceUplink(12.5e6).pace == doctest::Approx(5e6));
  CHECK(lab.coordinator.pacing().coordinatorCaps().up.by == "max_uplink_mbps");
  lab.coordinator.pacing().setCoordinatorCaps(capsOf(0, 0, {"00:00-24:00: 20%"}), 12.5e6);
  CHECK(lab.coordinator.pacing().sourceUplink(12.5e6).pace == doctest::Approx(2.5e6));
  CHECK(lab.coordinator.pacing().coordinatorCaps().up.by == "00:00-24:00: 20%");
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  REQUIRE(lab.plane.paced.size() == 1);
  CHECK(lab.plane.paced[0] == doctest::Approx(2.5e6));
  // hnowd sends the file at least once at 2.5 MB/s.
  CHECK(answer->second.predictedS >= 0.99 * (64 << 20) / 2.5e6);
}

TEST_CASE("--max-rate bounds every link the send plans with, hnowd's source pace and every agent's paces, and the report states it") {
  Lab lab;
  auto uncapped = started(lab, lab.toAll());
  REQUIRE(uncapped);

  Lab capped;
  SendRequest request = capped.toAll();
  request.maxRateBytesPerSecond = 1e6;
  auto answer = started(capped, request);
  REQUIRE(answer);
  CHECK(answer->second.maxRateBytesPerSecond == doctest::Approx(1e6));
  CHECK(uncapped->second.maxRateBytesPerSecond == 0);
  REQUIRE(capped.plane.paced.size() == 1);
  CHECK(capped.plane.paced[0] == doctest::Approx(1e6));
  REQUIRE(capped.agents.orders.size() == 3);
  for (const auto& order : capped.agents.orders) {
    CHECK(order.uplinkPaceBytesPerSecond == doctest::Approx(1e6));
    CHECK(order.downlinkPaceBytesPerSecond == doctest::Approx(1e6));
  }
  CHECK(answer->second.predictedS >= 0.99 * (64 << 20) / 1e6);
  CHECK(uncapped->second.predictedS < answer->second.predictedS / 5);
}

TEST_CASE("a schedule window that begins while a send runs paces hnowd's uplink at the new cap, within the send's --max-rate") {
  Lab lab;  // hnowd's uplink_mbps: 12.5 MB/s
  lab.coordinator.pacing().setCoordinatorCaps(capsOf(0, 0), 12.5e6);
  lab.service.sourceCapsChanged();  // nothing runs: nothing paced
  CHECK(lab.plane.paced.empty());
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  REQUIRE(lab.plane.paced.size() == 1);
  const double before = lab.plane.paced[0];
  // 20% of 12.5 MB/s from now on.
  lab.coordinator.pacing().setCoordinatorCaps(capsOf(0, 0, {"00:00-24:00: 20%"}), 12.5e6);
  lab.service.sourceCapsChanged();
  REQUIRE(lab.plane.paced.size() == 2);
  CHECK(lab.plane.paced[1] == doctest::Approx(2.5e6));
  CHECK(lab.plane.paced[1] < before);

  // A send whose --max-rate is below the new cap keeps its own rate.
  Lab slow;
  slow.coordinator.pacing().setCoordinatorCaps(capsOf(0, 0), 12.5e6);
  SendRequest request = slow.toAll();
  request.maxRateBytesPerSecond = 1e6;
  REQUIRE(started(slow, request));
  slow.coordinator.pacing().setCoordinatorCaps(capsOf(0, 0, {"00:00-24:00: 20%"}), 12.5e6);
  slow.service.sourceCapsChanged();
  REQUIRE(slow.plane.paced.size() == 2);
  CHECK(slow.plane.paced[1] == doctest::Approx(1e6));
}
