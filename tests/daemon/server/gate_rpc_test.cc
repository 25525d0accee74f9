// hnowd's RPC glue over an in-memory pipe: the real Gate, sessions and
// Coordinator, a manual clock, no sockets (as capnp's rpc-twoparty-test).
#include <doctest/doctest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "daemon/server/gate_harness.h"
#include "transport/log_setup.h"

using namespace hnow;
using namespace hnow::testing;

TEST_CASE("an agent with its enrolled key registers, reports rates, and an operator sees them") {
  Harness h;
  auto agentLink = h.connect();
  Received received;
  auto session = h.loginAgent(agentLink, "a1", received);
  auto report = session.reportRatesRequest();
  report.initRates().setSendOverheadS(2e-5);
  report.initEmulated().setUplinkBytesPerS(12.5e6);  // hnow local: paced, so taken as told
  report.send().wait(h.ws);

  auto clientLink = h.connect();
  auto client = h.keys.loginOperator(clientLink.gate).wait(h.ws);
  auto status = client.statusRequest().send().wait(h.ws);
  REQUIRE(status.getAgents().size() == 1);
  auto a = status.getAgents()[0];
  CHECK(std::string(a.getName().cStr()) == "a1");
  CHECK(a.getState() == wire::AgentState::ALIVE);
  CHECK(a.getHasRates());
  CHECK(a.getRates().getUplinkBytesPerS() == 12.5e6);
  CHECK(a.getRates().getSendOverheadS() == 2e-5);
  CHECK(std::string(a.getUplink().getMethod().cStr()) == "emulated");
  CHECK(std::string(a.getDownlink().getMethod().cStr()) == "unknown");  // real: hnowd measures it
}

TEST_CASE("an agent's networks and gateway reach hnowd's view of it and an operator's status") {
  Harness h;
  auto agentLink = h.connect();
  Received received;
  auto session = h.loginAgent(agentLink, "a1", received, nullptr, [](wire::Registration::Builder r) {
    auto networks = r.initNetworks(2);
    networks.set(0, "10.231.5.70/26");
    networks.set(1, "fd00:1::5/64");
    r.setGateway("10.231.5.65");
  });
  auto olderLink = h.connect();
  auto older = h.loginAgent(olderLink, "a2", received);  // an older agent: neither field

  const std::vector<std::string> expected{"10.231.5.70/26", "fd00:1::5/64"};
  const std::vector<daemon::AgentView> agents = h.coordinator.status();
  REQUIRE(agents.size() == 2);
  CHECK(agents[0].registration.networks == expected);
  CHECK(agents[0].registration.gateway == "10.231.5.65");
  CHECK(agents[1].registration.networks.empty());
  CHECK(agents[1].registration.gateway.empty());

  auto clientLink = h.connect();
  auto client = h.keys.loginOperator(clientLink.gate).wait(h.ws);
  auto status = client.statusRequest().send().wait(h.ws);
  REQUIRE(status.getAgents().size() == 2);
  auto a = status.getAgents()[0];
  REQUIRE(a.getNetworks().size() == 2);
  CHECK(std::string(a.getNetworks()[0].cStr()) == expected[0]);
  CHECK(std::string(a.getNetworks()[1].cStr()) == expected[1]);
  CHECK(std::string(a.getGateway().cStr()) == "10.231.5.65");
  CHECK(status.getAgents()[1].getNetworks().size() == 0);
  CHECK(std::string(status.getAgents()[1].getGateway().cStr()).empty());
}

TEST_CASE("a peer that trusts another hnowd key gets no session, and a wrong signature shuts the gate") {
  Harness h;
  transport::KeyPair other = transport::KeyPair::generate();
  // A well-behaved peer notices first: hnowd does not hold the key it trusts.
  auto link = h.connect();
  CHECK(h.failureOf([&]() {
          transport::loginAsOperator(link.gate, "op", h.keys.operatorKey, other.publicKey()).wait(h.ws);
        }).find("not the one we trust") != std::string::npos);
  // An operator that signs with a key hnowd does not list for it is refused.
  auto rogue = h.connect();
  CHECK(h.failureOf([&]() { transport::loginAsOperator(rogue.gate, "op", other, h.keys.hnowdKey.publicKey()).wait(h.ws); })
            .find("login refused: its signature does not answer") != std::string::npos);
  CHECK_FALSE(h.failureOf([&]() { transport::openGate(rogue.gate, h.keys.hnowdKey.publicKey()).wait(h.ws); }).empty());
  // So is an agent signing with a key other than the one bound to its name.
  auto impostor = h.connect();
  Received received;
  h.keys.agentKey("a1");
  CHECK(h.failureOf([&]() { h.loginAgent(impostor, "a1", received, &other); })
            .find("enrolled with another key") != std::string::npos);
  CHECK(h.coordinator.status().empty());
}

TEST_CASE("a nonce serves one login only: a replayed signature is refused") {
  Harness h;
  auto link = h.connect();
  auto opening = transport::openGate(link.gate, h.keys.hnowdKey.publicKey()).wait(h.ws);
  Bytes signature = transport::signLogin(h.keys.operatorKey, Role::kClient, "op", opening.nonce);
  auto first = link.gate.loginOperatorRequest();
  first.setName("op");
  first.setSignature(transport::dataOf(signature));
  first.send().wait(h.ws);
  auto again = link.gate.loginOperatorRequest();
  again.setName("op");
  again.setSignature(transport::dataOf(signature));
  CHECK(h.failureOf([&]() { again.send().wait(h.ws); }).find("challenge") != std::string::npos);
  // On a new connection the recorded signature answers the wrong nonce.
  auto other = h.connect();
  transport::openGate(other.gate, h.keys.hnowdKey.publicKey()).wait(h.ws);
  auto replayed = other.gate.loginOperatorRequest();
  replayed.setName("op");
  replayed.setSignature(transport::dataOf(signature));
  CHECK(h.failureOf([&]() { replayed.send().wait(h.ws); }).find("does not answer") != std::string::npos);
}

TEST_CASE("set-rate from a client reaches the agent's control capability") {
  Harness h;
  auto agentLink = h.connect();
  Received received;
  auto session = h.loginAgent(agentLink, "a1", received);
  auto clientLink = h.connect();
  auto client = h.keys.loginOperator(clientLink.gate).wait(h.ws);
  auto request = client.setEmulatedRatesRequest();
  request.setName("a1");
  request.initRates().setUplinkMbps(42);
  request.send().wait(h.ws);
  session.pingRequest().send().wait(h.ws);  // the command has crossed by now
  REQUIRE(received.uplinks.size() == 1);
  CHECK(received.uplinks[0] == 42);
  h.ws.poll();  // the agent's answer finishes the operation record
  auto ops = client.operationsRequest();
  ops.setLimit(10);
  auto reply = ops.send().wait(h.ws);
  REQUIRE(reply.getRecords().size() == 1);
  auto record = reply.getRecords()[0];
  CHECK(record.getKind() == "set-rate");
  CHECK(record.getStatus() == "done");
  CHECK(record.getFinishedUnixMs() >= record.getStartedUnixMs());
  CHECK(std::string(record.getSummary().cStr()).find("\"agent\":\"a1\"") != std::string::npos);

  auto unknown = client.setEmulatedRatesRequest();
  unknown.setName("ghost");
  CHECK(h.failureOf([&]() { unknown.send().wait(h.ws); }) == "no agent named 'ghost' has registered");
}

TEST_CASE("an agent whose connection drops is lost at the next tick") {
  Harness h;
  Received received;
  {
    auto link = h.connect();
    auto session = h.loginAgent(link, "a1", received);
    session.heartbeatRequest().send().wait(h.ws);
  }  // both ends closed
  h.loop.run();
  auto events = h.coordinator.tick();
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == daemon::RateEvent::Kind::kLost);
}

TEST_CASE("an oversized message from a peer is refused") {
  Harness h;
  auto link = h.connect();
  Received received;
  auto session = h.loginAgent(link, "a1", received);
  // Past the reader's traversal limit: hnowd refuses to read the message at all.
  auto report = session.reportTransferRequest();
  report.initReport().initMessage(3 * transport::kLargestMessageBytes);
  CHECK_FALSE(h.failureOf([&]() { report.send().wait(h.ws); }).empty());
}

TEST_CASE("an agent login whose site holds a newline and a journald priority is refused, and no log line starts with it") {
  // hnowd's own log line, into a string for the test.
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  sink->set_formatter(transport::daemonLogFormatter());
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("hnowd", sink));
  Harness h;
  Received received;
  auto hostile = h.connect();
  const std::string refusal = h.failureOf([&]() {
    h.loginAgent(hostile, "a1", received, nullptr,
                 [](wire::Registration::Builder r) { r.setSite("lab\n<4>forged: a2 revoked"); });
  });
  auto long_ = h.connect();
  const std::string tooLong = h.failureOf([&]() {
    h.loginAgent(long_, "a1", received, nullptr,
                 [](wire::Registration::Builder r) { r.setSite(std::string(65, 'x')); });
  });
  CHECK(h.coordinator.status().empty());
  auto plain = h.connect();
  auto session = h.loginAgent(plain, "a1", received);  // site "room-a"
  spdlog::set_default_logger(previous);

  CHECK(refusal == "login refused: a site must be 1 to 64 bytes of printable UTF-8, without a newline or another "
                   "control character");
  CHECK(tooLong == refusal);
  REQUIRE(h.coordinator.status().size() == 1);
  CHECK(h.coordinator.status()[0].registration.site == "room-a");
  std::istringstream lines(out.str());
  std::size_t refused = 0;
  for (std::string line; std::getline(lines, line);) {
    CHECK(line.rfind("<4>forged", 0) != 0);
    refused += line.find("refused agent login as a1 from in-memory: a site must be") != std::string::npos;
  }
  CHECK(refused == 2);
}
