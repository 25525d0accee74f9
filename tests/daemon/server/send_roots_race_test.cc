// `[send] roots` against an operator who races hnowd (server/send_paths.h):
// between the check of a path and hnowd's first read of it, a directory on
// the way is swapped for a symlink to a directory the operator may not
// read. What the agents are sent must be what was checked: the swapped-in
// bytes are never read. A client's session over an in-memory pipe, the
// real Gate, sessions, SendService and data plane, agents in memory.
#include <doctest/doctest.h>
#include <kj/async-io.h>
#include <openssl/sha.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "base/hex.h"
#include "core/send/send_service.h"
#include "daemon/core/memory_state_store.h"
#include "daemon/core/send_lab.h"
#include "daemon/server/test_trust.h"
#include "server/data_source_plane.h"
#include "server/gate_server.h"
#include "transport/data/data_plane.h"
#include "transport/gate_client.h"
#include "transport/rpc_connection.h"
#include "transport/rpc_errors.h"

using namespace hnow;
namespace fs = std::filesystem;

namespace {

// The real plane; its first call after the roots' check runs `between`
// first: what a racing operator does to the path at that moment.
struct RacedPlane final : daemon::SourcePlane {
  explicit RacedPlane(daemon::SourcePlane& r) : real(r) {}
  daemon::SourcePlane& real;
  std::function<void()> between;
  std::optional<daemon::TreeScan> scanned;  // what the last scan found
  void race() {
    if (between) std::exchange(between, nullptr)();
  }
  void serveFile(const std::string& t, const std::string& p, Served d) override { race(), real.serveFile(t, p, d); }
  void hashFile(const std::string& p, Served d) override { race(), real.hashFile(p, d); }
  Result<std::uint64_t> sizeOf(const std::string& p) override { return race(), real.sizeOf(p); }
  bool isDirectory(const std::string& p) override { return race(), real.isDirectory(p); }
  void scanTree(const std::string& p, Scanned d) override {
    race();
    real.scanTree(p, [this, d](const Result<daemon::TreeScan>& s) {
      if (s) scanned = *s;
      d(s);
    });
  }
  Result<daemon::TreeQueries> digestQueries(std::uint64_t id, const std::vector<std::size_t>& f) override {
    return real.digestQueries(id, f);
  }
  void packScanned(std::uint64_t id, const std::vector<std::vector<bool>>& s, const std::vector<bool>& w,
                   Packed d) override {
    real.packScanned(id, s, w, d);
  }
  void dropScan(std::uint64_t id) override { real.dropScan(id); }
  void dropScratch(const std::string& p) override { real.dropScratch(p); }
  void listTree(const std::string& p, Listed d) override { race(), real.listTree(p, d); }
  Result<daemon::CompressionSample> sampleCompression(const std::string& p, std::uint64_t n) override {
    return race(), real.sampleCompression(p, n);
  }
  void compressFile(const std::string& p, std::uint64_t n, Compressed d) override { race(), real.compressFile(p, n, d); }
  void serveStripes(const std::string& t, const std::string& p, std::uint64_t n, const std::vector<daemon::StripeCut>& s,
                    std::uint32_t c, Served d) override {
    race(), real.serveStripes(t, p, n, s, c, d);
  }
  void receiveFile(const std::string& t, std::uint64_t n, const std::string& s, const std::string& p,
                   const std::string& f, Received d) override {
    real.receiveFile(t, n, s, p, f, d);
  }
  void release(const std::string& t) override { real.release(t); }
  void pace(double up, double down) override { real.pace(up, down); }
};

struct Failures final : kj::TaskSet::ErrorHandler {
  void taskFailed(kj::Exception&&) override {}
};

// As hex, both the bytes' SHA-256 and an order's.
std::string sha256Of(const std::string& bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  return hexOf(digest, sizeof digest);
}
std::string hex(const std::string& digest) {
  return hexOf(reinterpret_cast<const unsigned char*>(digest.data()), digest.size());
}

struct Lab {
  fs::path top;
  kj::EventLoop loop;
  kj::WaitScope ws{loop};
  ManualClock clock;
  daemon::MemoryStateStore store;
  daemon::Coordinator coordinator{clock, daemon::RateTableOptions{}, store};
  testing::TestTrust keys{clock};
  Failures failures;
  kj::TaskSet tasks{failures};
  transport::data::DataPlane plane{clock, [](transport::data::TransferEvent) {}};
  std::unique_ptr<daemon::DataSourcePlane> source;
  std::unique_ptr<RacedPlane> raced;
  std::unique_ptr<daemon::SendService> sends;
  daemon::send_lab::Agents agents;
  kj::Own<transport::RpcConnection> server, peer;
  wire::ClientSession::Client client = nullptr;

  // srv/share/d holds what the operator may send; private/ (outside the
  // roots, as a root-only directory would be) the bytes they may not read.
  Lab() {
    char name[] = "/tmp/hnow-send-race-XXXXXX";
    top = ::mkdtemp(name);
    fs::create_directories(top / "srv" / "share" / "d");
    fs::create_directories(top / "private");
    std::ofstream(top / "srv" / "share" / "d" / "data.bin") << "public bytes";
    std::ofstream(top / "private" / "data.bin") << "root-only bytes";
    std::ofstream(top / "private" / "shadow") << "more root-only bytes";
    source = std::make_unique<daemon::DataSourcePlane>(plane, (top / "trees").string());
    raced = std::make_unique<RacedPlane>(*source);
    sends = std::make_unique<daemon::SendService>(coordinator, *raced, "hnowd:1", clock, 1 << 20, 0,
                                                  [] { return std::string(32, 'k'); });
    for (const char* agent : {"a1", "a2"}) {
      daemon::AgentRegistration r{agent, "room", {"relay"}, std::string(agent) + ":9000", {"/srv"}};
      const daemon::SessionId s = coordinator.attach(r, std::make_unique<daemon::send_lab::FakeAgent>(agent, &agents));
      planner::NodeRates rates;
      rates.sendOverheadSeconds = rates.receiveOverheadSeconds = 1e-4;
      coordinator.reportRates(s, rates, {1e7, 1e7});
    }
    daemon::Services services;
    services.sends = sends.get();
    services.sendRoots = daemon::LiveRoots({(top / "srv").string()});
    auto pipe = kj::newTwoWayPipe();
    server = kj::heap<transport::RpcConnection>(
        kj::mv(pipe.ends[0]), kj::heap<daemon::GateServer>(coordinator, keys.trust, tasks, "10.0.0.9:4242", nullptr,
                                                           services));
    peer = kj::heap<transport::RpcConnection>(kj::mv(pipe.ends[1]));
    client = keys.loginOperator(peer->peerBootstrap<wire::Gate>()).wait(ws);
  }
  ~Lab() { fs::remove_all(top); }
  std::string at(const std::string& rel) const { return (top / rel).string(); }
  // The operator's swap: srv/share/d moved aside, a symlink to private/ in its place.
  void swapForSymlink() {
    fs::rename(top / "srv" / "share" / "d", top / "srv" / "share" / "d.old");
    fs::create_symlink(top / "private", top / "srv" / "share" / "d");
  }
  // Why hnowd refused a send of `path` ("" when it started).
  std::string sendRefusal(const std::string& path) {
    auto request = client.sendRequest();
    request.initRequest().setPath(path);
    request.getRequest().setDest("in/x");
    KJ_IF_MAYBE(e, kj::runCatchingExceptions([&]() { request.send().wait(ws); })) { return transport::describe(*e); }
    return "";
  }
};

}  // namespace

TEST_CASE("a directory swapped for a symlink between the [send] roots check and the read sends the checked file") {
  Lab lab;
  lab.raced->between = [&] { lab.swapForSymlink(); };
  const std::string why = lab.sendRefusal(lab.at("srv/share/d/data.bin"));
  REQUIRE_MESSAGE(why.empty(), why);
  CHECK_FALSE(lab.raced->between);  // the swap happened after the check
  REQUIRE(lab.agents.orders.size() == 2);
  for (const auto& order : lab.agents.orders) {
    CHECK(hex(order.sha256) != sha256Of("root-only bytes"));
    CHECK(hex(order.sha256) == sha256Of("public bytes"));
    CHECK(order.size == std::string("public bytes").size());
  }
}

TEST_CASE("a directory sent as a tree and swapped for a symlink after the [send] roots check is read as checked") {
  Lab lab;
  lab.raced->between = [&] { lab.swapForSymlink(); };
  const std::string why = lab.sendRefusal(lab.at("srv/share/d"));
  REQUIRE_MESSAGE(why.empty(), why);
  CHECK_FALSE(lab.raced->between);
  REQUIRE(lab.raced->scanned);
  // d/ held one file of 12 bytes when it was checked; private/ holds two others.
  CHECK(lab.raced->scanned->summary.files == 1);
  CHECK(lab.raced->scanned->summary.fileBytes == std::string("public bytes").size());
}

TEST_CASE("a send that comes without a pin, as an owed send does, is pinned by SendService and read through the pin") {
  daemon::send_lab::Lab lab;
  std::vector<std::string> pinned;
  lab.service.pinSourcesWith([&](const std::string& path) -> Result<daemon::SourcePin> {
    pinned.push_back(path);
    if (path == "/srv/share/gone") return Error{"refused " + path + ": /srv/share is a symlink"};
    return daemon::SourcePin{"/data/image.iso", nullptr, false};  // the recording plane's one file
  });
  daemon::SendRequest named = lab.toAll();
  named.path = "/srv/share/image.iso";
  const auto started = daemon::send_lab::started(lab, named);
  REQUIRE_MESSAGE(started, started.error().message);
  CHECK(pinned == std::vector<std::string>{"/srv/share/image.iso"});
  CHECK(lab.plane.served.size() == 1);

  daemon::SendRequest gone = lab.toAll();
  gone.path = "/srv/share/gone";
  CHECK(daemon::send_lab::refusalOf(lab, gone) == "refused /srv/share/gone: /srv/share is a symlink");
  // One pinned at the session already is not pinned again.
  daemon::SendRequest held = lab.toAll();
  held.pin = daemon::SourcePin{"/data/image.iso", nullptr, false};
  (void)daemon::send_lab::started(lab, held);
  CHECK(pinned.size() == 2);
}
