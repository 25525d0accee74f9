// A client's upload (server/uploads.h, upload_session.cc): granted over an
// operator's session on an in-memory pipe (the real Gate and sessions),
// carried by hnowd's real data plane on 127.0.0.1, offered by a client's
// plane as `hnow send` does (cli/upload_offer.cc). Only the ticket granted
// opens the upload, once; bytes that differ from the client's SHA-256 are
// never kept; what landed is served on without being read again; nothing
// is left once the session ends.
#include <doctest/doctest.h>
#include <kj/async-io.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <memory>

#include "core/send/send_service.h"
#include "daemon/core/memory_state_store.h"
#include "daemon/server/test_trust.h"
#include "server/data_source_plane.h"
#include "server/gate_server.h"
#include "cli/run_process.h"
#include "transport/data/chunk_digests.h"
#include "transport/data/digest_cache.h"
#include "transport/data/frame.h"
#include "transport/data/kj_inbox.h"
#include "transport/data_plane_nodes.h"
#include "transport/gate_client.h"
#include "transport/rpc_connection.h"
#include "transport/rpc_errors.h"

using namespace hnow;
using hnow::testing::randomBytes;
using hnow::testing::shaOf;
namespace fs = std::filesystem;

namespace {

struct Failures final : kj::TaskSet::ErrorHandler {
  void taskFailed(kj::Exception&&) override {}
};

kj::Promise<void> forward(transport::data::KjInbox<transport::data::TransferEvent>& inbox,
                          daemon::DataSourcePlane& source) {
  return inbox.next().then([&inbox, &source](std::vector<transport::data::TransferEvent> events) {
    for (const auto& e : events) source.onTransfer(e);
    return forward(inbox, source);
  });
}

struct Grant {
  std::uint64_t id = 0;
  std::string token, ticket, address;
};

struct Lab {
  fs::path top;
  kj::AsyncIoContext io = kj::setupAsyncIo();
  ManualClock clock;
  SteadyClock steady;
  daemon::MemoryStateStore store;
  daemon::Coordinator coordinator{clock, daemon::RateTableOptions{}, store};
  testing::TestTrust keys{clock};
  Failures failures;
  kj::TaskSet tasks{failures};
  transport::data::KjInbox<transport::data::TransferEvent> events;
  transport::data::DataPlane plane{steady, [this](transport::data::TransferEvent e) { events.push(std::move(e)); }};
  int port = 0;
  std::unique_ptr<daemon::DataSourcePlane> source;
  std::unique_ptr<daemon::SendService> sends;
  kj::Promise<void> forwarding = nullptr;
  kj::Own<transport::RpcConnection> server, peer;
  wire::ClientSession::Client client = nullptr;
  // The client's own plane, as `hnow send` makes one to offer its file.
  transport::data::DataPlane clientPlane{steady, [](transport::data::TransferEvent) {}};

  Lab() {
    char name[] = "/tmp/hnow-upload-rpc-XXXXXX";
    top = ::mkdtemp(name);
    port = plane.listen("127.0.0.1").value();
    source = std::make_unique<daemon::DataSourcePlane>(plane, (top / "trees").string());
    forwarding = forward(events, *source).eagerlyEvaluate(nullptr);
    sends = std::make_unique<daemon::SendService>(coordinator, *source, "hnowd:1", clock, 1 << 20, 0,
                                                  [] { return std::string(32, 'k'); });
    login();
  }
  ~Lab() { fs::remove_all(top); }
  void login() {
    daemon::Services services;
    services.sends = sends.get();
    services.uploadDir = (top / "uploads").string();
    services.uploadPlane = source.get();
    services.dataPort = port;
    auto pipe = kj::newTwoWayPipe();
    server = kj::heap<transport::RpcConnection>(
        kj::mv(pipe.ends[0]), kj::heap<daemon::GateServer>(coordinator, keys.trust, tasks, "10.0.0.9:4242", nullptr,
                                                           services));
    peer = kj::heap<transport::RpcConnection>(kj::mv(pipe.ends[1]));
    client = keys.loginOperator(peer->peerBootstrap<wire::Gate>()).wait(io.waitScope);
  }
  // The session ends: the client's connection closes.
  void logout() {
    client = nullptr;
    peer = nullptr;
    server = nullptr;
    for (int turn = 0; turn < 20; ++turn) io.provider->getTimer().afterDelay(5 * kj::MILLISECONDS).wait(io.waitScope);
  }

  Grant grant(std::uint64_t size) {
    auto request = client.uploadRequest();
    request.setSize(size);
    auto answer = request.send().wait(io.waitScope);
    auto text = [](capnp::Data::Reader d) { return std::string(reinterpret_cast<const char*>(d.begin()), d.size()); };
    return {answer.getId(), text(answer.getToken()), text(answer.getTicket()),
            "127.0.0.1:" + std::to_string(answer.getDataPort())};
  }
  // The client's plane serves `bytes` under the grant's token.
  void serve(const Grant& g, const std::string& bytes) {
    const fs::path file = top / ("client-" + std::to_string(g.id));
    std::ofstream(file, std::ios::binary) << bytes;
    clientPlane.addSource(g.token, ::open(file.c_str(), O_RDONLY | O_CLOEXEC), bytes.size());
  }
  // The client dials hnowd's data port with `ticket`: "" once hnowd said HELLO, else why not.
  std::string offer(const Grant& g, const std::string& ticket) {
    auto said = std::make_shared<std::promise<std::string>>();
    auto saying = said->get_future();
    clientPlane.offer(g.token, ticket, g.address,
                      [said](const Result<void>& started) { said->set_value(started ? "" : started.error().message); });
    if (saying.wait_for(std::chrono::seconds(10)) != std::future_status::ready) return "no answer within 10 s";
    return saying.get();
  }
  // `uploaded`'s answer to the client's digest `sha`: the size, or why not.
  Result<std::uint64_t> uploaded(std::uint64_t id, const transport::data::Sha256& sha) {
    auto request = client.uploadedRequest();
    request.setId(id);
    request.setSha256(capnp::Data::Reader(sha.data(), sha.size()));
    std::uint64_t size = 0;
    KJ_IF_MAYBE(e, kj::runCatchingExceptions([&]() {
      size = io.provider->getTimer().timeoutAfter(10 * kj::SECONDS, request.send()).wait(io.waitScope).getSize();
    })) {
      return Error{transport::describe(*e)};
    }
    return size;
  }
  std::vector<std::string> uploadFiles() const {
    std::vector<std::string> out;
    std::error_code error;
    for (const auto& e : fs::directory_iterator(top / "uploads", error)) out.push_back(e.path().filename().string());
    return out;
  }
};

}  // namespace

TEST_CASE("an upload granted over the session comes over the data plane, checked, and is kept until the session ends") {
  Lab lab;
  const std::string bytes = randomBytes(3 << 20);
  Grant g = lab.grant(bytes.size());
  CHECK(g.token.size() == 32);
  CHECK(g.ticket.size() == 32);
  CHECK(g.ticket != g.token);
  lab.serve(g, bytes);
  CHECK(lab.offer(g, g.ticket) == "");
  auto whole = lab.uploaded(g.id, shaOf(bytes));
  REQUIRE_MESSAGE(whole.ok(), whole.error().message);
  CHECK(*whole == bytes.size());
  auto files = lab.uploadFiles();
  REQUIRE(files.size() == 1);
  CHECK(files[0].find(".upload") != std::string::npos);
  CHECK(testing::readWhole(lab.top / "uploads" / files[0]) == bytes);
  lab.logout();  // no send took it
  CHECK(lab.uploadFiles().empty());
}

TEST_CASE("an upload opens only to the ticket granted for it, and only once: a forged ticket, the token, a used ticket are refused") {
  Lab lab;
  const std::string bytes = randomBytes(1 << 20);
  Grant g = lab.grant(bytes.size());
  lab.serve(g, bytes);
  CHECK(lab.offer(g, std::string(32, 'x')) != "");
  CHECK(lab.offer(g, g.token) != "");
  CHECK(lab.offer(g, g.ticket) == "");
  REQUIRE(lab.uploaded(g.id, shaOf(bytes)).ok());
  // The same ticket again, for a receive that is over: refused, the file kept as it was.
  CHECK(lab.offer(g, g.ticket) != "");
  auto files = lab.uploadFiles();
  REQUIRE(files.size() == 1);
  CHECK(testing::readWhole(lab.top / "uploads" / files[0]) == bytes);
  // Another session's upload id is not this one's.
  lab.logout();
  lab.login();
  CHECK_FALSE(lab.uploaded(g.id, shaOf(bytes)).ok());
}

TEST_CASE("an upload whose bytes differ from the SHA-256 the client gives at the end fails and leaves no file") {
  Lab lab;
  const std::string bytes = randomBytes(1 << 20);
  Grant g = lab.grant(bytes.size());
  lab.serve(g, bytes);
  CHECK(lab.offer(g, g.ticket) == "");
  auto whole = lab.uploaded(g.id, shaOf("something else"));
  REQUIRE_FALSE(whole.ok());
  CHECK_MESSAGE(whole.error().message.find("differ from the client's file") != std::string::npos, whole.error().message);
  CHECK(lab.uploadFiles().empty());
}

TEST_CASE("an upload the client never hands over is removed with its session, and one too large for the disk is refused") {
  Lab lab;
  const std::string bytes = randomBytes(1 << 20);
  Grant g = lab.grant(bytes.size());
  CHECK(lab.uploadFiles().size() == 1);  // the temp file the receive writes into
  lab.logout();
  CHECK(lab.uploadFiles().empty());
  lab.login();
  std::string why;
  KJ_IF_MAYBE(e, kj::runCatchingExceptions([&]() { lab.grant(1ull << 60); })) {
    why = transport::describe(*e);
  }
  CHECK_MESSAGE(why.find("would leave less than 1 GiB") != std::string::npos, why);
}

TEST_CASE("an upload is hashed as it lands: hnowd serves it on with its chunk digests without reading it again") {
  Lab lab;
  const std::string bytes = randomBytes((5 << 20) + 123);
  Grant g = lab.grant(bytes.size());
  lab.serve(g, bytes);
  CHECK(lab.offer(g, g.ticket) == "");
  REQUIRE(lab.uploaded(g.id, shaOf(bytes)).ok());
  auto files = lab.uploadFiles();
  REQUIRE(files.size() == 1);
  const std::string path = (lab.top / "uploads" / files[0]).string();
  const std::uint64_t reads = transport::data::digestReads();
  auto served = std::make_shared<std::promise<Result<daemon::SourceFile>>>();
  lab.source->serveFile(std::string(32, 's'), path, [served](const Result<daemon::SourceFile>& f) { served->set_value(f); });
  auto answer = served->get_future();
  while (answer.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready)
    lab.io.provider->getTimer().afterDelay(5 * kj::MILLISECONDS).wait(lab.io.waitScope);
  auto file = answer.get();
  REQUIRE_MESSAGE(file.ok(), file.error().message);
  CHECK(transport::data::digestReads() == reads);
  const auto sha = shaOf(bytes);
  CHECK(file->sha256 == std::string(reinterpret_cast<const char*>(sha.data()), sha.size()));
  CHECK(file->digestChunkBytes == transport::data::kChunkBytes);
  CHECK(file->pieceDigests == transport::data::chunkDigestsOf(bytes, transport::data::kChunkBytes).pieceBytes());
}
