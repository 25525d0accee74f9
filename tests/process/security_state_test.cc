// hnowd's state.db deleted or emptied between two starts (to forget a
// revocation): hnowd refuses to start, says how to go on, and a revoked
// agent stays out; a backup restored, or --new-state, lets it start again.
// docs/security-tests.md.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "process/child_process.h"
#include "process/raw_peer.h"
#include "process/test_cluster.h"

using hnow::testing::ChildProcess;
using hnow::testing::eventually;
using hnow::testing::processAlive;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TestCluster;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

struct Hnowd {
  const TestCluster& cluster;
  std::unique_ptr<ChildProcess> process;

  void start(bool newState = false) {
    std::vector<std::string> argv{HNOWD_BINARY, "--config", (cluster.dir.path / "hnowd.toml").string()};
    if (newState) argv.push_back("--new-state");
    process = std::make_unique<ChildProcess>(argv, std::vector<std::string>{},
                                             (cluster.dir.path / "logs" / "hnowd.log").string());
    std::ofstream(cluster.dir.path / "pids" / "hnowd.pid") << process->pid();  // for `hnow local down`
  }
  void stop(pid_t pid) {
    ::kill(pid, SIGTERM);
    REQUIRE(eventually([&]() { return !processAlive(pid); }, 10s));
    if (process) process->waitExit(1000ms);
  }
  bool answers() const { return runCommand(cluster.hnow("status")).status == 0; }
};

// Whether `agent` is alive in hnowd's status table.
bool alive(const TestCluster& cluster, const std::string& agent) {
  const std::string table = runCommand(cluster.hnow("status")).out;
  const auto line = table.find("\n" + agent + " ");
  return line != std::string::npos &&
         table.substr(line, table.find('\n', line + 1) - line).find(" alive ") != std::string::npos;
}

}  // namespace

TEST_CASE("hnowd refuses to start with its state.db deleted or emptied, so a revoked agent stays out, and says how to go on") {
  TestCluster cluster("--agents 2");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  auto revoked = runCommand(cluster.hnow("agent revoke agent-2"));
  REQUIRE_MESSAGE(revoked.status == 0, revoked.err);
  const fs::path data = cluster.dir.path / "hnowd", db = data / "state.db";
  Hnowd hnowd{cluster, nullptr};
  hnowd.stop(cluster.pid("hnowd"));
  const std::string backup = readWhole(db);  // closed cleanly: the whole database is in the file
  REQUIRE(!backup.empty());

  // Deleted: hnowd stops at once, naming the file, the mark and the ways on.
  fs::remove(db);
  hnowd.start();
  CHECK(hnowd.process->waitExit(5000ms) == 1);
  CHECK(cluster.logHas("hnowd", "cannot open hnowd's state: " + db.string() + " does not exist, but " +
                                    (data / "state.mark").string() + " says hnowd kept its state there"));
  CHECK(cluster.logHas("hnowd", "Restore " + db.string() + " from a backup (hnowd stopped), or, to start afresh on "
                                "purpose, start hnowd once with --new-state"));
  CHECK_FALSE(fs::exists(db));

  // Emptied: the same.
  std::ofstream(db, std::ios::trunc).close();
  hnowd.start();
  CHECK(hnowd.process->waitExit(5000ms) == 1);
  CHECK(cluster.logHas("hnowd", db.string() + " is empty (0 bytes), but "));
  std::this_thread::sleep_for(3s);  // what the revoked agent took to log back in before
  CHECK_FALSE(hnowd.answers());

  // Restored from the backup: hnowd starts with the revocation it kept.
  std::ofstream(db, std::ios::binary | std::ios::trunc) << backup;
  const std::size_t logged = cluster.log("hnowd").size();
  hnowd.start();
  REQUIRE(eventually([&]() { return hnowd.answers(); }, 10s));
  CHECK(eventually([&]() { return alive(cluster, "agent-1"); }, 10s));
  CHECK(eventually(
      [&]() {
        return cluster.log("hnowd").find("refused agent login as agent-2 from 127.0.0.1:", logged) != std::string::npos;
      },
      10s));
  CHECK_FALSE(alive(cluster, "agent-2"));

  // --new-state: the operator accepts starting afresh, and hnowd says what is gone.
  hnowd.stop(hnowd.process->pid());
  fs::remove(db);
  hnowd.start(true);
  REQUIRE(eventually([&]() { return hnowd.answers(); }, 10s));
  CHECK(cluster.logHas("hnowd", "--new-state: started with " + db.string()));
  CHECK(cluster.logHas("hnowd", "revoke again any agent key that was revoked"));
  CHECK(eventually([&]() { return alive(cluster, "agent-1"); }, 10s));
}
