// `hnow send --manifest` on a local cluster: two items from two
// source agents, and the refusals that stop a manifest before a byte moves.
#include <doctest/doctest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "cli/run_process.h"
#include "process/transfer_checks.h"

using hnow::testing::partFiles;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::shaHex;
using hnow::testing::TempDir;
using hnow::testing::writeRandomFile;
namespace fs = std::filesystem;

namespace {

const std::string kHnow = HNOW_BINARY;

struct LocalCluster {
  TempDir dir;
  hnow::testing::ProcessResult up;
  explicit LocalCluster(const std::string& options) {
    up = runCommand(kHnow + " local up --dir " + dir.path.string() + " " + options);
  }
  ~LocalCluster() {
    std::vector<pid_t> pids;
    std::error_code error;
    for (const auto& e : fs::directory_iterator(dir.path / "pids", error))
      pids.push_back(static_cast<pid_t>(std::stol("0" + readWhole(e.path()))));
    runCommand(kHnow + " local down --dir " + dir.path.string());
    for (pid_t pid : pids) ::kill(pid, SIGKILL);  // anything that would not stop
  }
  std::string hnow(const std::string& args) const {
    return kHnow + " --config " + (dir.path / "client.toml").string() + " " + args;
  }
  fs::path root(int agent) const { return dir.path / "agents" / ("agent-" + std::to_string(agent)) / "files"; }
  fs::path manifest(const std::string& text) const {
    const fs::path path = dir.path / "m.toml";
    std::ofstream(path) << text;
    return path;
  }
};

std::string item(const std::string& source, const std::string& file, const std::string& dest, const std::string& to) {
  return "[[item]]\nsource = \"" + source + "\"\nfile = \"" + file + "\"\ndest = \"" + dest + "\"\nto = " + to + "\n";
}

}  // namespace

TEST_CASE("a manifest of two items from two source agents lands byte-identical copies everywhere and bad items refuse it whole") {
  LocalCluster cluster("--agents 4 --uplink-mbps 200");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string a = writeRandomFile(cluster.root(1) / "data" / "a.bin", 2 << 20);
  const std::string b = writeRandomFile(cluster.root(2) / "b.bin", (1 << 20) + 17);
  const fs::path m = cluster.manifest(item("agent-1", "data/a.bin", "in/a.bin", "\"all\"") +
                                      item("agent-2", "b.bin", "in/b.bin", "[\"agent-1\", \"agent-3\", \"agent-4\"]"));

  auto r = runCommand(cluster.hnow("send --manifest " + m.string() + " --json"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto report = nlohmann::json::parse(r.out);
  CHECK(report["replans"] == 0);
  CHECK(report["predicted_s"].get<double>() > 0);
  CHECK(report["actual_s"].get<double>() > 0);
  REQUIRE(report["items"].size() == 2);
  const std::string contents[] = {a, b};
  const std::string sources[] = {"agent-1", "agent-2"};
  for (int k = 0; k < 2; ++k) {
    const auto& it = report["items"][k];
    CHECK(it["source"] == sources[k]);
    CHECK(it["failed"].empty());
    REQUIRE(it["copies"].size() == 3);  // every destination but the source
    for (const auto& copy : it["copies"]) {
      CHECK(copy["node"] != sources[k]);
      CHECK(readWhole(copy["path"].get<std::string>()) == contents[k]);
      CHECK(copy["sha256"] == shaHex(contents[k]));
    }
  }
  auto ops = nlohmann::json::parse(runCommand(cluster.hnow("ops --json")).out)["operations"];
  REQUIRE(ops.size() == 1);
  CHECK(ops[0]["kind"] == "manifest");
  CHECK(ops[0]["status"] == "done");
  CHECK(ops[0]["summary"]["ok"] == 6);

  // The same, detached: the record's id at once, `ops wait` follows it to its end.
  const fs::path again = cluster.manifest(item("agent-1", "data/a.bin", "in/a3.bin", "\"all\""));
  auto detached = runCommand(cluster.hnow("send --manifest " + again.string() + " --detach"));
  REQUIRE_MESSAGE(detached.status == 0, detached.err);
  auto waited = runCommand(cluster.hnow("ops wait " + std::to_string(std::stoll(detached.out))));
  CHECK_MESSAGE(waited.status == 0, waited.err);
  for (int agent = 2; agent <= 4; ++agent) CHECK(readWhole(cluster.root(agent) / "in/a3.bin") == a);

  // A missing source file refuses the whole manifest, naming the item and the agent.
  const fs::path missing = cluster.manifest(item("agent-1", "data/a.bin", "in/a2.bin", "\"all\"") +
                                            item("agent-2", "nope.bin", "in/b2.bin", "\"all\""));
  auto refused = runCommand(cluster.hnow("send --manifest " + missing.string()));
  CHECK(refused.status == 1);
  CHECK_MESSAGE(refused.err.find("item at " + missing.string() + ":6:1: agent-2 cannot serve nope.bin") !=
                    std::string::npos,
                refused.err);
  CHECK(refused.err.find("No such file") != std::string::npos);
  for (int agent = 1; agent <= 4; ++agent) {
    CHECK_FALSE(fs::exists(cluster.root(agent) / "in" / "a2.bin"));
    CHECK(partFiles(cluster.root(agent)) == 0);
  }
  // Agents and sites are checked by hnowd; the source's roots confine the file.
  auto unknown = runCommand(cluster.hnow("send --manifest " +
                                         cluster.manifest(item("agent-9", "a", "b", "\"all\"")).string()));
  CHECK(unknown.status == 1);
  CHECK(unknown.err.find(":1:1: no alive agent named 'agent-9'") != std::string::npos);
  auto site = runCommand(cluster.hnow("send --manifest " +
                                      cluster.manifest(item("agent-1", "a", "b", "[\"nowhere\"]")).string()));
  CHECK(site.status == 1);
  CHECK(site.err.find(":1:1: no alive agent or site named 'nowhere'") != std::string::npos);
  auto twice = runCommand(cluster.hnow("send --manifest " +
                                       cluster.manifest(item("agent-1", "data/a.bin", "in/same.bin", "\"all\"") +
                                                        item("agent-2", "b.bin", "in/same.bin", "[\"agent-3\"]"))
                                           .string()));
  CHECK(twice.status == 1);
  CHECK(twice.err.find(":6:1 both write in/same.bin on agent-3") != std::string::npos);
  auto escape = runCommand(cluster.hnow("send --manifest " +
                                        cluster.manifest(item("agent-1", "../../x", "b", "\"all\"")).string()));
  CHECK(escape.status == 1);
  CHECK(escape.err.find("'..' is not allowed") != std::string::npos);
  auto both = runCommand(cluster.hnow("send " + m.string() + " --manifest " + m.string()));
  CHECK(both.status == 2);
  CHECK(both.err.find("drop FILE") != std::string::npos);
}

TEST_CASE("a manifest sent with --max-rate lands whole and its record states the rate - a rate that is no rate is refused") {
  LocalCluster cluster("--agents 3 --uplink-mbps 200");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string a = writeRandomFile(cluster.root(1) / "a.bin", 1 << 20);
  const fs::path m = cluster.manifest(item("agent-1", "a.bin", "in/a.bin", "\"all\""));
  auto r = runCommand(cluster.hnow("send --manifest " + m.string() + " --max-rate 80M --json"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto report = nlohmann::json::parse(r.out);
  REQUIRE(report["items"][0]["copies"].size() == 2);
  for (const auto& copy : report["items"][0]["copies"]) CHECK(readWhole(copy["path"].get<std::string>()) == a);
  auto ops = nlohmann::json::parse(runCommand(cluster.hnow("ops --json")).out)["operations"];
  REQUIRE(ops.size() == 1);
  CHECK(ops[0]["summary"]["max_rate_bps"] == 80e6);

  auto bad = runCommand(cluster.hnow("send --manifest " + m.string() + " --max-rate fast"));
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--max-rate") != std::string::npos);
}
