// ManifestService in memory: a manual clock, agents whose links
// answer at once and record the commands; no sockets.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "daemon/core/manifest_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;
using namespace hnow::daemon::manifest_lab;

TEST_CASE("a manifest starts every item along its plan and finishes when every copy is verified") {
  Lab lab;
  ManifestService service(lab.coordinator, lab.clock, 128 << 10, lab.tokens());
  auto [id, started] = startedOk(service, lab.twoItems());
  REQUIRE(started.items.size() == 2);
  CHECK(started.items[0].send.copies.size() == 3);  // "all" but the source
  CHECK(started.items[1].send.copies.size() == 2);
  // Every copy pulls from its parent's data address, once.
  std::vector<std::string> expected;
  for (const auto& item : started.items)
    for (const auto& c : item.send.copies) expected.push_back(c.node + "<-" + c.parent + ":9000");
  std::sort(expected.begin(), expected.end());
  std::sort(lab.commands.pulls.begin(), lab.commands.pulls.end());
  CHECK(lab.commands.pulls == expected);
  CHECK(started.predictedS > 0);
  CHECK(started.replans == 0);

  // A report goes to the operation that owns its token, and no other; one
  // on a token nobody holds is dropped.
  TransferReport ok = lab.done();
  lab.coordinator.claimToken("a send's token", &lab.sends);
  lab.coordinator.reportTransfer(lab.sessions["a3"], "a send's token", ok);
  lab.coordinator.reportTransfer(lab.sessions["a3"], "a token nobody holds", ok);
  CHECK(lab.sends.reports == std::vector<std::string>{"a3"});
  lab.clock.advance(2s);
  REQUIRE(lab.commands.receives.size() == 5);
  for (std::size_t i = 0; i + 1 < lab.commands.receives.size(); ++i) {
    const auto& [agent, token] = lab.commands.receives[i];
    lab.coordinator.reportTransfer(lab.sessions[agent], token, ok);
  }
  CHECK_FALSE(service.status(id)->finished);
  lab.clock.advance(1s);
  const auto& [agent, token] = lab.commands.receives.back();
  lab.coordinator.reportTransfer(lab.sessions[agent], token, ok);
  auto status = *service.status(id);
  CHECK(status.finished);
  CHECK(status.elapsedS == doctest::Approx(3.0));
  CHECK(lab.sends.reports == std::vector<std::string>{"a3"});  // the manifest's reports reached only it
  for (const auto& item : status.items)
    for (const auto& c : item.send.copies) CHECK(c.state == CopyStatus::State::kDone);
  CHECK(lab.commands.releases.size() == 7);  // each item's source and destinations
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].kind == "manifest");
  CHECK(ops[0].status == "done");
}

TEST_CASE("an agent lost before a manifest is listed as skipped by the items whose --to covers it, with when it was last heard") {
  Lab lab;
  lab.coordinator.detach(lab.sessions["a4"]);
  lab.coordinator.tick();
  for (int i = 0; i < 30; ++i) {  // the others keep beating
    lab.clock.advance(1s);
    for (const char* agent : {"a1", "a2", "a3"}) CHECK(lab.coordinator.heartbeat(lab.sessions[agent]));
    lab.coordinator.tick();
  }
  ManifestService service(lab.coordinator, lab.clock, 128 << 10, lab.tokens());
  ManifestRequest request = lab.twoItems();
  request.items[1].to = {"a3"};  // the second item does not cover a4
  auto [id, started] = startedOk(service, request);
  REQUIRE(started.items[0].send.skipped.size() == 1);
  CHECK(started.items[0].send.skipped[0].node == "a4");
  CHECK(started.items[0].send.skipped[0].why == "lost, last heard 30 s ago");
  CHECK(started.items[1].send.skipped.empty());
  CHECK(service.status(id)->items[0].send.skipped.size() == 1);
}

TEST_CASE("a lost destination fails its copies, and the SendService hears of the loss too") {
  Lab lab;
  ManifestService service(lab.coordinator, lab.clock, 128 << 10, lab.tokens());
  auto [id, started] = startedOk(service, lab.twoItems());
  lab.coordinator.detach(lab.sessions["a4"]);
  CHECK(std::count(lab.sends.gone.begin(), lab.sends.gone.end(), "a4") >= 1);
  auto status = *service.status(id);
  int failed = 0;
  for (const auto& item : status.items)
    for (const auto& c : item.send.copies)
      if (c.node == "a4") failed += c.state == CopyStatus::State::kFailed;
  CHECK(failed == 2);
}

TEST_CASE("a missing source file refuses the manifest before any receive, naming the item and the agent") {
  Lab lab;
  ManifestService service(lab.coordinator, lab.clock, 128 << 10, lab.tokens());
  ManifestRequest request = lab.twoItems();
  request.items[1].file = "nope.bin";
  auto refused = started(service, request);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message ==
        "refused: item at m.toml:6:1: a2 cannot serve nope.bin: cannot open nope.bin: No such file or directory");
  CHECK(lab.commands.pulls.empty());
  CHECK(std::count(lab.commands.releases.begin(), lab.commands.releases.end(), "a1") >= 1);  // a1 served x.bin
  request = lab.twoItems();
  request.items[0].to = {"nowhere"};
  refused = started(service, request);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message == "item at m.toml:1:1: no alive agent or site named 'nowhere'");
}

TEST_CASE("a lost source agent fails what its item had not delivered") {
  Lab lab;
  ManifestService service(lab.coordinator, lab.clock, 128 << 10, lab.tokens());
  auto [id, started] = startedOk(service, lab.twoItems());
  lab.coordinator.detach(lab.sessions["a2"]);
  auto status = *service.status(id);
  REQUIRE(status.items.size() == 2);
  for (const auto& c : status.items[1].send.copies) {
    CHECK(c.state == CopyStatus::State::kFailed);
    CHECK(c.message == "the source agent a2 was lost");
  }
  CHECK(status.items[1].send.finished);
  CHECK_FALSE(status.finished);  // item 1 still runs, without a2's copy
}

namespace {

// The first copy (item, node) that relays to another copy of its item.
std::pair<std::size_t, std::string> firstRelay(const ManifestStatus& s) {
  for (std::size_t i = 0; i < s.items.size(); ++i)
    for (const auto& c : s.items[i].send.copies)
      for (const auto& other : s.items[i].send.copies)
        if (other.parent == c.node) return {i, c.node};
  return {0, ""};
}

RateEvent uplinkCut(const std::string& agent) {
  return RateEvent{RateEvent::Kind::kDrift, agent, "uplink", 1e7, 1e6};
}

}  // namespace

TEST_CASE("a relay of a manifest item slowing 10x re-plans that item around it, counted in the manifest") {
  Lab lab;
  ManifestService service(lab.coordinator, lab.clock, 128 << 10, lab.tokens());
  auto [id, started] = startedOk(service, lab.twoItems());
  auto [item, relay] = firstRelay(started);
  REQUIRE_FALSE(relay.empty());
  lab.commands.pulls.clear();
  lab.clock.advance(100ms);
  hnow::planner::NodeRates slow;
  slow.uplinkBytesPerSecond = 1e6;
  slow.downlinkBytesPerSecond = 1e7;
  slow.sendOverheadSeconds = slow.receiveOverheadSeconds = 1e-4;
  service.ratesDrifted(uplinkCut(relay), slow);
  auto status = *service.status(id);
  CHECK(status.replans >= 1);
  CHECK(status.items[item].send.replans >= 1);
  CHECK_FALSE(lab.commands.pulls.empty());  // the moved copies pull from their new parents
  for (const auto& c : status.items[item].send.copies) CHECK(c.parent != relay);
}

TEST_CASE("with --no-replan a manifest keeps its trees when a relay slows") {
  Lab lab;
  ManifestService service(lab.coordinator, lab.clock, 128 << 10, lab.tokens());
  ManifestRequest request = lab.twoItems();
  request.replan = false;
  auto [id, started] = startedOk(service, request);
  auto [item, relay] = firstRelay(started);
  REQUIRE_FALSE(relay.empty());
  lab.commands.pulls.clear();
  hnow::planner::NodeRates slow;
  slow.uplinkBytesPerSecond = 1e6;
  slow.downlinkBytesPerSecond = 1e7;
  service.ratesDrifted(uplinkCut(relay), slow);
  auto status = *service.status(id);
  CHECK(status.replans == 0);
  CHECK(lab.commands.pulls.empty());
}

TEST_CASE("hnowd keeps the newest 32 finished manifests and forgets older ones when the next starts") {
  Lab lab;
  ManifestService service(lab.coordinator, lab.clock, 128 << 10, lab.tokens());
  const TransferReport ok = lab.done();
  std::vector<std::uint64_t> ids;
  for (int n = 0; n < 34; ++n) {
    lab.commands.receives.clear();
    auto [id, started] = startedOk(service, lab.twoItems());
    for (const auto& [agent, token] : lab.commands.receives) lab.coordinator.reportTransfer(lab.sessions[agent], token, ok);
    REQUIRE(service.status(id)->finished);
    ids.push_back(id);
  }
  // The 34th start found 33 finished and forgot the first; 33 are kept
  // until the next start, which forgets the second.
  CHECK_FALSE(service.status(ids[0]));
  CHECK(service.status(ids[1]));
  auto [next, started] = startedOk(service, lab.twoItems());
  CHECK_FALSE(service.status(ids[1]));
  for (std::size_t i = 2; i < ids.size(); ++i) CHECK(service.status(ids[i]));
  REQUIRE(service.status(next));
  CHECK_FALSE(service.status(next)->finished);
}

TEST_CASE("--max-rate plans a manifest as every link paced at it, paces each source and destination at it, and the record says so") {
  Lab free, capped;
  ManifestService freeService(free.coordinator, free.clock, 128 << 10, free.tokens());
  ManifestService cappedService(capped.coordinator, capped.clock, 128 << 10, capped.tokens());
  const auto [freeId, freeFirst] = startedOk(freeService, free.twoItems());
  // Emulated links are not paced for a send: nothing asks the agents to.
  for (double pace : free.commands.servePaces) CHECK(pace == 0.0);
  for (const auto& order : free.commands.orders) CHECK(order.uplinkPaceBytesPerSecond == 0.0);

  ManifestRequest request = capped.twoItems();
  request.maxRateBytesPerSecond = 2e6;  // 16 Mbit/s on links of 80
  const auto [id, first] = startedOk(cappedService, request);
  REQUIRE(capped.commands.servePaces.size() == 2);
  for (double pace : capped.commands.servePaces) CHECK(pace == 2e6);
  REQUIRE(capped.commands.orders.size() == 5);  // x.bin to a2, a3, a4; y.bin to a3, a4
  for (const auto& order : capped.commands.orders) {
    CHECK(order.uplinkPaceBytesPerSecond == 2e6);
    CHECK(order.downlinkPaceBytesPerSecond == 2e6);
  }
  // A fifth of the links' rate: the plan takes about five times as long.
  CHECK(first.predictedS > 4 * freeFirst.predictedS);
  auto ops = capped.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].summary.find("\"max_rate_bps\":16000000") != std::string::npos);
}

TEST_CASE("items whose dest is one path spelled apart (m/same.bin, m/./same.bin, m//same.bin, the absolute path) are refused naming both") {
  Lab lab;
  lab.commands.files["a2:x.bin"] = "1000000";
  ManifestService service(lab.coordinator, lab.clock, 128 << 10, lab.tokens());
  const std::vector<std::pair<std::string, std::string>> spellings{
      {"m/./same.bin", "m.toml:6:1 (as m/./same.bin)"},
      {"m//same.bin", "m.toml:6:1 (as m//same.bin)"},
      {"m/sub/../same.bin", ""},  // '..' is refused on its own
      {"/srv/m/same.bin", "m.toml:6:1 (as /srv/m/same.bin)"},  // the agents' data root is /srv
      {"./m/same.bin", "m.toml:6:1 (as ./m/same.bin)"}};
  for (const auto& [other, named] : spellings) {
    CAPTURE(other);
    ManifestRequest request{{{"a1", "x.bin", "m/same.bin", {"a3"}, "m.toml:1:1"}, {"a2", "x.bin", other, {"a3"}, "m.toml:6:1"}},
                            "auto"};
    auto refused = started(service, request);
    REQUIRE_FALSE(refused);
    if (named.empty()) {
      CHECK(refused.error().message.find("'..' is not allowed in dest") != std::string::npos);
      continue;
    }
    CHECK(refused.error().message ==
          "items at m.toml:1:1 (as m/same.bin) and " + named + " both write /srv/m/same.bin on a3");
  }
  CHECK(lab.commands.receives.empty());
  // Two paths that only look alike are two destinations.
  startedOk(service, {{{"a1", "x.bin", "m/same.bin", {"a3"}, "m.toml:1:1"}, {"a2", "x.bin", "m/same.bin2", {"a3"}, "m.toml:6:1"}},
                      "auto"});
}

TEST_CASE("a cancelled manifest releases every item on every agent, ends finished, and its record says cancelled and by whom") {
  Lab lab;
  ManifestService service(lab.coordinator, lab.clock, 128 << 10, lab.tokens());
  auto [id, first] = startedOk(service, lab.twoItems());
  REQUIRE(first.record != 0);
  CHECK_FALSE(first.finished);
  CHECK(service.cancel(first.record, "alice"));
  std::vector<std::string> released = lab.commands.releases;
  std::sort(released.begin(), released.end());
  // Item x: a1 serves, a2-a4 receive; item y: a2 serves, a3 and a4 receive.
  CHECK(released == std::vector<std::string>{"a1", "a2", "a2", "a3", "a3", "a4", "a4"});
  const ManifestStatus status = *service.status(id);
  CHECK(status.finished);
  CHECK(status.cancelledBy == "alice");
  const OperationRecord record = lab.coordinator.operations(1).value()[0];
  CHECK(record.id == first.record);
  CHECK(record.status == "cancelled");
  CHECK(record.summary.find("\"cancelled_by\":\"alice\"") != std::string::npos);
  CHECK_FALSE(service.cancel(first.record, "bob"));
  CHECK_FALSE(service.cancel(first.record + 1, "bob"));
}

namespace {

// Holds its receive answers until `answerAll`: a manifest still prepared.
struct SlowAgent final : AgentLink {
  SlowAgent(std::string n, Commands* c, std::vector<std::function<void()>>* w) : name(std::move(n)), commands(c), waiting(w) {}
  void setEmulatedRates(const EmulatedRates&, Done done) override { done({}); }
  void probeNow() override {}
  void serveFile(const std::string&, const std::string& file, double, ServeDone done) override {
    auto it = commands->files.find(name + ":" + file);
    if (it == commands->files.end()) return done(Error{"cannot open " + file});
    done(ServedFile{std::stoull(it->second), std::string(32, 'h')});
  }
  void receive(const ReceiveOrder& order, ReceiveDone done) override {
    commands->receives.emplace_back(name, order.token);
    waiting->push_back([done, path = "/srv/" + name + "/" + order.dest] { done(path); });
  }
  void pull(const std::string&, const std::string& parent) override { commands->pulls.push_back(name + "<-" + parent); }
  void release(const std::string&) override { commands->releases.push_back(name); }
  std::string name;
  Commands* commands;
  std::vector<std::function<void()>>* waiting;
};

}  // namespace

TEST_CASE("a manifest cancelled while its destinations open their receives never starts an item and releases them") {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator{clock, RateTableOptions{}, store};
  Commands commands;
  std::vector<std::function<void()>> waiting;
  for (const char* name : {"a1", "a2", "a3"}) {
    AgentRegistration r{name, "room", {"relay"}, std::string(name) + ":9000", {"/srv"}};
    SessionId s = coordinator.attach(r, std::make_unique<SlowAgent>(name, &commands, &waiting));
    hnow::planner::NodeRates rates;
    rates.sendOverheadSeconds = rates.receiveOverheadSeconds = 1e-4;
    coordinator.reportRates(s, rates, {1e7, 1e7});
  }
  commands.files["a1:x.bin"] = "1000000";
  ManifestService service(coordinator, clock, 128 << 10, [n = 0]() mutable { return std::string(31, 't') + static_cast<char>('a' + n++); });
  std::optional<Result<std::pair<std::uint64_t, ManifestStatus>>> answer;
  service.start({{{"a1", "x.bin", "in/x.bin", {"all"}, "m.toml:1:1"}}, "auto"},
                [&](const Result<std::pair<std::uint64_t, ManifestStatus>>& a) { answer = a; });
  CHECK_FALSE(answer);
  REQUIRE(waiting.size() == 2);  // a2 and a3 asked to receive
  const OperationRecord preparing = coordinator.operations(1).value()[0];
  CHECK(preparing.kind == "manifest");
  CHECK(preparing.status == "running");

  CHECK(service.cancel(preparing.id, "alice"));
  CHECK(coordinator.operations(1).value()[0].status == "cancelled");
  for (auto& w : std::exchange(waiting, {})) w();
  REQUIRE(answer);
  REQUIRE(*answer);
  CHECK((*answer)->second.finished);
  CHECK((*answer)->second.cancelledBy == "alice");
  CHECK(commands.pulls.empty());
  std::vector<std::string> released = commands.releases;
  std::sort(released.begin(), released.end());
  CHECK(released == std::vector<std::string>{"a1", "a2", "a3"});
  CHECK_FALSE(service.cancel(preparing.id, "bob"));
}
