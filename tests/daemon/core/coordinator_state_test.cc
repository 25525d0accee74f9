// The coordinator's persistence through the StateStore interface, with an
// in-memory store standing in for state.db (no SQLite here).
#include <doctest/doctest.h>

#include "core/coordinator.h"
#include "daemon/core/memory_state_store.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;

namespace {

// Keeps the completion of each command so a test can answer it later.
struct PendingLink final : AgentLink {
  std::vector<Done>* pending;
  explicit PendingLink(std::vector<Done>* p) : pending(p) {}
  void setEmulatedRates(const EmulatedRates&, Done done) override { pending->push_back(done); }
  void probeNow() override {}
};

AgentRegistration agent(const std::string& name) {
  return AgentRegistration{name, "room-b", {"probe"}, "", {}};
}

hnow::planner::NodeRates uplink(double bytesPerSecond) {
  hnow::planner::NodeRates r;
  r.uplinkBytesPerSecond = bytesPerSecond;
  r.computeSecondsPerUnit = 0.01;
  return r;
}

}  // namespace

TEST_CASE("a restarted coordinator knows earlier agents, lost with their rates and age, until they register") {
  ManualClock clock;
  MemoryStateStore store;
  std::vector<AgentLink::Done> pending;
  {
    Coordinator first(clock, RateTableOptions{}, store);
    SessionId s = first.attach(agent("a"), std::make_unique<PendingLink>(&pending));
    CHECK(first.reportRates(s, uplink(2e6)));
    const LinkId up{"a", LinkDirection::kUp};
    first.links().applySurvey({{up, 2e6, true, 0.0, 1, 0.0}}, {up}, false);
    REQUIRE(first.persist().ok());
  }
  clock.advance(10s);
  Coordinator second(clock, RateTableOptions{}, store);
  REQUIRE(second.restore().ok());
  auto views = second.status();
  REQUIRE(views.size() == 1);
  CHECK(views[0].record.name == "a");
  CHECK(views[0].record.site == "room-b");
  CHECK(views[0].record.state == AgentState::kLost);
  CHECK_FALSE(views[0].connected);
  CHECK(views[0].links.up.rate.bytesPerSecond == 2e6);
  CHECK(views[0].record.rates.uplinkBytesPerSecond == doctest::Approx(kUplinkPacing * 2e6));  // planned as a send paces it
  CHECK(views[0].links.up.rate.method == RateMethod::kProbe);  // how it was measured, kept too
  CHECK(views[0].links.up.rate.at == clock.now() - 10s);
  CHECK(views[0].links.down.rate.method == RateMethod::kUnknown);
  REQUIRE(views[0].ratesAgeSeconds.has_value());
  CHECK(*views[0].ratesAgeSeconds == doctest::Approx(10.0));
  CHECK(second.tick().empty());  // already lost: no second "lost" event

  second.attach(agent("a"), std::make_unique<PendingLink>(&pending));
  auto events = second.tick();
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == RateEvent::Kind::kBack);
  CHECK(second.status()[0].links.up.rate.bytesPerSecond == 2e6);
}

TEST_CASE("a store that cannot write says why, keeps what changed pending, and writes it on the next try") {
  ManualClock clock;
  MemoryStateStore store;
  std::vector<AgentLink::Done> pending;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  SessionId s = coordinator.attach(agent("a"), std::make_unique<PendingLink>(&pending));
  CHECK(coordinator.reportRates(s, uplink(5e6)));
  store.failing = true;
  auto saved = coordinator.persist();
  REQUIRE_FALSE(saved.ok());
  CHECK(saved.error().message == "/mem/state.db: disk I/O error");
  CHECK(store.agents().empty());
  auto record = coordinator.operationLog().begin("send", "{}");
  REQUIRE_FALSE(record.ok());
  CHECK(record.error().message == "/mem/state.db: disk I/O error");

  store.failing = false;
  REQUIRE(coordinator.persist().ok());
  REQUIRE(store.agents().count("a") == 1);
  CHECK(store.agents().at("a").rates.uplinkBytesPerSecond == 5e6);
}

TEST_CASE("persist writes new rates at once but a heartbeat's last-seen only every 30 s") {
  ManualClock clock;
  MemoryStateStore store;
  std::vector<AgentLink::Done> pending;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  SessionId s = coordinator.attach(agent("a"), std::make_unique<PendingLink>(&pending));
  REQUIRE(coordinator.persist().ok());
  REQUIRE(store.agents().count("a") == 1);
  const WallTime registeredAt = store.agents().at("a").lastSeen;
  CHECK(registeredAt == clock.wallNow());
  CHECK_FALSE(store.agents().at("a").hasRates);

  for (int i = 0; i < 29; ++i) {
    clock.advance(1s);
    CHECK(coordinator.heartbeat(s));
    REQUIRE(coordinator.persist().ok());
  }
  CHECK(store.agents().at("a").lastSeen == registeredAt);
  clock.advance(1s);
  CHECK(coordinator.heartbeat(s));
  REQUIRE(coordinator.persist().ok());
  CHECK(store.agents().at("a").lastSeen == clock.wallNow());

  clock.advance(1s);
  CHECK(coordinator.reportRates(s, uplink(5e6)));
  REQUIRE(coordinator.persist().ok());
  CHECK(store.agents().at("a").hasRates);
  CHECK(store.agents().at("a").rates.uplinkBytesPerSecond == 5e6);
  CHECK(store.agents().at("a").ratesAt == clock.wallNow());
}

TEST_CASE("a set-rate is an operation record: running, then done or failed when the agent answers") {
  ManualClock clock;
  MemoryStateStore store;
  std::vector<AgentLink::Done> pending;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  coordinator.attach(agent("a"), std::make_unique<PendingLink>(&pending));
  REQUIRE(coordinator.setEmulatedRates("a", {40, 0, 0}).ok());
  REQUIRE(coordinator.setEmulatedRates("a", {80, 0, 0}).ok());
  auto records = coordinator.operations(10).value();
  REQUIRE(records.size() == 2);
  CHECK(records[0].id == 2);  // newest first
  CHECK(records[1].kind == "set-rate");
  CHECK(records[1].status == "running");
  CHECK_FALSE(records[1].finished.has_value());
  CHECK(records[1].started == clock.wallNow());

  clock.advance(2s);
  REQUIRE(pending.size() == 2);
  pending[0]({});
  pending[1](hnow::Error{"agent went away"});
  records = coordinator.operations(10).value();
  CHECK(records[1].status == "done");
  REQUIRE(records[1].finished.has_value());
  CHECK(*records[1].finished - records[1].started == 2s);
  CHECK(records[1].summary.rfind("{\"agent\":\"a\",\"uplink_mbps\":40", 0) == 0);
  CHECK(records[0].status == "failed");
  CHECK(records[0].summary.find("\"error\":\"agent went away\"}") != std::string::npos);
  CHECK(coordinator.operations(1)->size() == 1);
}

TEST_CASE("JSON strings in summaries escape quotes, backslashes and control characters") {
  CHECK(jsonString("plain-name_1.x") == "\"plain-name_1.x\"");
  CHECK(jsonString("a\"b\\c\nd\x01") == "\"a\\\"b\\\\c\\nd\\u0001\"");
}

TEST_CASE("a restarted coordinator marks the operations its predecessor left running as interrupted") {
  ManualClock clock;
  MemoryStateStore store;
  {
    Coordinator first(clock, {}, store);
    REQUIRE(first.restore().ok());
    first.operationLog().begin("send", "{}");
    OperationId finished = first.operationLog().begin("send", "{}").value();
    first.operationLog().finish(finished, "done", "{}");
  }
  Coordinator second(clock, {}, store);
  REQUIRE(second.restore().ok());
  CHECK(second.interruptedAtStart() == 1);
  auto records = second.operations(10).value();
  REQUIRE(records.size() == 2);
  CHECK(records[0].status == "done");
  CHECK(records[1].status == "interrupted");
  CHECK(records[1].finished.has_value());
}

TEST_CASE("a machine gone for good is forgotten with its rates and links, here and in the store - a connected one is not") {
  ManualClock clock;
  MemoryStateStore store;
  std::vector<AgentLink::Done> pending;
  Coordinator coordinator(clock, RateTableOptions{}, store);
  SessionId gone = coordinator.attach(agent("gone"), std::make_unique<PendingLink>(&pending));
  SessionId kept = coordinator.attach(agent("kept"), std::make_unique<PendingLink>(&pending));
  CHECK(coordinator.reportRates(gone, uplink(2e6)));
  CHECK(coordinator.reportRates(kept, uplink(3e6)));
  const LinkId up{"gone", LinkDirection::kUp};
  coordinator.links().applySurvey({{up, 2e6, true, 0.0, 1, 0.0}}, {up}, false);
  REQUIRE(coordinator.persist().ok());

  CHECK(coordinator.forget("gone").error().message ==
        "agent 'gone' is connected; stop its hnow-agent first, or it registers again");
  CHECK(coordinator.forget("nobody").error().message == "no agent named 'nobody' is known");
  coordinator.detach(gone);
  REQUIRE(coordinator.forget("gone").ok());
  auto views = coordinator.status();
  REQUIRE(views.size() == 1);
  CHECK(views[0].record.name == "kept");
  CHECK(coordinator.links().rate(up) == nullptr);
  CHECK(coordinator.operations(1).value()[0].kind == "forget");
  REQUIRE(coordinator.persist().ok());  // nothing of it written back

  Coordinator restarted(clock, RateTableOptions{}, store);
  REQUIRE(restarted.restore().ok());
  REQUIRE(restarted.status().size() == 1);
  CHECK(restarted.status()[0].record.name == "kept");
  CHECK(restarted.links().rate(up) == nullptr);
  (void)kept;
}
