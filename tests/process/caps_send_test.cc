// Bandwidth caps end to end (docs/bandwidth-limits.md): real hnowd and
// agents on 127.0.0.1; margins are wide (a noisy 2-core machine).
#include <doctest/doctest.h>
#include <signal.h>

#include <filesystem>
#include <map>
#include <thread>
#include <nlohmann/json.hpp>

#include "cli/run_process.h"
#include "process/test_cluster.h"
#include "process/transfer_checks.h"

using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::shaHex;
using hnow::testing::TempDir;
using hnow::testing::writeRandomFile;
namespace fs = std::filesystem;

namespace {

const std::string kHnow = HNOW_BINARY;
using Cluster = hnow::testing::TestCluster;

}  // namespace

TEST_CASE("a send with --max-rate is predicted and takes about the time of the file at that rate, and says so") {
  // Links of 400 Mbit/s; the send may use 40 of them.
  Cluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::uint64_t size = 8 << 20;
  const std::string bytes = writeRandomFile(cluster.dir.path / "source.bin", size);
  auto r = runCommand(cluster.hnow("send " + (cluster.dir.path / "source.bin").string() +
                                   " --dest in/copy.bin --compress none --max-rate 40M --json"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto report = nlohmann::json::parse(r.out);
  CHECK(report["max_rate_bps"].get<double>() == doctest::Approx(40e6));
  const double atCap = size / 5e6;  // 40 Mbit/s = 5 MB/s: 1.68 s
  const double predicted = report["predicted_s"].get<double>(), actual = report["actual_s"].get<double>();
  CHECK(predicted >= 0.95 * atCap);
  CHECK(predicted <= 1.5 * atCap);
  // Paced: never much faster than the cap; a slow machine may take longer.
  CHECK(actual >= 0.8 * atCap);
  CHECK(actual <= 4 * predicted);
  for (int agent : {1, 2}) CHECK(shaHex(readWhole(cluster.root(agent) / "in" / "copy.bin")) == shaHex(bytes));
  auto ops = nlohmann::json::parse(runCommand(cluster.hnow("ops --json")).out)["operations"];
  REQUIRE(ops.size() >= 1);
  CHECK(ops[0]["summary"]["max_rate_bps"].get<double>() == doctest::Approx(40e6));
  // The report names the operation as hnow ops lists it.
  CHECK(report["id"] == ops[0]["id"]);
}

TEST_CASE("a send with a --max-rate that cannot be read is refused before anything moves, with how to write it") {
  Cluster cluster("--agents 1 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  writeRandomFile(cluster.dir.path / "source.bin", 1 << 10);
  auto r = runCommand(cluster.hnow("send " + (cluster.dir.path / "source.bin").string() + " --dest in/x --max-rate 40"));
  CHECK(r.status == 2);
  CHECK(r.err.find("--max-rate") != std::string::npos);
  CHECK(r.err.find("100M") != std::string::npos);
}

TEST_CASE("hnow status shows the caps in force of hnowd and every agent, none without [limits]") {
  Cluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  auto r = runCommand(cluster.hnow("status --json"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto status = nlohmann::json::parse(r.out);
  CHECK(status["coordinator"]["caps"]["uplink"].is_null());
  CHECK(status["coordinator"]["caps"]["downlink"].is_null());
  REQUIRE(status["agents"].size() == 2);
  for (const auto& agent : status["agents"]) CHECK(agent["caps"]["uplink"].is_null());
  auto text = runCommand(cluster.hnow("status"));
  CHECK(text.out.find("caps in force") != std::string::npos);
  CHECK(text.out.find("agent-1          up none, down none") != std::string::npos);
}

TEST_CASE("an agent's [limits] reach hnowd: status shows its cap in force and what set it, and plans take it") {
  Cluster cluster("--agents 2 --uplink-mbps 400 --max-uplink-mbps 40,0");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  nlohmann::json status;
  // The caps arrive with the login, beside the rates local up waits for.
  bool shown = false;
  for (int tries = 0; tries < 50 && !shown; ++tries) {
    auto r = runCommand(cluster.hnow("status --json"));
    if (r.status == 0) {
      status = nlohmann::json::parse(r.out);
      for (const auto& a : status["agents"]) shown |= a["name"] == "agent-1" && !a["caps"]["uplink"].is_null();
    }
    if (!shown) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  REQUIRE_MESSAGE(shown, status.dump());
  std::map<std::string, nlohmann::json> agents;
  for (const auto& a : status["agents"]) agents[a["name"]] = a;
  CHECK(agents["agent-1"]["caps"]["uplink"]["bytes_per_s"].get<double>() == doctest::Approx(5e6));
  CHECK(agents["agent-1"]["caps"]["uplink"]["by"] == "max_uplink_mbps");
  CHECK(agents["agent-1"]["rates"]["uplink_bytes_per_s"].get<double>() == doctest::Approx(5e6));
  CHECK(agents["agent-2"]["caps"]["uplink"].is_null());
  CHECK(agents["agent-2"]["rates"]["uplink_bytes_per_s"].get<double>() == doctest::Approx(50e6));
  auto text = runCommand(cluster.hnow("status"));
  CHECK(text.out.find("agent-1          up 40.0 (max_uplink_mbps), down none") != std::string::npos);
}
