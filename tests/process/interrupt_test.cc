// Ctrl-C on `hnow send` and `hnow run` typed on a terminal (a pty): the
// first cancels the operation in hnowd and the client waits for its end,
// exit 130 (docs/send.md, "Cancelling").
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "process/cancel_checks.h"
#include "process/on_terminal.h"

using hnow::testing::eventually;
using hnow::testing::filesUnder;
using hnow::testing::kHnowBinary;
using hnow::testing::newestOperation;
using hnow::testing::OnTerminal;
using hnow::testing::readWhole;
using hnow::testing::sendUnderWay;
using hnow::testing::slowSendArgs;
using Cluster = hnow::testing::TestCluster;
namespace fs = std::filesystem;

TEST_CASE("Ctrl-C on hnow send cancels the send in hnowd: the client says so, waits for its end and exits 130, no partial copy left") {
  Cluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  OnTerminal send(slowSendArgs(cluster));
  const std::int64_t id = sendUnderWay(cluster, {1, 2});
  REQUIRE(id != 0);
  send.typeCtrlC();
  CHECK(send.waitExit(std::chrono::seconds(10)) == std::optional<int>(130));
  const std::string shown = send.shown();
  CHECK_MESSAGE(shown.find("cancelling send " + std::to_string(id) + " (Ctrl-C again to leave at once)") !=
                    std::string::npos, shown);
  CHECK(shown.find("send " + std::to_string(id) + " cancelled by local") != std::string::npos);
  auto op = newestOperation(cluster);
  CHECK(op["status"] == "cancelled");
  CHECK(op["summary"]["cancelled_by"] == "local");
  for (int agent : {1, 2})
    CHECK_MESSAGE(eventually([&] { return filesUnder(cluster.root(agent)).empty(); }, std::chrono::seconds(5)),
                  "agent-" << agent << " holds " << nlohmann::json(filesUnder(cluster.root(agent))).dump());
}

TEST_CASE("Ctrl-C on hnow run cancels the run in hnowd, its commands killed, and a second Ctrl-C leaves at once") {
  Cluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path input = cluster.dir.path / "input.txt", pids = cluster.dir.path / "pids.txt";
  std::ofstream(input) << "one\ntwo\nthree\n";
  OnTerminal run({kHnowBinary, "--config", (cluster.dir.path / "client.toml").string(), "run", "--input",
                  input.string(), "--shell", "--cmd", "echo $$ >> " + pids.string() + "; sleep 300", "--concat"});
  std::vector<pid_t> started;
  REQUIRE(eventually(
      [&] {
        started.clear();
        std::istringstream in(readWhole(pids));
        for (long pid; in >> pid;) started.push_back(static_cast<pid_t>(pid));
        return started.size() >= 2;
      },
      std::chrono::seconds(20)));
  // Under way once the client has heard of its record.
  REQUIRE(eventually([&] { return newestOperation(cluster)["status"] == "running"; }, std::chrono::seconds(5)));
  std::this_thread::sleep_for(std::chrono::seconds(2));  // a push or two: the client knows the record
  // hnowd stopped a while: the first Ctrl-C's cancel waits for it, the second leaves at once.
  const pid_t hnowd = cluster.pid("hnowd");
  REQUIRE(::kill(hnowd, SIGSTOP) == 0);
  run.typeCtrlC();
  const bool asked = eventually([&] { return run.shown().find("cancelling run") != std::string::npos; },
                                std::chrono::seconds(5));
  run.typeCtrlC();
  const std::optional<int> exited = run.waitExit(std::chrono::seconds(3));
  ::kill(hnowd, SIGCONT);
  REQUIRE_MESSAGE(asked, run.shown());
  CHECK(exited == std::optional<int>(130));
  CHECK_MESSAGE(run.shown().find("left; hnowd ends the run on its own") != std::string::npos, run.shown());
  // The cancel it sent is carried out once hnowd runs again.
  CHECK(eventually([&] { return newestOperation(cluster)["status"] == "cancelled"; }, std::chrono::seconds(10)));
  for (pid_t pid : started)
    CHECK_MESSAGE(eventually([&] { return !hnow::testing::processAlive(pid); }, std::chrono::seconds(5)),
                  "pid " << pid << " still runs");
}
