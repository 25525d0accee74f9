// Every field of `hnow status` and `hnow ops` survives hnowd's writing and
// the CLI's reading: each is set to a value other than its default, so a
// field one side forgets fails here.
#include <doctest/doctest.h>

#include <capnp/message.h>

#include "api/coordinator_status_wire.h"

using namespace hnow::api;

namespace {

LinkRate link(double bytesPerSecond) {
  LinkRate l;
  l.bytesPerSecond = bytesPerSecond;
  l.method = "probe";
  l.ageSeconds = 4.5;
  l.spread = 0.125;
  l.samples = 3;
  l.otherTraffic = 1e5;
  l.available = bytesPerSecond / 2;
  l.told = 7e6;
  return l;
}

void checkSame(const LinkRate& a, const LinkRate& b) {
  CHECK(a.bytesPerSecond == b.bytesPerSecond);
  CHECK(a.method == b.method);
  CHECK(a.ageSeconds == b.ageSeconds);
  CHECK(a.spread == b.spread);
  CHECK(a.samples == b.samples);
  CHECK(a.otherTraffic == b.otherTraffic);
  CHECK(a.available == b.available);
  CHECK(a.told == b.told);
}

AgentStatus agent() {
  AgentStatus a;
  a.name = "agent-1";
  a.site = "rack-a";
  a.alive = true;
  a.ratesAgeSeconds = 2.5;
  a.rates = {1.25e7, 2.5e7, 0.002, 0.003, 0.001};
  a.roots = {"/data", "/scratch"};
  a.capabilities = {"zstd", "tree"};
  a.dataAddress = "127.0.0.2:7000";
  a.uplink = link(1.2e7);
  a.downlink = link(2.4e7);
  a.uplinkCap = {5e6, "max_uplink_mbps"};
  a.downlinkCap = {6e6, "night"};
  a.relayFaults = 2;
  a.unreachable = "connection refused from agent-2";
  a.networks = {"10.1.2.3/26"};
  a.gateway = "10.1.2.1";
  a.keyHosts = {"10.0.0.5", "10.0.0.6"};
  a.keyHostsChanges = 4;
  a.keyHostsAgeSeconds = 30.5;
  return a;
}

}  // namespace

TEST_CASE("hnowd's status reads back as it was written: hnowd, agents, rooms, machines, owed sends, sends waiting to run again") {
  CoordinatorStatus sent;
  sent.agents = {agent()};
  AgentStatus lost;
  lost.name = "agent-2";
  sent.agents.push_back(lost);
  sent.rooms = {{"rack-a", 3, "site labels", link(1e8), link(2e8)}};
  sent.hosts = {{"host-key", 2, link(3e8)}};
  sent.uplink = link(4e7);
  sent.downlink = link(5e7);
  sent.uplinkCap = {1e6, "max_uplink_mbps"};
  sent.downlinkCap = {2e6, "max_downlink_mbps"};
  sent.surveying = true;
  sent.owed = {{17, "/srv/a", "in/a", {"agent-2", "agent-3"}, 1700000000000, true}};
  sent.waiting = {{21, "/srv/b", "in/b", {"agent-1", "agent-2"}, {"agent-2"}, 6.5}};
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::ClientSession::StatusResults>();
  toWire(sent, out);
  const CoordinatorStatus back = coordinatorStatusFromWire(out.asReader());
  checkSame(back.uplink, sent.uplink);
  checkSame(back.downlink, sent.downlink);
  CHECK(back.uplinkCap.bytesPerSecond == 1e6);
  CHECK(back.uplinkCap.by == "max_uplink_mbps");
  CHECK(back.downlinkCap.bytesPerSecond == 2e6);
  CHECK(back.downlinkCap.by == "max_downlink_mbps");
  CHECK(back.surveying);
  REQUIRE(back.rooms.size() == 1);
  CHECK(back.rooms[0].name == "rack-a");
  CHECK(back.rooms[0].agents == 3);
  CHECK(back.rooms[0].foundBy == "site labels");
  checkSame(back.rooms[0].in, sent.rooms[0].in);
  checkSame(back.rooms[0].out, sent.rooms[0].out);
  REQUIRE(back.hosts.size() == 1);
  CHECK(back.hosts[0].key == "host-key");
  CHECK(back.hosts[0].agents == 2);
  checkSame(back.hosts[0].intake, sent.hosts[0].intake);
  REQUIRE(back.owed.size() == 1);
  CHECK(back.owed[0].record == 17);
  CHECK(back.owed[0].path == "/srv/a");
  CHECK(back.owed[0].dest == "in/a");
  CHECK(back.owed[0].agents == sent.owed[0].agents);
  CHECK(back.owed[0].sinceUnixMs == 1700000000000);
  CHECK(back.owed[0].sending);
  REQUIRE(back.waiting.size() == 1);
  CHECK(back.waiting[0].record == 21);
  CHECK(back.waiting[0].path == "/srv/b");
  CHECK(back.waiting[0].dest == "in/b");
  CHECK(back.waiting[0].agents == sent.waiting[0].agents);
  CHECK(back.waiting[0].away == sent.waiting[0].away);
  CHECK(back.waiting[0].secondsLeft == 6.5);
  REQUIRE(back.agents.size() == 2);
  const AgentStatus& a = back.agents[0];
  const AgentStatus& s = sent.agents[0];
  CHECK(a.name == s.name);
  CHECK(a.site == s.site);
  CHECK(a.alive);
  REQUIRE(a.ratesAgeSeconds);
  CHECK(*a.ratesAgeSeconds == 2.5);
  CHECK(a.rates.uplinkBytesPerSecond == s.rates.uplinkBytesPerSecond);
  CHECK(a.rates.downlinkBytesPerSecond == s.rates.downlinkBytesPerSecond);
  CHECK(a.rates.sendOverheadSeconds == s.rates.sendOverheadSeconds);
  CHECK(a.rates.receiveOverheadSeconds == s.rates.receiveOverheadSeconds);
  CHECK(a.rates.computeSecondsPerUnit == s.rates.computeSecondsPerUnit);
  CHECK(a.roots == s.roots);
  CHECK(a.capabilities == s.capabilities);
  CHECK(a.dataAddress == s.dataAddress);
  checkSame(a.uplink, s.uplink);
  checkSame(a.downlink, s.downlink);
  CHECK(a.uplinkCap.bytesPerSecond == s.uplinkCap.bytesPerSecond);
  CHECK(a.uplinkCap.by == s.uplinkCap.by);
  CHECK(a.downlinkCap.bytesPerSecond == s.downlinkCap.bytesPerSecond);
  CHECK(a.downlinkCap.by == s.downlinkCap.by);
  CHECK(a.relayFaults == 2);
  CHECK(a.unreachable == s.unreachable);
  CHECK(a.networks == s.networks);
  CHECK(a.gateway == s.gateway);
  CHECK(a.keyHosts == s.keyHosts);
  CHECK(a.keyHostsChanges == 4);
  CHECK(a.keyHostsAgeSeconds == 30.5);
  CHECK_FALSE(back.agents[1].alive);
  CHECK_FALSE(back.agents[1].ratesAgeSeconds);
}

TEST_CASE("hnow ops's records read back as written, a running one with no finish") {
  const std::vector<OperationSummary> sent = {{7, "send", 1000, 0, "running", "{\"file\":\"a\"}"},
                                               {6, "run", 500, 900, "done", "{}"}};
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<hnow::wire::ClientSession::OperationsResults>();
  toWire(sent, out.initRecords(static_cast<unsigned>(sent.size())));
  const std::vector<OperationSummary> back = operationsFromWire(out.asReader().getRecords());
  REQUIRE(back.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(back[i].id == sent[i].id);
    CHECK(back[i].kind == sent[i].kind);
    CHECK(back[i].startedUnixMs == sent[i].startedUnixMs);
    CHECK(back[i].finishedUnixMs == sent[i].finishedUnixMs);
    CHECK(back[i].status == sent[i].status);
    CHECK(back[i].summary == sent[i].summary);
  }
}
