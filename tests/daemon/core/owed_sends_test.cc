// OwedSends over SendService in memory: an --until-all send leaves the
// agents without a copy owed, and they get it once when they are back.
#include "core/send/owed_sends.h"
#include "daemon/core/send_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::send_lab;
using namespace std::chrono_literals;

namespace {

struct OwedLab : Lab {
  std::vector<SendRequest> started;  // the sends OwedSends started
  std::optional<std::uint64_t> lastId;
  OwedSends owed{coordinator, store, clock, [this](SendRequest request, auto answer) {
                   started.push_back(request);
                   service.start(request, [this, answer](const Result<std::pair<std::uint64_t, SendStatus>>& s) {
                     if (s) lastId = s->first;
                     answer(s ? Result<std::uint64_t>(s->first) : Result<std::uint64_t>(s.error()));
                   });
                 }};
  OwedLab() {
    service.onEnded([this](const SendEnd& end) { owed.ended(end); });
  }
  // a3 lost: the others keep beating until hnowd marks it.
  void loseA3() {
    coordinator.detach(sessions["a3"]);
    for (int i = 0; i < 4; ++i) {
      clock.advance(1s);
      for (const char* agent : {"a1", "a2"}) coordinator.heartbeat(sessions[agent]);
      coordinator.tick();
    }
  }
  void backA3() {
    AgentRegistration r{"a3", "room", {"relay"}, "a3:9000", {"/srv"}};
    sessions["a3"] = coordinator.attach(r, std::make_unique<FakeAgent>("a3", &agents));
    planner::NodeRates rates;
    rates.sendOverheadSeconds = rates.receiveOverheadSeconds = 1e-4;
    coordinator.reportRates(sessions["a3"], rates, {1e7, 1e7});
    clock.advance(250ms);
    for (const char* agent : {"a1", "a2", "a3"}) coordinator.heartbeat(sessions[agent]);
    coordinator.tick();
  }
  // An --until-all send to all while a3 is lost, done on a1 and a2: its id.
  std::uint64_t sendWithoutA3() {
    loseA3();
    SendRequest request = toAll();
    request.untilAll = true;
    auto answer = send_lab::started(*this, request);
    REQUIRE(answer);
    finish(std::string(32, 't'));
    return answer->first;
  }
  // Every receive order so far with `token` answered done by its agent.
  void finish(const std::string& token) {
    for (const auto& [agent, t] : agents.receives)
      if (t == token) coordinator.reportTransfer(sessions[agent], t, done());
  }
};

}  // namespace

TEST_CASE("an --until-all send leaves a lost agent owed, kept in state, and sends it once when it is connected again") {
  OwedLab lab;
  const std::uint64_t id = lab.sendWithoutA3();
  REQUIRE(lab.service.status(id)->finished);
  auto owed = lab.owed.owed();
  REQUIRE(owed.size() == 1);
  CHECK(owed[0].agents == std::vector<std::string>{"a3"});
  CHECK(owed[0].path == "/data/image.iso");
  const OperationId record = owed[0].id;
  REQUIRE(lab.store.loadOwedSends()->size() == 1);
  auto ops = lab.coordinator.operations(1).value();
  CHECK(ops[0].summary.find("\"until_all\":true,\"owed\":[\"a3\"]") != std::string::npos);

  // Still away: nothing is sent.
  lab.owed.tick();
  CHECK(lab.started.empty());

  lab.backA3();
  lab.owed.tick();
  REQUIRE(lab.started.size() == 1);
  CHECK(lab.started[0].to == std::vector<std::string>{"a3"});
  CHECK(lab.started[0].owedBy == record);
  CHECK(lab.started[0].dest == "in/image.iso");
  CHECK(lab.owed.owed()[0].sending);
  lab.owed.tick();  // one send at a time for an owed item
  CHECK(lab.started.size() == 1);

  REQUIRE(lab.lastId);
  lab.finish(lab.agents.receives.back().second);
  REQUIRE(lab.service.status(*lab.lastId)->finished);
  CHECK(lab.owed.owed().empty());
  CHECK(lab.store.loadOwedSends()->empty());
  ops = lab.coordinator.operations(1).value();
  CHECK(ops[0].summary.find("\"owed_by\":" + std::to_string(record)) != std::string::npos);
  lab.owed.tick();  // once: nothing more
  CHECK(lab.started.size() == 1);
}

TEST_CASE("a send without --until-all, or one every agent received, leaves nothing owed") {
  OwedLab lab;
  SendRequest request = lab.toAll();
  request.untilAll = true;
  REQUIRE(started(lab, request));
  lab.finish(std::string(32, 't'));
  CHECK(lab.owed.owed().empty());

  OwedLab other;
  other.loseA3();
  REQUIRE(started(other, other.toAll()));
  other.finish(std::string(32, 't'));
  CHECK(other.owed.owed().empty());
  CHECK(other.store.loadOwedSends()->empty());
}

TEST_CASE("what is owed survives a restart of hnowd, and an agent forgotten is owed nothing") {
  OwedLab lab;
  lab.loseA3();
  SendRequest request = lab.toAll();
  request.untilAll = true;
  request.path = "/data/course";
  request.copy.atomic = true;
  REQUIRE(started(lab, request));
  lab.finish(std::string(32, 't'));
  REQUIRE(lab.owed.owed().size() == 1);

  // A new OwedSends over the same state.db, as a restarted hnowd makes.
  OwedSends again(lab.coordinator, lab.store, lab.clock, [](SendRequest, auto) { FAIL("nothing to send"); });
  REQUIRE(again.restore());
  auto owed = again.owed();
  REQUIRE(owed.size() == 1);
  CHECK(owed[0].path == "/data/course");
  CHECK(owed[0].agents == std::vector<std::string>{"a3"});
  CHECK(lab.store.loadOwedSends()->at(0).atomic);

  REQUIRE(again.restore());  // restored twice: still one
  CHECK(again.owed().size() == 1);
  REQUIRE(lab.coordinator.forget("a3"));
  again.tick();
  CHECK(again.owed().empty());
  CHECK(lab.store.loadOwedSends()->empty());
}

TEST_CASE("an owed send that is refused is tried again 30 s later, not at every tick") {
  OwedLab lab;
  lab.loseA3();
  SendRequest request = lab.toAll();
  request.untilAll = true;
  REQUIRE(started(lab, request));
  lab.finish(std::string(32, 't'));
  lab.backA3();
  lab.agents.refusing.insert("a3");
  lab.owed.tick();
  REQUIRE(lab.started.size() == 1);
  CHECK_FALSE(lab.owed.owed()[0].sending);
  lab.clock.advance(10s);
  lab.owed.tick();
  CHECK(lab.started.size() == 1);
  lab.agents.refusing.clear();
  lab.clock.advance(21s);
  lab.owed.tick();
  CHECK(lab.started.size() == 2);
}

TEST_CASE("--until-all of a client's upload is refused: the upload is gone once its send ends") {
  OwedLab lab;
  SendRequest request = lab.toAll();
  request.untilAll = true;
  request.scratch = true;
  CHECK(refusalOf(lab, request).find("--until-all keeps a send owed") == 0);
  // hnowd's kept copy of the client's last upload of it: refused too.
  SendRequest kept = lab.toAll();
  kept.untilAll = true;
  kept.uploadedFrom = "/home/ana/image.bin";
  kept.uploadKey = "ana\nlaptop:/home/ana/image.bin";
  CHECK(refusalOf(lab, kept).find("--until-all keeps a send owed") == 0);
}

TEST_CASE("--until-all naming an agent that is off sends to the others and owes it, where a plain send is refused") {
  OwedLab lab;
  lab.loseA3();
  SendRequest request = lab.toAll();
  request.to = {"a1", "a3"};
  CHECK(refusalOf(lab, request).find("a3 cannot receive now") == 0);
  request.untilAll = true;
  auto answer = started(lab, request);
  REQUIRE(answer);
  REQUIRE(answer->second.copies.size() == 1);
  CHECK(answer->second.copies[0].node == "a1");
  lab.finish(std::string(32, 't'));
  REQUIRE(lab.owed.owed().size() == 1);
  CHECK(lab.owed.owed()[0].agents == std::vector<std::string>{"a3"});
}

TEST_CASE("--until-all when no agent it is for can receive owes it to all of them, says so, and keeps a record") {
  OwedLab lab;
  for (const char* agent : {"a1", "a2", "a3"}) lab.coordinator.detach(lab.sessions[agent]);
  for (int i = 0; i < 4; ++i) {
    lab.clock.advance(1s);
    lab.coordinator.tick();
  }
  SendRequest request = lab.toAll();
  CHECK(refusalOf(lab, request) == "no alive agent can receive");
  request.untilAll = true;
  const std::string refusal = refusalOf(lab, request);
  CHECK(refusal.find("no agent this send is for can receive now: a1 (lost") == 0);
  CHECK(refusal.find("it is owed to them (--until-all") != std::string::npos);
  REQUIRE(lab.owed.owed().size() == 1);
  CHECK(lab.owed.owed()[0].agents == std::vector<std::string>{"a1", "a2", "a3"});
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].status == "owed");
  CHECK(ops[0].summary.find("\"owed\":[\"a1\",\"a2\",\"a3\"]") != std::string::npos);
  CHECK(lab.agents.orders.empty());
}

TEST_CASE("--until-all to a site whose every agent is off owes it to them, beside the site that can receive") {
  OwedLab lab;
  lab.loseA3();
  // a3 alone in its own site: move it there as it comes back lost.
  lab.coordinator.detach(lab.sessions["a3"]);
  AgentRegistration r{"a3", "old-wing", {"relay"}, "a3:9000", {"/srv"}};
  lab.sessions["a3"] = lab.coordinator.attach(r, std::make_unique<FakeAgent>("a3", &lab.agents));
  lab.coordinator.detach(lab.sessions["a3"]);
  for (int i = 0; i < 4; ++i) {
    lab.clock.advance(1s);
    for (const char* agent : {"a1", "a2"}) lab.coordinator.heartbeat(lab.sessions[agent]);
    lab.coordinator.tick();
  }
  SendRequest request = lab.toAll();
  request.to = {"old-wing"};
  CHECK_FALSE(refusalOf(lab, request).empty());
  request.untilAll = true;
  CHECK(refusalOf(lab, request).find("no agent this send is for can receive now: a3") == 0);
  REQUIRE(lab.owed.owed().size() == 1);
  CHECK(lab.owed.owed()[0].agents == std::vector<std::string>{"a3"});

  request.to = {"room", "old-wing"};
  auto answer = started(lab, request);
  REQUIRE(answer);
  CHECK(answer->second.copies.size() == 2);
}

TEST_CASE("an owed agent that comes back holding the file already is settled by a send that moves nothing, and --force is kept for the next try") {
  OwedLab lab;
  lab.loseA3();
  SendRequest request = lab.toAll();
  request.untilAll = true;
  request.force = true;
  auto answer = started(lab, request);
  REQUIRE(answer);
  lab.finish(std::string(32, 't'));
  REQUIRE(lab.owed.owed().size() == 1);
  REQUIRE(lab.store.loadOwedSends()->size() == 1);
  CHECK(lab.store.loadOwedSends()->at(0).force);

  // a3 got the same bytes some other way while it was off.
  lab.agents.holding["a3"] = AgentLink::DestHolding::kSame;
  const std::size_t receives = lab.agents.receives.size();
  lab.backA3();
  lab.owed.tick();
  REQUIRE(lab.started.size() == 1);
  CHECK(lab.started[0].force);
  CHECK(lab.agents.receives.size() == receives);  // nothing ordered
  CHECK(lab.owed.owed().empty());
  CHECK(lab.store.loadOwedSends()->empty());
  auto ops = lab.coordinator.operations(1).value();
  CHECK(ops[0].status == "done");
  CHECK(ops[0].summary.find("\"held\":[\"a3\"]") != std::string::npos);
  CHECK(ops[0].summary.find("\"owed_by\":") != std::string::npos);
}

TEST_CASE("cancel of the record that owes copies drops what is owed, in state too, and an agent that comes back gets nothing") {
  OwedLab lab;
  lab.sendWithoutA3();
  REQUIRE(lab.owed.owed().size() == 1);
  const OperationId record = lab.owed.owed()[0].id;
  REQUIRE(lab.store.loadOwedSends()->size() == 1);

  CHECK_FALSE(lab.owed.cancel(record + 1, "alice"));
  auto dropped = lab.owed.cancel(record, "alice");
  REQUIRE(dropped);
  CHECK(*dropped == std::vector<std::string>{"a3"});
  CHECK(lab.owed.owed().empty());
  CHECK(lab.store.loadOwedSends()->empty());
  CHECK_FALSE(lab.owed.cancel(record, "alice"));

  lab.backA3();
  lab.owed.tick();
  CHECK(lab.started.empty());
}
