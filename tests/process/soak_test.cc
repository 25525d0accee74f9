// A reduced soak (the full one is bench/soak.sh): after a
// warm-up, back-to-back and concurrent small sends on 16 agents leave every
// daemon with exactly the file descriptors it had, and resident memory
// within a bound that one leaked operation per send would break.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <thread>

#include "process/raw_peer.h"
#include "process/test_cluster.h"
#include "process/transfer_checks.h"

using hnow::testing::eventually;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TestCluster;
using hnow::testing::writeRandomFile;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

struct Usage {
  std::size_t fds = 0;
  long rssKiB = 0;
};

Usage usageOf(pid_t pid) {
  Usage u;
  std::error_code error;
  for (auto it = fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", error);
       !error && it != fs::directory_iterator(); it.increment(error))
    ++u.fds;
  const std::string status = readWhole("/proc/" + std::to_string(pid) + "/status");
  auto at = status.find("VmRSS:");
  if (at != std::string::npos) u.rssKiB = std::stol(status.substr(at + 6));
  return u;
}

// RSS growth allowed over the measured 50 sends, after a warm-up of the
// same load. Measured noise on this machine (docs/bench-soak.md,
// RELIABILITY.md): up to ~1 MiB per process from one run to the next (the
// allocator returns the top of its heap or not; a code path run the first
// time maps its pages). Steps of ~2 MiB in hnowd were glibc arenas made for
// a burst wider than the warm-up's, bounded since (transport/malloc_bounds.h),
// so they are not noise to allow for. So: any process under 4 MiB
// (a leak of 80 KiB per send breaks it), and the median agent under 1 MiB
// (every agent takes part in every send, so a leak of 20 KiB per received
// file shows in all sixteen while noise does not).
constexpr long kAnyProcessKiB = 4096;
constexpr long kMedianAgentKiB = 1024;

using Snapshot = std::map<std::string, Usage>;

Snapshot snapshot(const std::map<std::string, pid_t>& pids) {
  Snapshot s;
  for (const auto& [name, pid] : pids) s[name] = usageOf(pid);
  return s;
}

bool sameFds(const Snapshot& a, const Snapshot& b) {
  for (const auto& [name, u] : a)
    if (b.at(name).fds != u.fds) return false;
  return true;
}

// Connections end on the daemons' own loops a moment after a client
// returns: settled once two readings 200 ms apart agree.
Snapshot settled(const std::map<std::string, pid_t>& pids) {
  Snapshot previous = snapshot(pids);
  for (int i = 0; i < 25; ++i) {
    std::this_thread::sleep_for(200ms);
    Snapshot now = snapshot(pids);
    if (sameFds(previous, now)) return now;
    previous = now;
  }
  return previous;
}

// The file of send `name`: bytes of its own, since an agent holding a
// file's bytes anywhere under its root copies them there instead of
// receiving them (docs/send.md), and a soak must move every send's.
std::string sourceOf(const TestCluster& cluster, const std::string& name) {
  const fs::path path = cluster.dir.path / "sources" / (name + ".bin");
  writeRandomFile(path, 64 * 1024, std::hash<std::string>{}(name));
  return path.string();
}

// `count` sends at once, each its own client and file; how many failed.
int concurrentSends(const TestCluster& cluster, const std::string& prefix, int count) {
  std::vector<std::string> files;
  for (int i = 0; i < count; ++i) files.push_back(sourceOf(cluster, prefix + std::to_string(i)));
  std::vector<std::thread> clients;
  std::vector<int> status(static_cast<std::size_t>(count), -1);
  for (int i = 0; i < count; ++i)
    clients.emplace_back([&, i]() {
      status[static_cast<std::size_t>(i)] =
          runCommand(cluster.hnow("send " + files[static_cast<std::size_t>(i)] + " --dest " + prefix +
                                  std::to_string(i) + ".bin")).status;
    });
  for (auto& c : clients) c.join();
  int failed = 0;
  for (int s : status) failed += s != 0;
  return failed;
}

// Each to a name of its own: an agent that holds the file at --dest already is sent nothing.
int sequentialSends(const TestCluster& cluster, const std::string& prefix, int count) {
  int failed = 0;
  for (int i = 0; i < count; ++i) {
    const std::string name = prefix + std::to_string(i);
    failed += runCommand(cluster.hnow("send " + sourceOf(cluster, name) + " --dest " + name + ".bin")).status != 0;
  }
  return failed;
}

}  // namespace

TEST_CASE("16 agents after 30 back-to-back and 20 concurrent sends: every daemon's fds back to its warm baseline, RSS bounded") {
  constexpr int kAgents = 16;
  TestCluster cluster("--agents 16 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  std::map<std::string, pid_t> pids{{"hnowd", cluster.pid("hnowd")}};
  for (int a = 1; a <= kAgents; ++a) pids["agent-" + std::to_string(a)] = cluster.pid("agent-" + std::to_string(a));
  // Warm-up, the same load as measured: hnowd keeps the last 32 finished
  // sends (send_service.h), and the allocator keeps the high-water mark of
  // 20 sends at once (freed memory stays in the heap, not a leak).
  CHECK(sequentialSends(cluster, "warm-seq-", 30) == 0);
  CHECK(concurrentSends(cluster, "warm-", 20) == 0);
  const Snapshot warm = settled(pids);

  CHECK(sequentialSends(cluster, "seq-", 30) == 0);
  CHECK(concurrentSends(cluster, "c-", 20) == 0);
  for (int i = 0; i < 20; ++i) {
    const std::string bytes = readWhole(cluster.dir.path / "sources" / ("c-" + std::to_string(i) + ".bin"));
    for (int a = 1; a <= kAgents; ++a) REQUIRE(readWhole(cluster.root(a) / ("c-" + std::to_string(i) + ".bin")) == bytes);
  }

  Snapshot after = snapshot(pids);
  CHECK(eventually([&]() { return sameFds(warm, after = snapshot(pids)); }, 5s));
  std::vector<long> agentGrowth;
  for (const auto& [name, u] : warm) {
    const Usage& a = after.at(name);
    MESSAGE(name << ": fds " << u.fds << " -> " << a.fds << ", RSS " << u.rssKiB << " -> " << a.rssKiB << " KiB");
    CHECK_MESSAGE(a.fds == u.fds, name);
    CHECK_MESSAGE(a.rssKiB - u.rssKiB < kAnyProcessKiB, name);
    if (name != "hnowd") agentGrowth.push_back(a.rssKiB - u.rssKiB);
  }
  std::sort(agentGrowth.begin(), agentGrowth.end());
  const long median = (agentGrowth[7] + agentGrowth[8]) / 2;
  MESSAGE("median agent RSS growth " << median << " KiB");
  CHECK(median < kMedianAgentKiB);
}
