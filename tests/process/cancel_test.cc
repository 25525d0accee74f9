// `hnow cancel` on a real hnowd and agents on 127.0.0.1 (docs/send.md,
// "Cancelling"): a send paced by --max-rate so that it lasts well past the
// cancel, then the agents' directories listed.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "cli/run_process.h"
#include "process/cancel_checks.h"
#include "process/child_process.h"
#include "process/test_cluster.h"
#include "process/transfer_checks.h"

using hnow::testing::ChildProcess;
using hnow::testing::eventually;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::filesUnder;
using hnow::testing::newestOperation;
using hnow::testing::sendUnderWay;
using hnow::testing::slowSend;
using hnow::testing::kHnowBinary;
using Cluster = hnow::testing::TestCluster;
namespace fs = std::filesystem;

TEST_CASE("hnow cancel of a running send stops it on every agent: no temp or partial file left, the record says cancelled and by whom") {
  Cluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  auto send = slowSend(cluster);
  const std::int64_t id = sendUnderWay(cluster, {1, 2});
  REQUIRE(id != 0);

  auto cancelled = runCommand(cluster.hnow("cancel " + std::to_string(id)));
  REQUIRE_MESSAGE(cancelled.status == 0, cancelled.err);
  // The client following the send says so and exits 3.
  CHECK(send->waitExit(std::chrono::seconds(10)) == std::optional<int>(3));
  CHECK(readWhole(cluster.dir.path / "send.err").find("send " + std::to_string(id) + " cancelled by local") !=
        std::string::npos);
  auto op = newestOperation(cluster);
  CHECK(op["id"].get<std::int64_t>() == id);
  CHECK(op["status"] == "cancelled");
  CHECK(op["summary"]["cancelled_by"] == "local");
  // Nothing on either agent: no temp file, no partial file at --dest.
  for (int agent : {1, 2}) {
    CHECK_MESSAGE(eventually([&] { return filesUnder(cluster.root(agent)).empty(); }, std::chrono::seconds(5)),
                  "agent-" << agent << " holds " << nlohmann::json(filesUnder(cluster.root(agent))).dump());
  }
  CHECK(cluster.logHas("hnowd", "cancelled by local"));

  auto again = runCommand(cluster.hnow("cancel " + std::to_string(id)));
  CHECK(again.status == 1);
  CHECK(again.err.find("operation " + std::to_string(id) + " is cancelled; nothing to cancel") != std::string::npos);
}

TEST_CASE("hnow cancel of a running job kills its commands and all they started on every agent, drops its files and writes no output") {
  Cluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path input = cluster.dir.path / "input.txt", output = cluster.dir.path / "out.txt",
                 pids = cluster.dir.path / "pids.txt";
  std::string lines;
  for (int i = 0; i < 2000; ++i) lines += "line " + std::to_string(i) + "\n";
  std::ofstream(input) << lines;
  // The shell and the sleep it started, each pid written first.
  const std::string command = "sleep 300 & echo $! >> " + pids.string() + "; echo $$ >> " + pids.string() + "; wait";
  ChildProcess run({kHnowBinary, "--config", (cluster.dir.path / "client.toml").string(), "run", "--input", input.string(),
                    "--shell", "--cmd", command, "--concat", "--output", output.string()},
                   {}, (cluster.dir.path / "run.err").string());
  std::vector<pid_t> started;
  auto readPids = [&] {
    started.clear();
    std::istringstream in(readWhole(pids));
    for (long pid; in >> pid;) started.push_back(static_cast<pid_t>(pid));
    return started.size() >= 4;  // a shell and a sleep on each agent
  };
  REQUIRE(eventually(readPids, std::chrono::seconds(20)));
  for (pid_t pid : started) CHECK(hnow::testing::processAlive(pid));
  auto op = newestOperation(cluster);
  REQUIRE(op["kind"] == "run");
  const std::int64_t id = op["id"].get<std::int64_t>();

  auto cancelled = runCommand(cluster.hnow("cancel " + std::to_string(id)));
  REQUIRE_MESSAGE(cancelled.status == 0, cancelled.err);
  CHECK(run.waitExit(std::chrono::seconds(10)) == std::optional<int>(3));
  CHECK(readWhole(cluster.dir.path / "run.err").find("run " + std::to_string(id) + " cancelled by local") !=
        std::string::npos);
  for (pid_t pid : started)
    CHECK_MESSAGE(eventually([&] { return !hnow::testing::processAlive(pid); }, std::chrono::seconds(5)),
                  "pid " << pid << " still runs");
  for (int agent : {1, 2})
    CHECK_MESSAGE(eventually([&] { return filesUnder(cluster.root(agent)).empty(); }, std::chrono::seconds(5)),
                  "agent-" << agent << " holds " << nlohmann::json(filesUnder(cluster.root(agent))).dump());
  CHECK_FALSE(fs::exists(output));
  op = newestOperation(cluster);
  CHECK(op["status"] == "cancelled");
  CHECK(op["summary"]["cancelled_by"] == "local");
}

TEST_CASE("hnow cancel of a directory's send leaves neither its bundle's temp file nor any staging on the agents") {
  Cluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path tree = cluster.dir.path / "course";
  fs::create_directories(tree / "week1");
  for (int i = 0; i < 4; ++i)
    hnow::testing::writeRandomFile(tree / "week1" / ("part" + std::to_string(i) + ".bin"), 4 << 20, i);
  ChildProcess send({kHnowBinary, "--config", (cluster.dir.path / "client.toml").string(), "send", tree.string(),
                     "--dest", "in/course", "--compress", "none", "--max-rate", "8M"},
                    {}, (cluster.dir.path / "tree.err").string());
  const std::int64_t id = sendUnderWay(cluster, {1, 2});
  REQUIRE_MESSAGE(id != 0, readWhole(cluster.dir.path / "tree.err"));
  auto cancelled = runCommand(cluster.hnow("cancel " + std::to_string(id)));
  REQUIRE_MESSAGE(cancelled.status == 0, cancelled.err);
  CHECK(send.waitExit(std::chrono::seconds(10)) == std::optional<int>(3));
  CHECK(newestOperation(cluster)["status"] == "cancelled");
  for (int agent : {1, 2})
    CHECK_MESSAGE(eventually([&] { return filesUnder(cluster.root(agent)).empty(); }, std::chrono::seconds(5)),
                  "agent-" << agent << " holds " << nlohmann::json(filesUnder(cluster.root(agent))).dump());
}
