// Two sends of different files to one --dest at once, on real hnowd and
// agents on 127.0.0.1: the agents hold one file, so only one send may say
// it delivered; the other is refused by the agents (agent/dest_claims.h),
// with a message naming the send that holds the destination.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "process/test_cluster.h"
#include "process/transfer_checks.h"

using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::shaHex;
using hnow::testing::TestCluster;
using hnow::testing::writeRandomFile;
namespace fs = std::filesystem;

TEST_CASE("two sends of different files to one --dest at once: one delivers, the other is refused naming it") {
  // 8 MiB at 40 Mbit/s takes over a second: the second send's receive orders come while the first's run.
  TestCluster cluster("--agents 2 --uplink-mbps 40");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string one = writeRandomFile(cluster.dir.path / "one.bin", 8 << 20, 1);
  const std::string two = writeRandomFile(cluster.dir.path / "two.bin", 8 << 20, 2);
  hnow::testing::ProcessResult first, second;
  std::thread a([&] {
    first = runCommand(cluster.hnow("send " + (cluster.dir.path / "one.bin").string() +
                                    " --dest in/same.bin --compress none --json"));
  });
  std::thread b([&] {
    second = runCommand(cluster.hnow("send " + (cluster.dir.path / "two.bin").string() +
                                     " --dest in/./same.bin --compress none --json"));
  });
  a.join();
  b.join();
  // Exactly one delivered; the agents hold its bytes, and its report says so.
  const std::string both = first.err + "\n---\n" + second.err;
  REQUIRE_MESSAGE((first.status == 0) != (second.status == 0), both);
  const hnow::testing::ProcessResult& won = first.status == 0 ? first : second;
  const hnow::testing::ProcessResult& lost = first.status == 0 ? second : first;
  const std::string& bytes = first.status == 0 ? one : two;
  const auto report = nlohmann::json::parse(won.out);
  REQUIRE(report["copies"].size() == 2);
  for (const auto& copy : report["copies"]) {
    CHECK(copy["sha256"] == shaHex(bytes));
    CHECK(readWhole(copy["path"].get<std::string>()) == bytes);
  }
  CHECK_MESSAGE(lost.err.find("is being received already by send record ") != std::string::npos, lost.err);
  CHECK(lost.err.find("choose another --dest") != std::string::npos);
  for (int a = 1; a <= 2; ++a) {
    CHECK(readWhole(cluster.root(a) / "in" / "same.bin") == bytes);
    CHECK(cluster.logHas("agent-" + std::to_string(a), "is being received already by send record"));
  }
  // Once it ended, the destination takes the other file.
  auto after = runCommand(cluster.hnow("send " + (cluster.dir.path / (first.status == 0 ? "two.bin" : "one.bin")).string() +
                                       " --dest in/same.bin --force"));
  CHECK_MESSAGE(after.status == 0, after.err);
  for (int a = 1; a <= 2; ++a) CHECK(readWhole(cluster.root(a) / "in" / "same.bin") == (first.status == 0 ? two : one));
}
