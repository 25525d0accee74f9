// `hnow demo` end to end with a small file: real hnowd and
// agents on 127.0.0.1, started and stopped by the demo itself.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/run_process.h"

using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kHnow = HNOW_BINARY;

// Processes whose command line names `needle` (the demo's cluster lives
// under it): none may outlive the demo.
int processesNaming(const std::string& needle) {
  int n = 0;
  std::error_code error;
  for (const auto& e : fs::directory_iterator("/proc", error)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = readWhole(e.path() / "cmdline");
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    n += cmdline.find(needle) != std::string::npos;
  }
  return n;
}

}  // namespace

TEST_CASE("hnow demo sends with auto and the three baselines, every copy verified, and leaves nothing behind") {
  TempDir dir;
  const fs::path picture = dir.path / "demo.svg";
  // TMPDIR: the demo's own directory goes under ours, so we can see it is removed.
  auto r = runCommand("TMPDIR=" + dir.path.string() + " " + kHnow + " demo --agents 8 --size 3000000 --json --svg " +
                      picture.string());
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto report = nlohmann::json::parse(r.out);
  REQUIRE(report["runs"].size() == 4);
  const char* algos[] = {"auto", "binomial", "chain", "flat"};
  for (int i = 0; i < 4; ++i) {
    const auto& run = report["runs"][i];
    CHECK(run["algo"] == algos[i]);
    CHECK(run["expected"] == 8);
    CHECK(run["verified"] == 8);
    CHECK(run["predicted_s"].get<double>() > 0);
    CHECK(run["actual_s"].get<double>() > 0);
  }
  // The demo's lab has slow senders that receive well: auto plans a pipelined tree.
  CHECK(report["runs"][0]["plan"] == "pipelined");
  // The picture of the auto run's send: its tree over the 8 agents, the bottleneck marked.
  const std::string svg = readWhole(picture);
  CHECK(svg.find("pipelined tree") != std::string::npos);
  CHECK(svg.find(">agent-8<") != std::string::npos);
  CHECK(svg.find("class=\"edge bottleneck") != std::string::npos);
  int left = 0;
  for (const auto& e : fs::directory_iterator(dir.path)) left += e.path() != picture;
  CHECK(left == 0);  // the cluster's directory, the file and every copy are gone
  CHECK(processesNaming(dir.path.string()) == 0);
}

TEST_CASE("hnow local up refuses per-agent lists of the wrong length before starting anything") {
  TempDir dir;
  for (const char* option : {"--sites a,b", "--downlink-mbps 10,20", "--uplink-mbps 0"}) {
    auto r = runCommand(kHnow + " local up --dir " + (dir.path / "c").string() + " --agents 3 " + std::string(option));
    CHECK_MESSAGE(r.status == 2, option);
    CHECK_FALSE(fs::exists(dir.path / "c" / "pids"));
  }
}
