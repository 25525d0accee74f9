// systemd's notify protocol without systemd: the test plays the service
// manager with a unix datagram socket named by NOTIFY_SOCKET.
#include <doctest/doctest.h>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <fstream>

#include "cli/run_process.h"
#include "process/child_process.h"

using hnow::testing::ChildProcess;
using hnow::testing::readWhole;
using hnow::testing::TempDir;
using namespace std::chrono_literals;

namespace {

const std::string kHnowd = HNOWD_BINARY;
const std::string kAgent = HNOW_AGENT_BINARY;

// The service manager's end: a datagram socket bound in a temp dir.
class NotifySocket {
 public:
  explicit NotifySocket(const std::filesystem::path& path) : path_(path.string()) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    path_.copy(address.sun_path, sizeof address.sun_path - 1);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  }
  ~NotifySocket() { ::close(fd_); }
  std::string env() const { return "NOTIFY_SOCKET=" + path_; }

  // The next message, or "" when none arrives within `limit`.
  std::string next(std::chrono::milliseconds limit) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(limit.count())) != 1) return "";
    char buffer[4096];
    ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "";
  }
  // Skips other messages until one containing `line`; false if none within `limit`.
  bool awaitLine(const std::string& line, std::chrono::milliseconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      std::string m = next(left);
      if (hasLine(m, line)) return true;
      seen.push_back(m);
    }
    return false;
  }
  static bool hasLine(const std::string& message, const std::string& line) {
    return ("\n" + message + "\n").find("\n" + line + "\n") != std::string::npos;
  }
  std::vector<std::string> seen;

 private:
  std::string path_;
  int fd_ = -1;
};

void writeHnowdConfig(const std::filesystem::path& dir) {
  std::ofstream(dir / "secret") << "0123456789abcdef0123456789abcdef\n";
  std::ofstream(dir / "hnowd.toml")
      << "listen = \"127.0.0.1:0\"\ndata_dir = \"data\"\nsecret_file = \"secret\"\n";
}

std::string awaitAddress(const std::filesystem::path& file) {
  for (int i = 0; i < 100 && !std::filesystem::exists(file); ++i) std::this_thread::sleep_for(20ms);
  std::string address = readWhole(file);
  if (!address.empty()) address.pop_back();
  return address;
}

}  // namespace

TEST_CASE("hnowd tells the service manager READY=1 once listening, WATCHDOG=1 while running, STOPPING=1 on SIGTERM") {
  TempDir dir;
  writeHnowdConfig(dir.path);
  NotifySocket manager(dir.path / "notify");
  ChildProcess hnowd({kHnowd, "--config", (dir.path / "hnowd.toml").string()},
                     {manager.env(), "WATCHDOG_USEC=200000"}, (dir.path / "hnowd.log").string());
  std::string first = manager.next(3000ms);
  CHECK(NotifySocket::hasLine(first, "READY=1"));
  CHECK(std::filesystem::exists(dir.path / "data" / "hnowd.address"));  // listening before READY
  // Half of WATCHDOG_USEC: 0.1 s; two within a second shows it repeats.
  CHECK(manager.awaitLine("WATCHDOG=1", 1000ms));
  CHECK(manager.awaitLine("WATCHDOG=1", 1000ms));
  hnowd.signal(SIGTERM);
  CHECK(manager.awaitLine("STOPPING=1", 3000ms));
  CHECK(hnowd.waitExit(3000ms) == 0);
}

TEST_CASE("without WATCHDOG_USEC hnowd sends no WATCHDOG=1") {
  TempDir dir;
  writeHnowdConfig(dir.path);
  NotifySocket manager(dir.path / "notify");
  ChildProcess hnowd({kHnowd, "--config", (dir.path / "hnowd.toml").string()}, {manager.env()},
                     (dir.path / "hnowd.log").string());
  REQUIRE(NotifySocket::hasLine(manager.next(3000ms), "READY=1"));
  hnowd.signal(SIGTERM);
  CHECK(manager.awaitLine("STOPPING=1", 3000ms));
  for (const auto& m : manager.seen) CHECK_FALSE(NotifySocket::hasLine(m, "WATCHDOG=1"));
  CHECK(hnowd.waitExit(3000ms) == 0);
}

TEST_CASE("an agent is READY=1 only once registered with hnowd") {
  TempDir dir;
  writeHnowdConfig(dir.path);
  ChildProcess hnowd({kHnowd, "--config", (dir.path / "hnowd.toml").string()}, {},
                     (dir.path / "hnowd.log").string());
  std::string address = awaitAddress(dir.path / "data" / "hnowd.address");
  REQUIRE_FALSE(address.empty());
  std::ofstream(dir.path / "agent.toml") << "name = \"a1\"\ncoordinator = \"" << address
                                         << "\"\ndata_dir = \"agent\"\nsecret_file = \"secret\"\n";
  // hnowd frozen: the kernel still accepts the TCP connection, nobody answers the login.
  hnowd.signal(SIGSTOP);
  NotifySocket manager(dir.path / "notify");
  ChildProcess agent({kAgent, "--config", (dir.path / "agent.toml").string()},
                     {manager.env(), "WATCHDOG_USEC=400000"}, (dir.path / "agent.log").string());
  // The watchdog runs while the agent waits; READY=1 must not come yet. The
  // first WATCHDOG=1 is sent at start; the second comes 0.2 s later, when
  // the agent has long been connected and waiting for hnowd's answer.
  CHECK(manager.awaitLine("WATCHDOG=1", 1000ms));
  CHECK(manager.awaitLine("WATCHDOG=1", 1000ms));
  for (const auto& m : manager.seen) CHECK_FALSE(NotifySocket::hasLine(m, "READY=1"));
  hnowd.signal(SIGCONT);
  CHECK(manager.awaitLine("READY=1", 5000ms));
  for (const auto& m : manager.seen) CHECK_FALSE(NotifySocket::hasLine(m, "READY=1"));
  CHECK(readWhole(dir.path / "hnowd.log").find("agent a1 (site default) registered") != std::string::npos);
  agent.signal(SIGTERM);
  CHECK(manager.awaitLine("STOPPING=1", 3000ms));
  CHECK(agent.waitExit(3000ms) == 0);
}
