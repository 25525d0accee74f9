// A run's result served to the client on hnowd's data plane
// (server/served_outputs.h; `hnow run` without --output, cli/run_output_pull.h):
// hnowd's real data plane on 127.0.0.1 serves the file under the token its
// grant names, and a client's plane pulls it with the grant's digests. A
// forged token gets nothing, and neither does the granted one once the
// session that asked for it ended.
#include <doctest/doctest.h>
#include <kj/async-io.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "server/data_source_plane.h"
#include "server/served_outputs.h"
#include "server/uploads.h"
#include "transport/auth.h"
#include "transport/data/kj_inbox.h"
#include "transport/data_plane_nodes.h"

using namespace hnow;
using hnow::testing::randomBytes;
using hnow::testing::shaOf;
using hnow::testing::targetIn;
using transport::data::TransferEvent;
namespace fs = std::filesystem;

namespace {

kj::Promise<void> forward(transport::data::KjInbox<TransferEvent>& inbox, daemon::DataSourcePlane& source) {
  return inbox.next().then([&inbox, &source](std::vector<TransferEvent> events) {
    for (const auto& e : events) source.onTransfer(e);
    return forward(inbox, source);
  });
}

struct Lab {
  fs::path top;
  kj::AsyncIoContext io = kj::setupAsyncIo();
  SteadyClock steady;
  transport::data::KjInbox<TransferEvent> events;
  transport::data::DataPlane plane{steady, [this](TransferEvent e) { events.push(std::move(e)); }};
  std::string address;
  std::unique_ptr<daemon::DataSourcePlane> source;
  kj::Promise<void> forwarding = nullptr;
  std::shared_ptr<daemon::ServedOutputs> outputs;
  std::string bytes = randomBytes(3 * (1 << 20) + 12345);  // several pieces of chunk digests

  Lab() {
    char name[] = "/tmp/hnow-served-outputs-XXXXXX";
    top = ::mkdtemp(name);
    address = "127.0.0.1:" + std::to_string(plane.listen("127.0.0.1").value());
    source = std::make_unique<daemon::DataSourcePlane>(plane, (top / "trees").string());
    forwarding = forward(events, *source).eagerlyEvaluate(nullptr);
    outputs = std::make_shared<daemon::ServedOutputs>(source.get(), transport::freshToken);
    std::ofstream(top / "result", std::ios::binary) << bytes;
  }
  ~Lab() { fs::remove_all(top); }

  daemon::ServedOutputs::Grant grant() {
    std::optional<Result<daemon::ServedOutputs::Grant>> granted;
    outputs->serve((top / "result").string(), [&granted](const auto& g) { granted = g; });
    for (int turn = 0; turn < 200 && !granted; ++turn)
      io.provider->getTimer().afterDelay(10 * kj::MILLISECONDS).wait(io.waitScope);
    REQUIRE(granted.has_value());
    REQUIRE(granted->ok());
    return granted->value();
  }
};

// A client's plane pulls `token` from hnowd into `dir`; the event that ended it.
TransferEvent pull(Lab& lab, const std::string& token, const daemon::SourceFile& file, const fs::path& dir) {
  testing::Node client;
  transport::data::Sha256 sha{};
  std::copy(file.sha256.begin(), file.sha256.end(), sha.begin());
  transport::data::ChunkDigests digests;
  REQUIRE(digests.expect(file.digestChunkBytes, file.size, file.pieceDigests));
  client.plane.receive(token, file.size, sha, targetIn(dir, "result"), std::move(digests));
  client.plane.pull(token, lab.address);
  for (int waited = 0; waited < 1000; ++waited) {
    if (auto done = client.events.first(TransferEvent::Kind::kDone)) return *done;
    if (auto lost = client.events.first(TransferEvent::Kind::kParentLost)) return *lost;
    if (auto failed = client.events.first(TransferEvent::Kind::kFailed)) return *failed;
    lab.io.provider->getTimer().afterDelay(10 * kj::MILLISECONDS).wait(lab.io.waitScope);
  }
  FAIL("the pull neither ended nor failed within 10 s");
  return {};
}

std::string contents(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("a run's result served to a session comes whole and checked to the client that pulls its token") {
  Lab lab;
  auto grant = lab.grant();
  CHECK(grant.token.size() == 32);
  CHECK(grant.file.size == lab.bytes.size());
  CHECK(grant.file.digestChunkBytes > 0);
  auto ended = pull(lab, grant.token, grant.file, lab.top / "client");
  CHECK(ended.kind == TransferEvent::Kind::kDone);
  CHECK(contents(lab.top / "client" / "result") == lab.bytes);
}

TEST_CASE("a forged token gets none of a served result, and the granted one nothing once the session ended") {
  Lab lab;
  auto grant = lab.grant();
  auto forged = pull(lab, transport::freshToken(), grant.file, lab.top / "forger");
  CHECK(forged.kind == TransferEvent::Kind::kParentLost);
  CHECK(!fs::exists(lab.top / "forger" / "result"));

  lab.outputs.reset();  // the session ended
  auto late = pull(lab, grant.token, grant.file, lab.top / "late");
  CHECK(late.kind == TransferEvent::Kind::kParentLost);
  CHECK(!fs::exists(lab.top / "late" / "result"));
}

TEST_CASE("a session is served at most kMaxServed files at once") {
  Lab lab;
  for (std::size_t k = 0; k < daemon::ServedOutputs::kMaxServed; ++k) lab.grant();
  std::optional<std::string> why;
  lab.outputs->serve((lab.top / "result").string(), [&why](const auto& g) { why = g ? "" : g.error().message; });
  REQUIRE(why.has_value());
  CHECK(why->find("files served already") != std::string::npos);
}
