// Idle connections that never log in or say hello, from other addresses,
// against real daemons on 127.0.0.1: hnowd's pre-login slots and the data
// ports' hello slots are counted by address (base/peer_slots.h), so the
// flood never keeps hnow, the agents or a send out. docs/security-tests.md.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>

#include <atomic>
#include <memory>
#include <thread>

#include "process/child_process.h"
#include "process/raw_peer.h"
#include "process/test_cluster.h"
#include "process/transfer_checks.h"

using hnow::testing::ChildProcess;
using hnow::testing::eventually;
using hnow::testing::processAlive;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TestCluster;
using hnow::testing::writeRandomFile;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// Keeps `perTarget` connections open to each target that say nothing, half
// from 127.0.0.2 and half spread over 127.0.0.3..42 (other peers to the
// daemons than the cluster's own, on 127.0.0.1), and opens a new one for
// each the daemon closes, until destroyed.
class Flood {
 public:
  Flood(std::vector<std::string> targets, int perTarget) : targets_(std::move(targets)), perTarget_(perTarget) {
    thread_ = std::thread([this]() { run(); });
  }
  ~Flood() {
    stop_ = true;
    thread_.join();
  }
  std::uint64_t opened() const { return opened_; }

 private:
  static int connectFrom(const std::string& source, const std::string& target) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_in local{}, remote{};
    local.sin_family = remote.sin_family = AF_INET;
    ::inet_pton(AF_INET, source.c_str(), &local.sin_addr);
    const auto colon = target.rfind(':');
    ::inet_pton(AF_INET, target.substr(0, colon).c_str(), &remote.sin_addr);
    remote.sin_port = htons(static_cast<std::uint16_t>(std::stoi(target.substr(colon + 1))));
    ::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local);
    ::connect(fd, reinterpret_cast<sockaddr*>(&remote), sizeof remote);  // EINPROGRESS: polled below
    return fd;
  }
  static std::string sourceOf(int i) {
    return i % 2 == 0 ? "127.0.0.2" : "127.0.0." + std::to_string(3 + (i / 2) % 40);
  }
  void run() {
    std::vector<pollfd> fds;
    std::vector<std::pair<std::size_t, int>> slot;  // target, index
    for (std::size_t t = 0; t < targets_.size(); ++t)
      for (int i = 0; i < perTarget_; ++i) {
        fds.push_back({connectFrom(sourceOf(i), targets_[t]), POLLIN, 0});
        slot.emplace_back(t, i);
        ++opened_;
      }
    while (!stop_) {
      ::poll(fds.data(), fds.size(), 50);
      // At most 50 a target each turn: the flood goes on without taking
      // every core of the machine the daemons share.
      std::vector<int> reopened(targets_.size(), 0);
      for (std::size_t k = 0; k < fds.size(); ++k) {
        if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        auto [t, i] = slot[k];
        if (reopened[t]++ >= 50) continue;
        ::close(fds[k].fd);
        fds[k].fd = connectFrom(sourceOf(i), targets_[t]);
        fds[k].revents = 0;
        ++opened_;
      }
      std::this_thread::sleep_for(20ms);
    }
    for (auto& p : fds) ::close(p.fd);
  }

  std::vector<std::string> targets_;
  int perTarget_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> opened_{0};
  std::thread thread_;
};

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("500 idle connections to hnowd's ports and an agent's data port, reopened as they close, lock no one out") {
  // 1500 sockets here, beside the cluster's.
  rlimit files{};
  ::getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = std::min<rlim_t>(files.rlim_max, 8192);
  ::setrlimit(RLIMIT_NOFILE, &files);
  REQUIRE(files.rlim_cur >= 2048);

  TestCluster cluster("--agents 2");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string control = cluster.hnowdAddress(), hnowdData = cluster.dataAddress("hnowd"),
                    agentData = cluster.dataAddress("agent-1");
  REQUIRE(!hnowdData.empty());
  REQUIRE(!agentData.empty());
  Flood flood({control, hnowdData, agentData}, 500);
  // Every slot of every port taken and the refused connections coming back.
  REQUIRE(eventually([&]() { return flood.opened() > 3000; }, 20s));

  // hnow status answers at once.
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto status = runCommand(cluster.hnow("status"));
    CHECK_MESSAGE(status.status == 0, status.err);
    CHECK(std::chrono::steady_clock::now() - start < 3s);
  }

  // An agent restarted registers within 5 s.
  const pid_t old = cluster.pid("agent-2");
  ::kill(old, SIGKILL);
  REQUIRE(eventually([&]() { return !processAlive(old); }, 5s));
  const fs::path log = cluster.dir.path / "logs" / "agent-2.log";
  const std::size_t before = count(readWhole(log), "registered with hnowd");
  const auto restarted = std::chrono::steady_clock::now();
  auto agent = std::make_unique<ChildProcess>(
      std::vector<std::string>{HNOW_AGENT_BINARY, "--config", (cluster.dir.path / "agents" / "agent-2.toml").string()},
      std::vector<std::string>{}, log.string());
  std::ofstream(cluster.dir.path / "pids" / "agent-2.pid") << agent->pid();  // for `hnow local down`
  CHECK(eventually([&]() { return count(readWhole(log), "registered with hnowd") > before; }, 5s));
  CHECK(std::chrono::steady_clock::now() - restarted < 5s);
  // hnowd counts it alive at its next tick.
  CHECK(eventually(
      [&]() {
        const std::string table = runCommand(cluster.hnow("status")).out;
        const auto line = table.find("\nagent-2 ");
        return line != std::string::npos && table.substr(line, table.find('\n', line + 1) - line).find(" alive ") !=
                                                std::string::npos;
      },
      5s));

  // A small send to both agents lands promptly, through flooded data ports.
  const std::string bytes = writeRandomFile(cluster.dir.path / "small.bin", 256 * 1024);
  const auto start = std::chrono::steady_clock::now();
  auto sent = runCommand(cluster.hnow("send " + (cluster.dir.path / "small.bin").string() + " --dest small.bin"));
  CHECK_MESSAGE(sent.status == 0, sent.err);
  CHECK(std::chrono::steady_clock::now() - start < 5s);
  for (int a = 1; a <= 2; ++a) CHECK(readWhole(cluster.root(a) / "small.bin") == bytes);

  // Each refusal is logged, and the daemons still run.
  CHECK(cluster.logHas("hnowd", "waiting to log in, its share (max_unauthenticated_per_host"));
  CHECK(cluster.logHas("hnowd", "waiting to log in, to make room for "));
  CHECK(cluster.logHas("hnowd", "waiting to say hello, its share"));
  CHECK(cluster.logHas("agent-1", "waiting to say hello, its share"));
  CHECK(processAlive(cluster.pid("hnowd")));
  CHECK(processAlive(cluster.pid("agent-1")));
  CHECK(processAlive(agent->pid()));
}
