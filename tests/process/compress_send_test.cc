// `hnow send --compress` on a local cluster (docs/compression.md): real
// hnowd and agents on 127.0.0.1, stopped by a guard even when a check fails.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "process/test_cluster.h"
#include "process/transfer_checks.h"

using hnow::testing::partFiles;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::shaHex;
using hnow::testing::TestCluster;
using hnow::testing::writeRandomFile;
using hnow::testing::writeTextFile;
namespace fs = std::filesystem;

namespace {

// The compressed files hnowd still holds.
std::size_t compressedAtHnowd(const TestCluster& cluster) {
  std::size_t n = 0;
  std::error_code error;
  for (const auto& e : fs::recursive_directory_iterator(cluster.dir.path / "hnowd", error))
    n += e.path().extension() == ".zst";
  return n;
}

}  // namespace

TEST_CASE("a 4 MiB text file sent with --compress zstd arrives byte-identical on every agent in less than half its bytes, in one tree and in stripes") {
  TestCluster cluster("--agents 4 --uplink-mbps 200");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  unsigned variant = 0;
  for (const std::string algo : {"tree", "striped"}) {
    CAPTURE(algo);
    const std::string text = writeTextFile(cluster.dir.path / "build.log", 4 << 20, variant++);
    const std::string dest = "in/" + algo + ".log";
    auto r = runCommand(cluster.hnow("send " + (cluster.dir.path / "build.log").string() + " --dest " + dest +
                                     " --compress zstd --json --algo " + algo));
    REQUIRE_MESSAGE(r.status == 0, (r.err + r.out));
    auto report = nlohmann::json::parse(r.out);
    CHECK(report["failed"].empty());
    const auto& c = report["compression"];
    CHECK(c["algo"] == "zstd");
    CHECK(c["plain_bytes"] == text.size());
    CHECK(c["sent_bytes"].get<std::uint64_t>() < text.size() / 2);
    CHECK(c["why"].get<std::string>().rfind("zstd: --compress zstd; ", 0) == 0);
    CHECK(report["size"] == c["sent_bytes"]);
    REQUIRE(report["copies"].size() == 4);
    for (const auto& copy : report["copies"]) {
      CHECK(readWhole(copy["path"].get<std::string>()) == text);
      // What hnowd checked is the digest of what it served: the compressed file's.
      CHECK(copy["sha256"] == report["copies"][0]["sha256"]);
      CHECK(copy["sha256"] != shaHex(text));
    }
    for (int a = 1; a <= 4; ++a) CHECK(partFiles(cluster.root(a)) == 0);
  }
  CHECK(compressedAtHnowd(cluster) == 0);  // dropped with each send
  auto ops = runCommand(cluster.hnow("ops --json"));
  REQUIRE(ops.status == 0);
  auto record = nlohmann::json::parse(ops.out)["operations"][0]["summary"];
  CHECK(record["compress"] == "zstd");
  CHECK(record["size"] == 4 << 20);
  CHECK(record["sent_size"].get<std::uint64_t>() < (4 << 20) / 2);
}

TEST_CASE("random data sent with --compress auto goes as it is, and the report says it looked random") {
  TestCluster cluster("--agents 2 --uplink-mbps 50");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string bytes = writeRandomFile(cluster.dir.path / "random.bin", 2 << 20);
  auto r = runCommand(cluster.hnow("send " + (cluster.dir.path / "random.bin").string() +
                                   " --dest in/random.bin --compress auto --json"));
  REQUIRE_MESSAGE(r.status == 0, (r.err + r.out));
  auto report = nlohmann::json::parse(r.out);
  CHECK(report["compression"]["algo"] == "none");
  CHECK(report["compression"]["why"].get<std::string>().find("random-looking") != std::string::npos);
  CHECK(report["compression"]["sent_bytes"] == bytes.size());
  for (const auto& copy : report["copies"]) {
    CHECK(readWhole(copy["path"].get<std::string>()) == bytes);
    CHECK(copy["sha256"] == shaHex(bytes));
  }
  CHECK(compressedAtHnowd(cluster) == 0);
  // A manifest's items go as they are: --compress is refused there.
  auto manifest = runCommand(cluster.hnow("send --manifest m.toml --compress zstd"));
  CHECK(manifest.status == 2);
  CHECK(manifest.err.find("--compress is for one FILE or DIR") != std::string::npos);
}

TEST_CASE("a text file on slow links is compressed by --compress auto, and the table says why") {
  TestCluster cluster("--agents 2 --uplink-mbps 20");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string text = writeTextFile(cluster.dir.path / "data.csv", 3 << 20);
  auto r = runCommand(cluster.hnow("send " + (cluster.dir.path / "data.csv").string() + " --dest in/data.csv"));
  REQUIRE_MESSAGE(r.status == 0, (r.err + r.out));
  CHECK(r.out.find("  compressed with zstd: 3.0 MiB -> ") != std::string::npos);
  CHECK(r.out.find("(auto: ") != std::string::npos);
  for (int a = 1; a <= 2; ++a) CHECK(readWhole(cluster.root(a) / "in" / "data.csv") == text);
}
