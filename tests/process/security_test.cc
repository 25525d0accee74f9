// Hostile input against real hnowd and agents on 127.0.0.1 (docs/architecture.md "Integrity and security defaults",
// docs/security.md). Each refusal must leave a log line that says what was refused, from whom and why, and the daemons
// must serve a normal send afterwards. docs/security-tests.md lists them.
#include <doctest/doctest.h>
#include <poll.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "process/raw_peer.h"
#include "process/test_cluster.h"
#include "process/transfer_checks.h"
#include "transport/data/frame.h"

using hnow::testing::eventually;
using hnow::testing::partFiles;
using hnow::testing::processAlive;
using hnow::testing::RawPeer;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TestCluster;
using hnow::testing::writeRandomFile;
namespace fs = std::filesystem;
namespace data = hnow::transport::data;
using namespace std::chrono_literals;

namespace {

// A normal send to every agent still lands, and every daemon still runs.
void checkUnharmed(const TestCluster& cluster, int agents) {
  const std::string bytes = writeRandomFile(cluster.dir.path / "after.bin", 300 * 1024);
  auto r = runCommand(cluster.hnow("send " + (cluster.dir.path / "after.bin").string() + " --dest after.bin"));
  CHECK_MESSAGE(r.status == 0, r.err);
  for (int a = 1; a <= agents; ++a) CHECK(readWhole(cluster.root(a) / "after.bin") == bytes);
  CHECK(processAlive(cluster.pid("hnowd")));
  for (int a = 1; a <= agents; ++a) CHECK(processAlive(cluster.pid("agent-" + std::to_string(a))));
}

// A frame header as the data plane encodes it, with a made-up length and
// no payload: what a raw peer sends to claim a payload it never sends.
std::string headerClaiming(data::FrameType type, std::uint32_t length) {
  std::string frame = data::encodeFrame(type, 0, std::string(32, 'x'));
  frame.resize(data::kHeaderBytes);
  for (int i = 0; i < 4; ++i) frame[8 + i] = static_cast<char>(length >> (8 * i));
  return frame;
}

std::string littleEndian32(std::uint32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(v >> (8 * i));
  return out;
}

// A TCP proxy for one connection that records what each side sent.
struct RecordingProxy {
  int listener = -1;
  std::string address;
  std::string fromClient, fromServer;
  std::thread thread;

  explicit RecordingProxy(const std::string& upstream) {
    listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(listener, 1);
    socklen_t length = sizeof a;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &length);
    address = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
    thread = std::thread([this, upstream]() { relayOne(upstream); });
  }
  ~RecordingProxy() {
    if (thread.joinable()) thread.join();
    ::close(listener);
  }
  void relayOne(const std::string& upstream) {
    pollfd accepting{listener, POLLIN, 0};
    if (::poll(&accepting, 1, 10000) <= 0) return;
    int client = ::accept(listener, nullptr, nullptr);
    RawPeer server(upstream);
    pollfd fds[2] = {{client, POLLIN, 0}, {server.fd(), POLLIN, 0}};
    char buffer[16384];
    for (bool open = true; open;) {
      if (::poll(fds, 2, 10000) <= 0) break;
      for (int i = 0; i < 2 && open; ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        ssize_t n = ::recv(fds[i].fd, buffer, sizeof buffer, 0);
        if (n <= 0) {
          open = false;
          break;
        }
        (i == 0 ? fromClient : fromServer).append(buffer, static_cast<std::size_t>(n));
        ::send(fds[1 - i].fd, buffer, static_cast<std::size_t>(n), MSG_NOSIGNAL);
      }
    }
    ::close(client);
  }
};

}  // namespace

TEST_CASE("a replayed login (a recorded hnow status, its bytes sent again on a new connection) is refused and logged") {
  TestCluster cluster("--agents 1");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path& dir = cluster.dir.path;
  // Someone on the path records a real login and status call...
  std::string recorded, answered;
  {
    RecordingProxy proxy(cluster.hnowdAddress());
    std::string hnowdKey = readWhole(dir / "hnowd" / "hnowd.pub");
    hnowdKey.pop_back();
    std::ofstream(dir / "via-proxy.toml") << "coordinator = \"" << proxy.address << "\"\noperator = \"local\"\n"
                                          << "key_file = \"operator.key\"\ncoordinator_key = \"" << hnowdKey << "\"\n";
    auto r = runCommand(hnow::testing::kHnowBinary + " --config " + (dir / "via-proxy.toml").string() + " status");
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(r.out.find("agent-1") != std::string::npos);
    proxy.thread.join();
    recorded = proxy.fromClient;
    answered = proxy.fromServer;
  }
  REQUIRE_FALSE(recorded.empty());
  CHECK(answered.find("agent-1") != std::string::npos);  // the status answer crossed the proxy

  // ...and sends the client's bytes again: hnowd's fresh nonce makes the old signature worthless.
  RawPeer replay(cluster.hnowdAddress());
  REQUIRE(replay.connected());
  REQUIRE(replay.send(recorded));
  replay.readUntilClosed(1500ms);
  CHECK(replay.received.find("agent-1") == std::string::npos);  // no session, no status
  CHECK(cluster.logHas("hnowd", "refused operator login as local from " + replay.self() +
                                    ": its signature does not answer this connection's challenge"));
  checkUnharmed(cluster, 1);
}

TEST_CASE("oversized and malformed control messages from a raw peer are refused before they are read, and logged") {
  TestCluster cluster("--agents 1");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  // A segment table declaring one segment of 16 Mi words (128 MiB): hnowd
  // must not wait for, nor allocate, the body.
  RawPeer huge(cluster.hnowdAddress());
  REQUIRE(huge.connected());
  REQUIRE(huge.send(littleEndian32(0) + littleEndian32(16u << 20)));
  CHECK(huge.readUntilClosed(3000ms));  // closed by hnowd, not left hanging
  CHECK(cluster.logHas("hnowd", "refused a control message from " + huge.self() +
                                    ": a message of 134217728 bytes (the limit is 2097152)"));
  // The limit is the sum over segments: 3 segments of 1 MiB each.
  RawPeer split(cluster.hnowdAddress());
  REQUIRE(split.send(littleEndian32(2) + littleEndian32(1 << 17) + littleEndian32(1 << 17) + littleEndian32(1 << 17)));
  CHECK(split.readUntilClosed(3000ms));
  CHECK(cluster.logHas("hnowd", "refused a control message from " + split.self() + ": a message of 3145728 bytes"));
  // 100000 segments: capnp allows 512.
  RawPeer segments(cluster.hnowdAddress());
  REQUIRE(segments.send(littleEndian32(99999) + littleEndian32(1)));
  CHECK(segments.readUntilClosed(3000ms));
  CHECK(cluster.logHas("hnowd", "refused a control message from " + segments.self() +
                                    ": a message of 100000 segments (the limit is 512)"));
  checkUnharmed(cluster, 1);
}

TEST_CASE("an agent's data port drops a forged token and refuses oversized or malformed frames, and logs each") {
  TestCluster cluster("--agents 2");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string port = cluster.dataAddress("agent-1");
  REQUIRE_FALSE(port.empty());

  // A hello with 32 random bytes as the token: no data, the connection closed.
  std::mt19937_64 random(9);
  std::string token(data::kTokenBytes, '\0');
  for (auto& c : token) c = static_cast<char>(random());
  RawPeer forged(port);
  REQUIRE(forged.send(data::encodeFrame(data::FrameType::kHello, 0, token)));
  CHECK(forged.readUntilClosed(3000ms));
  CHECK(forged.received.empty());
  CHECK(cluster.logHas("agent-1", "data connection from " + forged.self() +
                                      " dropped: unknown operation token (forged, or of an operation that has ended)"));

  // A DATA header claiming 2 GiB: refused from the header, nothing buffered.
  RawPeer oversized(port);
  REQUIRE(oversized.send(headerClaiming(data::FrameType::kData, 0x7fffffff)));
  CHECK(oversized.readUntilClosed(3000ms));
  CHECK(cluster.logHas("agent-1", "data connection from " + oversized.self() +
                                      " refused: oversized frame: 2147483647 bytes (the limit is 131072); closed"));
  // A hello claiming a 1 MiB token.
  RawPeer longHello(port);
  REQUIRE(longHello.send(headerClaiming(data::FrameType::kHello, 1 << 20)));
  CHECK(longHello.readUntilClosed(3000ms));
  CHECK(cluster.logHas("agent-1", "data connection from " + longHello.self() +
                                      " refused: a hello of 1048576 bytes (it must carry a 32-byte token)"));
  // Not the data protocol at all.
  RawPeer http(port);
  REQUIRE(http.send("GET / HTTP/1.1\r\nHost: hnow.example\r\nAccept: */*\r\n\r\n"));  // over one header
  CHECK(http.readUntilClosed(3000ms));
  CHECK(cluster.logHas("agent-1", "data connection from " + http.self() + " refused: not an hnow data stream (bad magic)"));
  checkUnharmed(cluster, 2);
}

TEST_CASE("--dest escaping the root by '..' or by a symlink inside it is refused, logged by the agent, and nothing lands outside") {
  TestCluster cluster("--agents 2");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path& dir = cluster.dir.path;
  const fs::path outside = dir / "outside";
  fs::create_directories(outside);
  writeRandomFile(dir / "source.bin", 64 * 1024);
  const std::string source = (dir / "source.bin").string();

  auto dotdot = runCommand(cluster.hnow("send " + source + " --dest ../escaped.bin"));
  CHECK(dotdot.status == 1);
  CHECK(dotdot.err.find("'..' is not allowed") != std::string::npos);
  // hnowd refuses it before any agent is asked (each agent would refuse it too: dest_path_test).
  CHECK(cluster.logHas("hnowd", "refused a send: '..' is not allowed in --dest (../escaped.bin)"));

  // A symlink inside the root that points outside it, as a directory on the way.
  fs::create_directory_symlink(outside, cluster.root(1) / "escape");
  auto viaLink = runCommand(cluster.hnow("send " + source + " --dest escape/escaped.bin --to agent-1"));
  CHECK(viaLink.status == 1);
  CHECK(viaLink.err.find("symlink") != std::string::npos);
  CHECK(cluster.logHas("agent-1", "refused a file into 'escape/escaped.bin' that hnowd asked about: " +
                                      (cluster.root(1) / "escape").string() + " is a symlink or not a directory: refused"));
  CHECK(cluster.logHas("hnowd", "a send was refused by its destinations: agent-1: " +
                                    (cluster.root(1) / "escape").string() + " is a symlink"));
  // The same link named by an absolute path inside the root.
  auto absolute = runCommand(cluster.hnow("send " + source + " --dest " + (cluster.root(1) / "escape" / "abs.bin").string() +
                                          " --to agent-1"));
  CHECK(absolute.status == 1);
  CHECK(cluster.logHas("agent-1", "refused a file into '" + (cluster.root(1) / "escape" / "abs.bin").string() + "'"));

  // A symlink as the last component is a different file there: refused
  // without --force. With it, the link is replaced by the received file (an
  // atomic rename over the link itself): the file it pointed to is untouched.
  std::ofstream(outside / "precious.txt") << "precious\n";
  fs::create_symlink(outside / "precious.txt", cluster.root(1) / "link.bin");
  auto unforced = runCommand(cluster.hnow("send " + source + " --dest link.bin --to agent-1"));
  CHECK(unforced.status == 1);
  CHECK(unforced.err.find("agent-1 holds a different file at link.bin") != std::string::npos);
  CHECK(fs::is_symlink(cluster.root(1) / "link.bin"));
  auto last = runCommand(cluster.hnow("send " + source + " --dest link.bin --to agent-1 --force"));
  CHECK_MESSAGE(last.status == 0, last.err);
  CHECK(readWhole(outside / "precious.txt") == "precious\n");
  CHECK_FALSE(fs::is_symlink(cluster.root(1) / "link.bin"));
  CHECK(readWhole(cluster.root(1) / "link.bin") == readWhole(dir / "source.bin"));

  CHECK_FALSE(fs::exists(outside / "escaped.bin"));
  CHECK_FALSE(fs::exists(outside / "abs.bin"));
  CHECK_FALSE(fs::exists(cluster.root(1).parent_path() / "escaped.bin"));
  for (int a = 1; a <= 2; ++a) CHECK(partFiles(cluster.root(a)) == 0);
  CHECK(partFiles(outside) == 0);
  checkUnharmed(cluster, 2);
}

TEST_CASE("a manifest item escaping a root (its dest or its source file, by '..' or a symlink) refuses the manifest, logged") {
  TestCluster cluster("--agents 2");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path& dir = cluster.dir.path;
  const fs::path outside = dir / "outside";
  writeRandomFile(outside / "secret.bin", 4096);
  writeRandomFile(cluster.root(1) / "ok.bin", 64 * 1024);
  fs::create_directory_symlink(outside, cluster.root(1) / "escape");
  fs::create_directory_symlink(outside, cluster.root(2) / "escape");
  fs::create_symlink(outside / "secret.bin", cluster.root(1) / "leak.bin");
  auto manifest = [&](const std::string& file, const std::string& dest) {
    const fs::path path = dir / "m.toml";
    std::ofstream(path) << "[[item]]\nsource = \"agent-1\"\nfile = \"" << file << "\"\ndest = \"" << dest
                        << "\"\nto = [\"agent-2\"]\n";
    return runCommand(cluster.hnow("send --manifest " + path.string()));
  };

  auto dotdot = manifest("ok.bin", "../escaped.bin");
  CHECK(dotdot.status == 1);
  CHECK(cluster.logHas("hnowd", "manifest refused: item at " + (dir / "m.toml").string() +
                                    ":1:1: '..' is not allowed in dest (../escaped.bin)"));
  auto destLink = manifest("ok.bin", "escape/escaped.bin");
  CHECK(destLink.status == 1);
  CHECK(cluster.logHas("agent-2", "refused a receive into 'escape/escaped.bin' that hnowd ordered: " +
                                      (cluster.root(2) / "escape").string() + " is a symlink or not a directory: refused"));
  CHECK(cluster.logHas("hnowd", "manifest refused: item at " + (dir / "m.toml").string() + ":1:1: agent-2 refused"));
  auto sourceDir = manifest("escape/secret.bin", "got.bin");
  CHECK(sourceDir.status == 1);
  CHECK(cluster.logHas("agent-1", "refused to serve a file: " + (cluster.root(1) / "escape").string() +
                                      " is a symlink or not a directory: refused"));
  auto sourceFile = manifest("leak.bin", "got.bin");
  CHECK(sourceFile.status == 1);
  CHECK(cluster.logHas("agent-1", "refused to serve a file: " + (cluster.root(1) / "leak.bin").string() +
                                      " is a symlink: refused"));
  auto sourceDotdot = manifest("../../../outside/secret.bin", "got.bin");
  CHECK(sourceDotdot.status == 1);
  CHECK(sourceDotdot.err.find("'..' is not allowed") != std::string::npos);
  CHECK(cluster.logHas("agent-1", "refused to serve a file: '..' is not allowed in a source file"));

  CHECK_FALSE(fs::exists(outside / "escaped.bin"));
  CHECK_FALSE(fs::exists(cluster.root(2) / "got.bin"));
  for (int a = 1; a <= 2; ++a) CHECK(partFiles(cluster.root(a)) == 0);
  checkUnharmed(cluster, 2);
}
