#include <doctest/doctest.h>

#include "core/coordinator.h"
#include "daemon/core/memory_state_store.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;

namespace {

// Records the commands hnowd sends, instead of sending them.
struct RecordingLink final : AgentLink {
  std::vector<EmulatedRates>* sent;
  explicit RecordingLink(std::vector<EmulatedRates>* s) : sent(s) {}
  void setEmulatedRates(const EmulatedRates& rates, Done done) override {
    sent->push_back(rates);
    done({});
  }
  void probeNow() override {}
};

AgentRegistration agent(const std::string& name) {
  return AgentRegistration{name, "room-a", {"probe"}, "", {"/srv/files"}};
}

const AgentView* viewOf(const std::vector<AgentView>& views, const std::string& name) {
  for (const auto& v : views)
    if (v.record.name == name) return &v;
  return nullptr;
}

}  // namespace

TEST_CASE("a registered agent is alive, and lost at the next tick once its connection ends") {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  std::vector<EmulatedRates> sent;
  SessionId s = coordinator.attach(agent("a"), std::make_unique<RecordingLink>(&sent));
  CHECK(coordinator.heartbeat(s));
  CHECK(coordinator.tick().empty());
  coordinator.detach(s);
  auto events = coordinator.tick();  // no time passed: the disconnect alone is enough
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == RateEvent::Kind::kLost);
  CHECK(coordinator.status()[0].record.state == AgentState::kLost);
  CHECK_FALSE(coordinator.heartbeat(s));
  CHECK(coordinator.connectedCount() == 0);
}

TEST_CASE("the end of an agent's old connection does not touch the session that replaced it") {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  std::vector<EmulatedRates> sent;
  SessionId old = coordinator.attach(agent("a"), std::make_unique<RecordingLink>(&sent));
  SessionId fresh = coordinator.attach(agent("a"), std::make_unique<RecordingLink>(&sent));
  CHECK(old != fresh);
  coordinator.detach(old);
  CHECK(coordinator.tick().empty());
  CHECK(coordinator.status()[0].record.state == AgentState::kAlive);
  CHECK_FALSE(coordinator.heartbeat(old));
  CHECK(coordinator.heartbeat(fresh));
  CHECK(coordinator.connectedCount() == 1);
}

TEST_CASE("each login of an agent counts, even one that replaces a session never seen to end") {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  std::vector<EmulatedRates> sent;
  CHECK(coordinator.logins("a") == 0);
  SessionId first = coordinator.attach(agent("a"), std::make_unique<RecordingLink>(&sent));
  coordinator.attach(agent("b"), std::make_unique<RecordingLink>(&sent));
  CHECK(viewOf(coordinator.status(), "a")->logins == 1);
  coordinator.attach(agent("a"), std::make_unique<RecordingLink>(&sent));  // connected all along
  CHECK(viewOf(coordinator.status(), "a")->logins == 2);
  CHECK(viewOf(coordinator.status(), "a")->connected);
  coordinator.detach(first);  // the replaced session's end: no login
  coordinator.detach(coordinator.attach(agent("a"), std::make_unique<RecordingLink>(&sent)));
  CHECK(viewOf(coordinator.status(), "a")->logins == 3);
  CHECK(coordinator.logins("a") == 3);
  CHECK(viewOf(coordinator.status(), "b")->logins == 1);
}

TEST_CASE("an agent that reconnects after being lost is back, with the rates it had") {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  std::vector<EmulatedRates> sent;
  SessionId s = coordinator.attach(agent("a"), std::make_unique<RecordingLink>(&sent));
  CHECK(coordinator.reportRates(s, {}, {1e6, 0}));
  clock.advance(3500ms);  // silent past lostAfter
  REQUIRE(coordinator.tick().size() == 1);
  coordinator.attach(agent("a"), std::make_unique<RecordingLink>(&sent));
  auto events = coordinator.tick();
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == RateEvent::Kind::kBack);
  auto view = coordinator.status();
  CHECK(view[0].record.rates.uplinkBytesPerSecond == 1e6);
  REQUIRE(view[0].ratesAgeSeconds.has_value());
  CHECK(*view[0].ratesAgeSeconds == doctest::Approx(3.5));
}

TEST_CASE("status shows registration details, and no rate age before the first report") {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  std::vector<EmulatedRates> sent;
  coordinator.attach(agent("b"), std::make_unique<RecordingLink>(&sent));
  coordinator.attach(agent("a"), std::make_unique<RecordingLink>(&sent));
  auto views = coordinator.status();
  REQUIRE(views.size() == 2);
  const AgentView* b = viewOf(views, "b");
  REQUIRE(b);
  CHECK(b->registration.roots == std::vector<std::string>{"/srv/files"});
  CHECK(b->registration.site == "room-a");
  CHECK(b->connected);
  CHECK_FALSE(b->ratesAgeSeconds.has_value());
}

TEST_CASE("set-rate reaches a connected agent and explains why not otherwise") {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  std::vector<EmulatedRates> sent;
  SessionId s = coordinator.attach(agent("a"), std::make_unique<RecordingLink>(&sent));
  CHECK(coordinator.setEmulatedRates("a", {50, 0, 0}).ok());
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].uplinkMbps == 50);
  CHECK(coordinator.setEmulatedRates("ghost", {50, 0, 0}).error().message.find("no agent named") != std::string::npos);
  coordinator.detach(s);
  CHECK(coordinator.setEmulatedRates("a", {50, 0, 0}).error().message.find("not connected") != std::string::npos);
  CHECK(sent.size() == 1);
}

namespace {

// What reaches the sends: drift events with the agent's rates now.
struct RecordingObserver final : TransferObserver {
  std::vector<std::pair<RateEvent, hnow::planner::NodeRates>> drifts;
  std::vector<std::string> gone;
  void transferReport(const std::string&, const std::string&, const TransferReport&) override {}
  void agentGone(const std::string& agent) override { gone.push_back(agent); }
  void ratesDrifted(const RateEvent& event, const hnow::planner::NodeRates& rates) override {
    drifts.emplace_back(event, rates);
  }
};

}  // namespace

TEST_CASE("a link's capacity change beyond the threshold reaches the running sends at the next tick, with the planning rates") {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  RecordingObserver observer;
  coordinator.addTransferObserver(&observer);
  std::vector<EmulatedRates> sent;
  SessionId s = coordinator.attach(agent("a"), std::make_unique<RecordingLink>(&sent));
  REQUIRE(coordinator.reportRates(s, {}, {100e6, 100e6}));
  coordinator.tick();  // the baseline
  REQUIRE(coordinator.reportRates(s, {}, {80e6, 100e6}));  // 20%: within the threshold
  coordinator.tick();
  CHECK(observer.drifts.empty());
  REQUIRE(coordinator.reportRates(s, {}, {10e6, 100e6}));  // set-rate: the pacing is exact, no dwell
  coordinator.tick();
  REQUIRE(observer.drifts.size() == 1);
  CHECK(observer.drifts[0].first.agent == "a");
  CHECK(observer.drifts[0].first.rate == "uplink");
  CHECK(observer.drifts[0].first.before == doctest::Approx(100e6));
  CHECK(observer.drifts[0].second.uplinkBytesPerSecond == doctest::Approx(10e6));
  CHECK(observer.gone.empty());
  coordinator.removeTransferObserver(&observer);
}

TEST_CASE("hnowd's own links drift too: a send's source is node hnowd") {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  RecordingObserver observer;
  coordinator.addTransferObserver(&observer);
  const LinkId up{kCoordinatorNode, LinkDirection::kUp};
  coordinator.links().setFixed(up, 50e6, RateMethod::kConfigured);
  coordinator.tick();
  coordinator.links().applySurvey({{up, 10e6, true, 0.0, 1, 0.0}}, {up}, false);  // fixed: not moved
  coordinator.tick();
  CHECK(observer.drifts.empty());
  CHECK(coordinator.coordinatorLinks().up.rate.method == RateMethod::kConfigured);
  coordinator.links().setFixed(up, 20e6, RateMethod::kConfigured);
  coordinator.tick();
  REQUIRE(observer.drifts.size() == 1);
  CHECK(observer.drifts[0].first.agent == kCoordinatorNode);
  CHECK(observer.drifts[0].second.uplinkBytesPerSecond == doctest::Approx(20e6));
  coordinator.removeTransferObserver(&observer);
}

TEST_CASE("an agent's measured uplink is planned and paced a little under its capacity during a send - emulated links and bounds are not") {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  std::vector<EmulatedRates> sent;
  SessionId measured = coordinator.attach(agent("m"), std::make_unique<RecordingLink>(&sent));
  SessionId emulated = coordinator.attach(agent("e"), std::make_unique<RecordingLink>(&sent));
  SessionId bounded = coordinator.attach(agent("b"), std::make_unique<RecordingLink>(&sent));
  planner::NodeRates rates;
  CHECK(coordinator.reportRates(measured, rates));
  CHECK(coordinator.reportRates(emulated, rates, {30e6, 60e6}));  // paced by the agent itself
  CHECK(coordinator.reportRates(bounded, rates));
  const LinkId up{"m", LinkDirection::kUp}, boundUp{"b", LinkDirection::kUp};
  coordinator.links().applySurvey({{up, 40e6, true, 0.0, 1, 0.0}, {boundUp, 50e6, false, 0.0, 0, 0.0}}, {up, boundUp},
                                  false);
  CHECK(coordinator.pacing().planningRates("m").uplinkBytesPerSecond == doctest::Approx(kUplinkPacing * 40e6));
  CHECK(coordinator.pacing().planningRates("e").uplinkBytesPerSecond == 30e6);
  CHECK(coordinator.pacing().planningRates("b").uplinkBytesPerSecond == 50e6);
  CHECK(coordinator.pacing().agentUplinkPace("m") == doctest::Approx(kUplinkPacing * 40e6));
  CHECK(coordinator.pacing().agentUplinkPace("e") == 0);
  CHECK(coordinator.pacing().agentUplinkPace("b") == 0);
  CHECK(coordinator.pacing().agentUplinkPace("nobody") == 0);
  CHECK_FALSE(coordinator.links().paced(up));  // until the send runs
  coordinator.pacing().paceAgentUplinks({"m", "e", "b", "nobody"});
  CHECK(coordinator.links().paced(up));
  CHECK_FALSE(coordinator.links().paced(boundUp));
  // hnowd's own uplink was not paced: false, but the agents' paces end too.
  CHECK_FALSE(coordinator.pacing().sourceIdle());
  CHECK_FALSE(coordinator.links().paced(up));
}

TEST_CASE("hnowd's uplink as a source: configured, paced a little under a measured capacity, unpaced at a bound, and left alone by readings while paced") {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  const LinkId up{kCoordinatorNode, LinkDirection::kUp};
  CHECK(coordinator.pacing().sourceUplink(50e6).plan == 50e6);
  CHECK(coordinator.pacing().sourceUplink(50e6).pace == 50e6);
  coordinator.links().applySurvey({{up, 24e6, true, 0.0, 1, 0.0}}, {up}, false);
  SourceUplink source = coordinator.pacing().paceSource(0);
  CHECK(source.pace == doctest::Approx(kUplinkPacing * 24e6));
  CHECK(source.plan == source.pace);  // planned as it will be paced
  // While paced, what hnowd's uplink carries is its pacing: no reading counts.
  coordinator.links().observe({{up, kUplinkPacing * 24e6 * 0.9, true, 0.0}});
  CHECK(coordinator.links().rate(up)->bytesPerSecond == 24e6);
  CHECK(coordinator.links().samples(up) == 1);
  CHECK(coordinator.pacing().sourceIdle());
  CHECK_FALSE(coordinator.pacing().sourceIdle());
  coordinator.links().observe({{up, 23e6, true, 0.0}});
  CHECK(coordinator.links().samples(up) == 2);
  coordinator.links().applySurvey({{up, 30e6, false, 0.0, 0, 0.0}}, {up}, false);  // a bound
  CHECK(coordinator.pacing().paceSource(0).pace == 0);
  CHECK_FALSE(coordinator.pacing().sourceIdle());
}

namespace {

// What the operations hear of agents' losses and fresh logins, in order.
// The agent's link when it is back afresh: the one to order it again on.
struct HeardLogins final : TransferObserver {
  explicit HeardLogins(Coordinator& c) : coordinator(c) {}
  Coordinator& coordinator;
  std::vector<std::string> heard;
  std::vector<AgentLink*> links;
  void transferReport(const std::string&, const std::string&, const TransferReport&) override {}
  void agentGone(const std::string& agent) override { heard.push_back("gone " + agent); }
  void agentBackAfresh(const std::string& agent) override {
    heard.push_back("afresh " + agent);
    links.push_back(coordinator.link(agent));
  }
};

}  // namespace

TEST_CASE("an agent logging in afresh over a session hnowd still holds is gone at once, and back afresh at its first call on the new session, for every observer - one keeping its transfers for this hnowd is neither") {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  HeardLogins first(coordinator), second(coordinator);
  coordinator.addTransferObserver(&first);
  coordinator.addTransferObserver(&second);
  std::vector<EmulatedRates> sent;
  SessionId old = coordinator.attach(agent("a"), std::make_unique<RecordingLink>(&sent));
  CHECK(first.heard.empty());
  CHECK(coordinator.heartbeat(old));
  CHECK(first.heard == std::vector<std::string>{"afresh a"});  // a first login holds nothing either
  CHECK(coordinator.heartbeat(old));
  CHECK(first.heard.size() == 1);  // once
  first.heard.clear();
  second.heard.clear();

  AgentRegistration keeping = agent("a");
  keeping.keptInstance = coordinator.instance();
  const SessionId kept = coordinator.attach(keeping, std::make_unique<RecordingLink>(&sent));
  CHECK(coordinator.heartbeat(kept));
  CHECK(first.heard.empty());  // the same process: what it ran goes on

  auto link = std::make_unique<RecordingLink>(&sent);
  const AgentLink* newLink = link.get();
  SessionId fresh = coordinator.attach(agent("a"), std::move(link));
  CHECK(first.heard == std::vector<std::string>{"gone a"});
  CHECK_FALSE(coordinator.heartbeat(old));  // the replaced session's call counts for nothing
  CHECK(first.heard.size() == 1);
  CHECK(coordinator.reportCaps(fresh, {}));
  CHECK(first.heard == std::vector<std::string>{"gone a", "afresh a"});
  CHECK(second.heard == first.heard);
  REQUIRE(first.links.size() == 2);
  CHECK(first.links.back() == newLink);  // the link to order it on
  coordinator.detach(old);  // a stale session: nothing more
  CHECK(first.heard.size() == 2);

  AgentRegistration otherInstance = agent("a");
  otherInstance.keptInstance = coordinator.instance() + 2;  // what it kept is an earlier hnowd's
  coordinator.detach(fresh);
  first.heard.clear();
  const SessionId back = coordinator.attach(otherInstance, std::make_unique<RecordingLink>(&sent));
  CHECK(first.heard.empty());  // its loss was heard when its connection ended
  CHECK(coordinator.reportRates(back, {}, {1e6, 0}));
  CHECK(first.heard == std::vector<std::string>{"afresh a"});
  coordinator.removeTransferObserver(&first);
  coordinator.removeTransferObserver(&second);
}
