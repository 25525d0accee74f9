// hnowd's RPC glue over an in-memory pipe: the real Gate, sessions and
// Coordinator, a manual clock, no sockets (as capnp's rpc-twoparty-test).
#include <doctest/doctest.h>

#include <kj/async-io.h>
#include <kj/debug.h>

#include "daemon/core/memory_state_store.h"
#include "server/gate_server.h"
#include "transport/gate_client.h"
#include "transport/rpc_connection.h"
#include "transport/rpc_errors.h"

using namespace hnow;
using transport::Bytes;
using transport::Role;

namespace {

const char* kSecret = "0123456789abcdef0123456789abcdef";

struct Failures final : kj::TaskSet::ErrorHandler {
  void taskFailed(kj::Exception&&) override {}
};

// What an agent's AgentControl received.
struct Received {
  std::vector<double> uplinks;
};

class RecordingControl final : public wire::AgentControl::Server {
 public:
  explicit RecordingControl(Received& r) : received_(r) {}

 protected:
  kj::Promise<void> setEmulatedRates(SetEmulatedRatesContext context) override {
    received_.uplinks.push_back(context.getParams().getRates().getUplinkMbps());
    return kj::READY_NOW;
  }
  kj::Promise<void> probeNow(ProbeNowContext) override { return kj::READY_NOW; }

 private:
  Received& received_;
};

struct Harness {
  kj::EventLoop loop;
  kj::WaitScope ws{loop};
  hnow::ManualClock clock;
  daemon::MemoryStateStore store;
  daemon::Coordinator coordinator{clock, daemon::RateTableOptions{}, store};
  transport::Secret secret{kSecret};
  Failures failures;
  kj::TaskSet tasks{failures};

  // One connection: the server end inside, the peer's end returned.
  struct Link {
    kj::Own<transport::RpcConnection> server;
    kj::Own<transport::RpcConnection> peer;
    wire::Gate::Client gate;
  };
  Link connect() {
    auto pipe = kj::newTwoWayPipe();
    auto server = kj::heap<transport::RpcConnection>(
        kj::mv(pipe.ends[0]), kj::heap<daemon::GateServer>(coordinator, secret, tasks, "in-memory"));
    auto peer = kj::heap<transport::RpcConnection>(kj::mv(pipe.ends[1]));
    auto gate = peer->peerBootstrap<wire::Gate>();
    return Link{kj::mv(server), kj::mv(peer), kj::mv(gate)};
  }

  wire::AgentSession::Client loginAgent(Link& link, const std::string& name, Received& received,
                                        const transport::Secret& withSecret) {
    Bytes nonce = transport::openGate(link.gate, secret).wait(ws);
    auto request = link.gate.loginAgentRequest();
    request.setProof(transport::dataOf(transport::makeProof(withSecret, Role::kAgent, name, nonce)));
    request.initRegistration().setName(name);
    request.getRegistration().setSite("room-a");
    request.setControl(kj::heap<RecordingControl>(received));
    return request.send().wait(ws).getSession();
  }

  std::string failureOf(kj::Function<void()> call) {
    KJ_IF_MAYBE(e, kj::runCatchingExceptions([&]() { call(); })) { return transport::describe(*e); }
    return "";
  }
};

}  // namespace

TEST_CASE("an agent with the secret registers, reports rates, and a client sees them") {
  Harness h;
  auto agentLink = h.connect();
  Received received;
  auto session = h.loginAgent(agentLink, "a1", received, h.secret);
  auto report = session.reportRatesRequest();
  report.initRates().setSendOverheadS(2e-5);
  report.initEmulated().setUplinkBytesPerS(12.5e6);  // hnow local: paced, so taken as told
  report.send().wait(h.ws);

  auto clientLink = h.connect();
  auto client = transport::loginAsClient(clientLink.gate, h.secret).wait(h.ws);
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

TEST_CASE("a peer with another secret gets no session, and hnowd's gate stays shut for it") {
  Harness h;
  transport::Secret wrong("fedcba9876543210fedcba9876543210");
  // A well-behaved client notices first: hnowd's proof does not match its secret.
  auto link = h.connect();
  CHECK(h.failureOf([&]() { transport::loginAsClient(link.gate, wrong).wait(h.ws); })
            .find("does not know our secret") != std::string::npos);
  // A peer that skips that check and sends a proof anyway is refused.
  auto rogue = h.connect();
  Received received;
  CHECK(h.failureOf([&]() { h.loginAgent(rogue, "a1", received, wrong); }) ==
        "authentication refused: wrong secret");
  CHECK(h.coordinator.status().empty());
  CHECK_FALSE(h.failureOf([&]() { transport::openGate(rogue.gate, h.secret).wait(h.ws); }).empty());
}

TEST_CASE("a nonce serves one login only: a replayed proof is refused") {
  Harness h;
  auto link = h.connect();
  Bytes nonce = transport::openGate(link.gate, h.secret).wait(h.ws);
  Bytes proof = transport::makeProof(h.secret, Role::kClient, "", nonce);
  auto first = link.gate.loginClientRequest();
  first.setProof(transport::dataOf(proof));
  first.send().wait(h.ws);
  auto again = link.gate.loginClientRequest();
  again.setProof(transport::dataOf(proof));
  CHECK(h.failureOf([&]() { again.send().wait(h.ws); }).find("challenge") != std::string::npos);
}

TEST_CASE("set-rate from a client reaches the agent's control capability") {
  Harness h;
  auto agentLink = h.connect();
  Received received;
  auto session = h.loginAgent(agentLink, "a1", received, h.secret);
  auto clientLink = h.connect();
  auto client = transport::loginAsClient(clientLink.gate, h.secret).wait(h.ws);
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
    auto session = h.loginAgent(link, "a1", received, h.secret);
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
  auto session = h.loginAgent(link, "a1", received, h.secret);
  // Past the reader's traversal limit: hnowd refuses to read the message at all.
  auto report = session.reportTransferRequest();
  report.initReport().initMessage(3 * transport::kLargestMessageBytes);
  CHECK_FALSE(h.failureOf([&]() { report.send().wait(h.ws); }).empty());
}
