// `hnow run` on a terminal (a pty) draws its progress line: the phase,
// units accepted of the total, agents working (docs/jobs.md, "Progress").
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "process/on_terminal.h"
#include "process/test_cluster.h"

using hnow::testing::kHnowBinary;
using hnow::testing::OnTerminal;
using Cluster = hnow::testing::TestCluster;

TEST_CASE("hnow run on a terminal shows the run's phase, units of the total and agents working, then clears the line") {
  Cluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const auto input = cluster.dir.path / "input.txt";
  {
    std::ofstream out(input);
    for (int i = 0; i < 2000; ++i) out << "line " << i << "\n";
  }
  // Each share takes a few seconds, so hnowd pushes while the agents compute.
  OnTerminal run({kHnowBinary, "--config", (cluster.dir.path / "client.toml").string(), "run", "--input",
                  input.string(), "--shell", "--cmd", "sleep 3; wc -l", "--concat"});
  REQUIRE(run.waitExit(std::chrono::seconds(90)) == std::optional<int>(0));
  const std::string shown = run.shown();
  CHECK_MESSAGE(shown.find("\rrunning  ") != std::string::npos, shown);
  CHECK_MESSAGE(shown.find("/2000 units (") != std::string::npos, shown);
  CHECK_MESSAGE(shown.find(" working") != std::string::npos, shown);
  // The line is blanked before the result and the table follow.
  const auto table = shown.find("run: 2000 units");
  REQUIRE_MESSAGE(table != std::string::npos, shown);
  const auto lastLine = shown.rfind(" units (", table);
  REQUIRE(lastLine != std::string::npos);
  CHECK_MESSAGE(shown.find("     \r", lastLine) < table, shown);
}
