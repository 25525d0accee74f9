// A child that cannot open a connection to its parent says so within a few
// seconds, as kParentUnreachable, and does not try that parent again until
// told where to pull from (docs/reachability.md): a volunteer behind NAT or
// a firewall drops inbound SYNs, and the kernel alone would wait about two
// minutes. On 127.0.0.1 a listening socket whose accept queue is full drops
// SYNs the same way.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "cli/run_process.h"
#include "transport/data/data_plane.h"
#include "transport/data/frame.h"
#include "transport/data_plane_nodes.h"

using namespace hnow::transport::data;
using namespace hnow::testing;

namespace {

// A port on 127.0.0.1 nothing listens on (bound, then closed).
int closedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t length = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length);
  ::close(fd);
  return ntohs(a.sin_port);
}

// A listener that never accepts, its accept queue filled: the kernel drops
// further SYNs, as a firewall does.
struct BlackHole {
  int listener = -1;
  std::vector<int> fillers;
  int port = 0;
  BlackHole() {
    listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(listener, 0) == 0);
    socklen_t length = sizeof a;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &length);
    port = ntohs(a.sin_port);
    // Connect until one is left hanging (its SYN dropped).
    for (int i = 0; i < 8; ++i) {
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      fillers.push_back(fd);
      ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      int error = 0;
      socklen_t size = sizeof error;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
      sockaddr_in peer{};
      socklen_t peerSize = sizeof peer;
      if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peerSize) != 0) return;  // still connecting
    }
    FAIL("the accept queue never filled");
  }
  ~BlackHole() {
    for (int fd : fillers) ::close(fd);
    ::close(listener);
  }
};

struct Source {
  std::string bytes;
  std::string token = std::string(kTokenBytes, 'k');
  Source(TempDir& dir, std::size_t size, DataPlane& plane) : bytes(randomBytes(size)) {
    std::ofstream(dir.path / "source", std::ios::binary) << bytes;
    plane.addSource(token, ::open((dir.path / "source").c_str(), O_RDONLY | O_CLOEXEC), size);
  }
};

std::size_t countOf(Events& events, TransferEvent::Kind kind) {
  std::lock_guard lock(events.mutex);
  std::size_t n = 0;
  for (const TransferEvent& e : events.all) n += e.kind == kind;
  return n;
}

}  // namespace

TEST_CASE("a parent that drops SYNs is given up at the connect timeout, reported unreachable, not retried") {
  TempDir dir;
  Node source;
  DataOptions options;
  options.connectTimeout = 500ms;
  options.reconnectDelay = 50ms;
  Node child(options);
  Source file(dir, 1 << 20, source.plane);
  BlackHole hole;
  const std::string parent = "127.0.0.1:" + std::to_string(hole.port);
  child.plane.receive(file.token, file.bytes.size(), shaOf(file.bytes), targetIn(dir.path / "c", "f"));
  const auto start = std::chrono::steady_clock::now();
  child.plane.pull(file.token, parent);
  auto unreachable = child.events.waitFor(TransferEvent::Kind::kParentUnreachable, 5s);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(unreachable);
  CHECK(seconds >= 0.45);
  CHECK(seconds < 2.0);
  CHECK(unreachable->parent == parent);
  CHECK(unreachable->message.find("no answer to the connection within 0.5 s") != std::string::npos);
  CHECK_FALSE(child.events.first(TransferEvent::Kind::kParentLost));
  // Not retried on its own (the reconnect delay is 50 ms): once only.
  std::this_thread::sleep_for(700ms);
  CHECK(countOf(child.events, TransferEvent::Kind::kParentUnreachable) == 1);
  // Told where else to pull from, it completes.
  child.plane.pull(file.token, source.address);
  auto done = child.events.waitFor(TransferEvent::Kind::kDone);
  REQUIRE(done);
  CHECK(readWhole(dir.path / "c" / "f") == file.bytes);
}

TEST_CASE("a parent whose port refuses the connection is reported unreachable at once") {
  TempDir dir;
  DataOptions options;
  options.connectTimeout = 3s;
  Node child(options);
  const std::string token(kTokenBytes, 'r');
  const std::string bytes = randomBytes(1000);
  child.plane.receive(token, bytes.size(), shaOf(bytes), targetIn(dir.path / "c", "f"));
  const auto start = std::chrono::steady_clock::now();
  child.plane.pull(token, "127.0.0.1:" + std::to_string(closedPort()));
  auto unreachable = child.events.waitFor(TransferEvent::Kind::kParentUnreachable, 5s);
  REQUIRE(unreachable);
  CHECK(std::chrono::steady_clock::now() - start < 1s);
  CHECK(unreachable->message.find("cannot connect") != std::string::npos);
}

TEST_CASE("a parent that accepted and then went away is still a lost parent, retried") {
  TempDir dir;
  auto source = std::make_unique<Node>();
  DataOptions options;
  options.reconnectDelay = 50ms;
  Node child(options);
  source->plane.setRates(2e6, 0);
  Source file(dir, 2 << 20, source->plane);
  child.plane.receive(file.token, file.bytes.size(), shaOf(file.bytes), targetIn(dir.path / "c", "f"));
  child.plane.pull(file.token, source->address);
  REQUIRE(child.events.waitFor(TransferEvent::Kind::kProgress));
  source.reset();
  REQUIRE(child.events.waitFor(TransferEvent::Kind::kParentLost));
  // Its retries find the port closed: that parent is now unreachable.
  auto unreachable = child.events.waitFor(TransferEvent::Kind::kParentUnreachable, 3s);
  REQUIRE(unreachable);
  CHECK(unreachable->bytes > 0);
}
