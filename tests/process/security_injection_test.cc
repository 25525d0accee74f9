// Strings from peers that would forge a line of hnowd's log (a newline and
// journald's "<4>" priority) or break `hnow status`'s table: refused where
// they enter, and escaped in every log line whatever the way in.
// docs/security-tests.md lists them.
#include <doctest/doctest.h>

#include <kj/async-io.h>

#include <sstream>

#include "process/test_cluster.h"
#include "process/transfer_checks.h"
#include "transport/agent_control.capnp.h"
#include "transport/control.capnp.h"
#include "transport/gate_client.h"
#include "transport/identity.h"
#include "transport/rpc_connection.h"
#include "transport/rpc_errors.h"

using hnow::testing::processAlive;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TestCluster;
using hnow::testing::writeRandomFile;
namespace transport = hnow::transport;
namespace wire = hnow::wire;

namespace {

class NoControl final : public wire::AgentControl::Server {};

// The lines of `log` that start with `text`.
std::size_t linesStartingWith(const std::string& log, const std::string& text) {
  std::istringstream lines(log);
  std::size_t n = 0;
  for (std::string line; std::getline(lines, line);) n += line.rfind(text, 0) == 0;
  return n;
}

// The failure of `promise`, "" when it succeeds.
template <class T>
std::string failureOf(kj::Promise<T> promise, kj::WaitScope& ws) {
  std::string failure;
  KJ_IF_MAYBE(e, kj::runCatchingExceptions([&]() { promise.wait(ws); })) { failure = transport::describe(*e); }
  return failure;
}

}  // namespace

TEST_CASE("a site or --dest holding a newline and a journald priority is refused, and no log line starts with the forged text") {
  TestCluster cluster("--agents 1");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string forged = "<4>forged: agent-1 revoked";
  auto io = kj::setupAsyncIo();
  auto& ws = io.waitScope;
  auto connect = [&]() {
    auto stream = io.provider->getNetwork().parseAddress(cluster.hnowdAddress()).wait(ws)->connect().wait(ws);
    return kj::heap<transport::RpcConnection>(kj::mv(stream));
  };

  // A hostile agent, enrolled as any new machine is, logs in with the site.
  auto made = runCommand(cluster.hnow("agent token --name mole --ttl-s 600"));
  REQUIRE_MESSAGE(made.status == 0, made.err);
  auto token = transport::parseTokenText(made.out);
  REQUIRE_MESSAGE(token.ok(), made.out);
  const transport::KeyPair moleKey = transport::KeyPair::generate();
  {
    auto connection = connect();
    auto gate = connection->peerBootstrap<wire::Gate>();
    auto opening = transport::openGate(gate, token->coordinator).wait(ws);
    auto login = gate.loginAgentKeyRequest();
    auto credential = login.initCredential();
    transport::Bytes publicKey(moleKey.publicKey().begin(), moleKey.publicKey().end()),
        id(token->id.begin(), token->id.end());
    credential.setKey(transport::dataOf(publicKey));
    credential.setSignature(
        transport::dataOf(transport::signLogin(moleKey, transport::Role::kAgent, "mole", opening.nonce)));
    credential.setTokenId(transport::dataOf(id));
    credential.setTokenProof(
        transport::dataOf(transport::enrollProof(token->secret, "mole", moleKey.publicKey(), opening.nonce)));
    auto registration = login.initRegistration();
    registration.setName("mole");
    registration.setSite("lab\n" + forged);
    registration.setDataAddress("127.0.0.1:9");
    login.setControl(kj::heap<NoControl>());
    CHECK(failureOf(login.send(), ws) ==
          "login refused: a site must be 1 to 64 bytes of printable UTF-8, without a newline or another control "
          "character");
  }
  CHECK(cluster.logHas("hnowd", "refused agent login as mole from 127.0.0.1:"));

  // An operator's name is looked up before anything else: the refusal logs
  // it as it came, escaped.
  {
    auto connection = connect();
    auto gate = connection->peerBootstrap<wire::Gate>();
    auto opening = transport::openGate(gate, token->coordinator).wait(ws);
    auto login = gate.loginOperatorRequest();
    login.setName("op\n" + forged);
    login.setSignature(transport::dataOf(transport::Bytes(64, 0)));
    CHECK(failureOf(login.send(), ws).find("no operator of that name") != std::string::npos);
  }
  CHECK(cluster.logHas("hnowd", "refused operator login as op\\x0a<4>forged: agent-1 revoked from 127.0.0.1:"));

  // An operator's --dest.
  writeRandomFile(cluster.dir.path / "file.bin", 4096);
  auto sent = runCommand(cluster.hnow("send " + (cluster.dir.path / "file.bin").string() + " --dest \"$(printf 'x\\n" +
                                      forged + "')\""));
  CHECK(sent.status != 0);
  CHECK(sent.err.find("a control character (a newline, a tab, an escape) is not allowed in --dest (x\\x0a<4>forged") !=
        std::string::npos);
  CHECK(cluster.logHas("hnowd", "refused a send: a control character"));
  CHECK_FALSE(std::filesystem::exists(cluster.root(1) / "x"));

  const std::string log = cluster.log("hnowd");
  CHECK(linesStartingWith(log, "<4>forged") == 0);
  CHECK(linesStartingWith(log, forged) == 0);
  auto status = runCommand(cluster.hnow("status"));
  CHECK(status.status == 0);
  CHECK(status.out.find("mole") == std::string::npos);  // it never registered
  CHECK(processAlive(cluster.pid("hnowd")));
}
