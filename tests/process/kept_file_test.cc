// `hnow send FILE` of a file outside hnowd's [send] roots (as from a
// laptop) on a local cluster: hnowd keeps the last upload of it
// (docs/tree-send.md, "Kept files"), so the same file sent again uploads
// nothing, and a file rewritten with its mtime set back is uploaded again.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "process/test_cluster.h"
#include "process/transfer_checks.h"

using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TempDir;
using hnow::testing::TestCluster;
using hnow::testing::writeRandomFile;
namespace fs = std::filesystem;

namespace {

// The uploads hnowd received whole, from its log (the data plane's line
// for a receive whose digest the sender checks: an upload's).
std::size_t uploadsReceived(const TestCluster& cluster) {
  const std::string log = cluster.log("hnowd");
  std::size_t n = 0;
  for (auto at = log.find("taken for the sender's to check"); at != std::string::npos;
       at = log.find("taken for the sender's to check", at + 1))
    ++n;
  return n;
}

std::size_t keptFiles(const TestCluster& cluster) {
  std::size_t n = 0;
  std::error_code error;
  for (const auto& e : fs::directory_iterator(cluster.dir.path / "hnowd" / "trees" / "kept-files", error))
    n += e.path().extension() == ".file";
  return n;
}

// Each agent's copy at `dest`, whether sent or copied from one it held.
void checkCopies(const TestCluster& cluster, const std::string& dest, const std::string& bytes) {
  for (int agent : {1, 2}) CHECK(readWhole(cluster.root(agent) / dest) == bytes);
}

}  // namespace

TEST_CASE("a file sent again from outside hnowd's roots is not uploaded again, one rewritten with its mtime set back is") {
  TestCluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  // Outside the lab and the test's directory: outside hnowd's [send] roots, so uploaded.
  TempDir laptop;
  const fs::path file = laptop.path / "image.bin";
  const std::string bytes = writeRandomFile(file, 3 << 20);
  auto send = [&](const std::string& dest) {
    return runCommand(cluster.hnow("send " + file.string() + " --dest " + dest + " --json"));
  };
  auto first = send("in/first.bin");
  REQUIRE_MESSAGE(first.status == 0, first.err);
  CHECK_MESSAGE(first.err.find("uploading " + file.string()) != std::string::npos, first.err);
  checkCopies(cluster, "in/first.bin", bytes);
  CHECK(uploadsReceived(cluster) == 1);
  CHECK(keptFiles(cluster) == 1);

  auto second = send("in/second.bin");
  REQUIRE_MESSAGE(second.status == 0, second.err);
  CHECK_MESSAGE(second.err.find("hnowd holds " + file.string() +
                                " from the last upload (same size, mtime); not uploading it again") != std::string::npos,
                second.err);
  CHECK(second.err.find("uploading " + file.string()) == std::string::npos);
  checkCopies(cluster, "in/second.bin", bytes);
  CHECK(uploadsReceived(cluster) == 1);  // no byte came to hnowd
  // Its record names the file as the client did, not hnowd's copy.
  auto ops = nlohmann::json::parse(runCommand(cluster.hnow("ops --json")).out)["operations"];
  REQUIRE(ops.size() >= 1);
  CHECK(ops[0]["summary"]["file"] == file.string());
  CHECK(ops[0]["summary"]["uploaded"] == true);

  // Rewritten in place with the same size and its mtime set back: only the ctime tells.
  const auto mtime = fs::last_write_time(file);
  const std::string changed = writeRandomFile(file, 3 << 20, 1);
  fs::last_write_time(file, mtime);
  auto third = send("in/third.bin");
  REQUIRE_MESSAGE(third.status == 0, third.err);
  CHECK_MESSAGE(third.err.find("uploading " + file.string()) != std::string::npos, third.err);
  checkCopies(cluster, "in/third.bin", changed);
  CHECK(uploadsReceived(cluster) == 2);
  CHECK(keptFiles(cluster) == 1);  // the copy it replaced is gone: no send reads it
}
