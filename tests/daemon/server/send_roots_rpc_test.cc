// `[send] roots` at hnowd's RPC (server/send_paths.h): a client's session
// over an in-memory pipe, the real Gate, sessions, SendService and data
// plane. What a client names outside the roots is neither looked at
// (`sees` says hnowd does not read there, and why) nor read (`send` is
// refused and logged with the peer), whatever the client program does.
#include <doctest/doctest.h>
#include <kj/async-io.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <fstream>

#include "core/send/send_service.h"
#include "daemon/core/memory_state_store.h"
#include "daemon/server/captured_log.h"
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

struct Failures final : kj::TaskSet::ErrorHandler {
  void taskFailed(kj::Exception&&) override {}
};

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
  std::unique_ptr<daemon::SendService> sends;
  kj::Own<transport::RpcConnection> server, peer;
  wire::ClientSession::Client client = nullptr;

  Lab() {
    char name[] = "/tmp/hnow-send-roots-XXXXXX";
    top = ::mkdtemp(name);
    fs::create_directories(top / "srv");
    fs::create_directories(top / "elsewhere");
    std::ofstream(top / "srv" / "image.iso") << "an image";
    std::ofstream(top / "elsewhere" / "shadow") << "not for clients";
    fs::create_symlink(top / "elsewhere" / "shadow", top / "srv" / "link");
    source = std::make_unique<daemon::DataSourcePlane>(plane, (top / "trees").string());
    sends = std::make_unique<daemon::SendService>(coordinator, *source, "hnowd:1", clock, 1 << 20, 0,
                                                  [] { return std::string(32, 'k'); });
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

  // What hnowd answers `sees` for the file at `path`, as the client has it.
  std::pair<bool, std::string> sees(const std::string& path) {
    struct stat info {};
    ::stat(path.c_str(), &info);
    auto request = client.seesRequest();
    request.setPath(path);
    request.setSize(static_cast<std::uint64_t>(info.st_size));
    request.setMtimeNs(static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec);
    auto answer = request.send().wait(ws);
    return {answer.getSame(), answer.getWhy()};
  }
  // Why hnowd refused a send of `path` ("" when it did not).
  std::string sendRefusal(const std::string& path) {
    auto request = client.sendRequest();
    request.initRequest().setPath(path);
    request.getRequest().setDest("in/x");
    KJ_IF_MAYBE(e, kj::runCatchingExceptions([&]() { request.send().wait(ws); })) { return transport::describe(*e); }
    return "";
  }
};

}  // namespace

TEST_CASE("hnowd looks at a client's path only inside [send] roots, and says why it does not elsewhere") {
  Lab lab;
  auto inside = lab.sees(lab.at("srv/image.iso"));
  CHECK(inside.first);
  CHECK(inside.second.empty());
  for (const std::string& path : {lab.at("elsewhere/shadow"), lab.at("srv/../elsewhere/shadow"), lab.at("srv/link")}) {
    auto outside = lab.sees(path);
    CHECK_FALSE(outside.first);
    CHECK_MESSAGE(outside.second.find("[send] roots") != std::string::npos, path);
  }
  // A path hnowd does not have is only not seen: the client is on another machine.
  auto missing = lab.sees(lab.at("srv/none.iso"));
  CHECK_FALSE(missing.first);
  CHECK(missing.second.empty());
}

TEST_CASE("a send naming a path outside [send] roots - absolute, through '..' or a symlink - is refused and logged with the peer") {
  Lab lab;
  for (const std::string& path : {lab.at("elsewhere/shadow"), lab.at("srv/../elsewhere/shadow"), lab.at("srv/link")}) {
    std::string why;
    const std::string log = testing::logOf([&] { why = lab.sendRefusal(path); });
    CHECK_MESSAGE(why.find("refused " + path) != std::string::npos, why);
    CHECK(why.find("add the directory to [send] roots in hnowd.toml") != std::string::npos);
    CHECK_MESSAGE(log.find("refused a send from 10.0.0.9:4242: refused " + path) != std::string::npos, log);
  }
  // A path inside passes the roots: this hnowd then finds no agent to send it to.
  const std::string inside = lab.sendRefusal(lab.at("srv/image.iso"));
  CHECK(inside.find("[send] roots") == std::string::npos);
  CHECK(inside.find("no alive agent can receive") != std::string::npos);
}
