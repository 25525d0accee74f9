// An operation token outlives its operation nowhere: a
// participant that once held a real token (here a "mole" agent, enrolled
// with a token as any new machine is, and sent a file) cannot use it once the send
// has ended. The token is first shown to be live, so the refusal afterwards
// is the expiry and not a malformed hello.
#include <doctest/doctest.h>

#include <kj/async-io.h>

#include <thread>

#include "process/raw_peer.h"
#include "process/test_cluster.h"
#include "process/transfer_checks.h"
#include "transport/agent_control.capnp.h"
#include "transport/agent_session.capnp.h"
#include "transport/auth.h"
#include "transport/control.capnp.h"
#include "transport/data/frame.h"
#include "transport/gate_client.h"
#include "transport/identity.h"
#include "transport/rpc_connection.h"

using hnow::testing::processAlive;
using hnow::testing::RawPeer;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TestCluster;
using hnow::testing::writeRandomFile;
namespace data = hnow::transport::data;
namespace transport = hnow::transport;
namespace wire = hnow::wire;
using namespace std::chrono_literals;

namespace {

struct MoleState {
  std::string token;
  std::string parent;
  int releases = 0;
};

// What hnowd tells the mole; everything else is left unimplemented.
class MoleControl final : public wire::AgentControl::Server {
 public:
  explicit MoleControl(MoleState& state) : state_(state) {}

 protected:
  kj::Promise<void> setEmulatedRates(SetEmulatedRatesContext) override { return kj::READY_NOW; }
  kj::Promise<void> probeNow(ProbeNowContext) override { return kj::READY_NOW; }
  kj::Promise<void> fileHeld(FileHeldContext context) override {
    context.getResults().setHolding(wire::DestHolding::ABSENT);  // the mole holds nothing: it is sent the file
    return kj::READY_NOW;
  }
  kj::Promise<void> receive(ReceiveContext context) override {
    auto token = context.getParams().getOrder().getToken();
    state_.token.assign(reinterpret_cast<const char*>(token.begin()), token.size());
    context.getResults().setPath("/mole/" + std::string(context.getParams().getOrder().getDest().cStr()));
    return kj::READY_NOW;
  }
  kj::Promise<void> pull(PullContext context) override {
    state_.parent = context.getParams().getParentAddress();
    return kj::READY_NOW;
  }
  kj::Promise<void> release(ReleaseContext) override {
    ++state_.releases;
    return kj::READY_NOW;
  }

 private:
  MoleState& state_;
};

// Whether a hello with `token` to `address` is answered with data: a DATA
// frame, or the chunk digests the source sends before its first one.
bool servedWith(const std::string& address, const std::string& token, std::string* peer = nullptr) {
  RawPeer child(address);
  if (!child.connected() || !child.send(data::encodeFrame(data::FrameType::kHello, 0, token))) return false;
  if (peer) *peer = child.self();
  child.readUntilClosed(1000ms, data::kHeaderBytes);
  if (child.received.size() < data::kHeaderBytes) return false;
  const auto type = static_cast<data::FrameType>(child.received[4]);
  return type == data::FrameType::kData || type == data::FrameType::kDigests;
}

}  // namespace

TEST_CASE("the token of a finished send is refused by the agent that served it, and logged") {
  TestCluster cluster("--agents 1 --uplink-mbps 200");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string agentData = cluster.dataAddress("agent-1");
  REQUIRE_FALSE(agentData.empty());

  auto io = kj::setupAsyncIo();
  auto& ws = io.waitScope;
  auto& timer = io.provider->getTimer();
  auto stream = io.provider->getNetwork().parseAddress(cluster.hnowdAddress()).wait(ws)->connect().wait(ws);
  transport::RpcConnection connection(kj::mv(stream));
  auto gate = connection.peerBootstrap<wire::Gate>();
  // The mole is enrolled as any new machine is: with a token an operator made.
  auto made = runCommand(cluster.hnow("agent token --name mole --ttl-s 600"));
  REQUIRE_MESSAGE(made.status == 0, made.err);
  auto token = transport::parseTokenText(made.out);
  REQUIRE_MESSAGE(token.ok(), made.out);
  const transport::KeyPair moleKey = transport::KeyPair::generate();

  MoleState state;
  auto opening = transport::openGate(gate, token->coordinator).wait(ws);
  auto login = gate.loginAgentKeyRequest();
  auto credential = login.initCredential();
  transport::Bytes publicKey(moleKey.publicKey().begin(), moleKey.publicKey().end()), id(token->id.begin(), token->id.end());
  credential.setKey(transport::dataOf(publicKey));
  credential.setSignature(
      transport::dataOf(transport::signLogin(moleKey, transport::Role::kAgent, "mole", opening.nonce)));
  credential.setTokenId(transport::dataOf(id));
  credential.setTokenProof(
      transport::dataOf(transport::enrollProof(token->secret, "mole", moleKey.publicKey(), opening.nonce)));
  auto registration = login.initRegistration();
  registration.setName("mole");
  registration.setSite("local");
  registration.setDataAddress("127.0.0.1:9");
  registration.initRoots(1).set(0, "/mole");
  login.setControl(kj::heap<MoleControl>(state));
  auto session = login.send().wait(ws).getSession();
  auto rates = session.reportRatesRequest();
  rates.initEmulated().setUplinkBytesPerS(1e5);  // slow: a leaf, fed by agent-1; taken as told
  rates.getEmulated().setDownlinkBytesPerS(25e6);
  rates.initRates().setSendOverheadS(1e-4);
  rates.getRates().setRecvOverheadS(1e-4);
  rates.getRates().setComputeSPerUnit(1e-3);
  rates.send().wait(ws);
  // Runs the loop for `d`, heartbeating so hnowd keeps the mole alive.
  auto spin = [&](kj::Duration d) {
    session.heartbeatRequest().send().wait(ws);
    timer.afterDelay(d).wait(ws);
  };

  writeRandomFile(cluster.dir.path / "source.bin", 1 << 20);
  hnow::testing::ProcessResult sent;
  std::thread sender([&]() {
    sent = runCommand(cluster.hnow("send " + (cluster.dir.path / "source.bin").string() +
                                   " --dest copy.bin --to agent-1,mole --algo chain"));
  });
  for (int i = 0; i < 250 && state.parent.empty(); ++i) spin(20 * kj::MILLISECONDS);
  REQUIRE(state.token.size() == data::kTokenBytes);
  CHECK(state.parent == agentData);  // the chain goes hnowd -> agent-1 -> mole
  // While the send runs, the token is real: agent-1 serves the file for it.
  CHECK(hnow::testing::eventually([&]() { return servedWith(state.parent, state.token); }, 3s));

  // The mole gives up; the send ends without it and hnowd releases the token.
  auto report = session.reportTransferRequest();
  report.initReport().setToken(capnp::Data::Reader(reinterpret_cast<const kj::byte*>(state.token.data()),
                                                   state.token.size()));
  report.getReport().setState(wire::TransferState::FAILED);
  report.getReport().setMessage("the mole leaves");
  report.send().wait(ws);
  for (int i = 0; i < 250 && state.releases == 0; ++i) spin(20 * kj::MILLISECONDS);
  sender.join();
  CHECK(sent.status == 1);  // agent-1 got its copy, the mole failed
  CHECK(state.releases == 1);
  CHECK(readWhole(cluster.root(1) / "copy.bin") == readWhole(cluster.dir.path / "source.bin"));

  // agent-1 may take its release a moment after the mole: the token stays
  // refused from then on.
  std::string lastPeer;
  CHECK(hnow::testing::eventually([&]() { return !servedWith(state.parent, state.token, &lastPeer); }, 3s));
  CHECK_FALSE(servedWith(state.parent, state.token, &lastPeer));
  CHECK(cluster.logHas("agent-1", "data connection from " + lastPeer +
                                      " dropped: unknown operation token (forged, or of an operation that has ended)"));

  auto again = runCommand(cluster.hnow("send " + (cluster.dir.path / "source.bin").string() +
                                       " --dest again.bin --to agent-1"));
  CHECK_MESSAGE(again.status == 0, again.err);
  CHECK(processAlive(cluster.pid("hnowd")));
  CHECK(processAlive(cluster.pid("agent-1")));
}
