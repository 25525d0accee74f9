// Names of the longest a filesystem takes (255 bytes) sent to real agents
// on 127.0.0.1: a file, a compressed file, a tree holding one and a tree
// named so. The receivers' temp names fit beside them (agent/dest_path.h).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "process/test_cluster.h"
#include "process/transfer_checks.h"

using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TestCluster;
using hnow::testing::writeRandomFile;
namespace fs = std::filesystem;

TEST_CASE("a file, a compressed file and a tree with 255-byte names land on every agent, no temp file left") {
  TestCluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string longest(255, 'n');
  const std::string bytes = writeRandomFile(cluster.dir.path / "source.bin", 300 << 10);
  std::string text;
  for (int i = 0; text.size() < (300 << 10); ++i) text += "line " + std::to_string(i) + " of a log\n";
  writeRandomFile(cluster.dir.path / "tree" / longest, 1000, 3);
  const std::string inTree = readWhole(cluster.dir.path / "tree" / longest);
  {
    std::ofstream out(cluster.dir.path / "log.txt");
    out << text;
  }
  for (const std::string& args :
       {(cluster.dir.path / "source.bin").string() + " --dest in/" + longest + " --compress none",
        (cluster.dir.path / "log.txt").string() + " --dest zipped/" + longest + " --compress zstd",
        (cluster.dir.path / "tree").string() + " --dest " + longest}) {
    auto r = runCommand(cluster.hnow("send " + args));
    CHECK_MESSAGE(r.status == 0, r.err);
  }
  for (int a = 1; a <= 2; ++a) {
    CAPTURE(a);
    CHECK(readWhole(cluster.root(a) / "in" / longest) == bytes);
    CHECK(readWhole(cluster.root(a) / "zipped" / longest) == text);
    CHECK(readWhole(cluster.root(a) / longest / longest) == inTree);
    CHECK(hnow::testing::partFiles(cluster.root(a)) == 0);
  }
}
