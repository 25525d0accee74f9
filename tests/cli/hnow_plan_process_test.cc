#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "run_process.h"

using hnow::testing::runCommand;
using hnow::testing::TempDir;

namespace {

const std::string kHnow = HNOW_BINARY;
const std::string kExamples = std::string(HNOW_SOURCE_DIR) + "/examples/";

std::string writeRequest(const TempDir& dir, const std::string& text) {
  auto path = dir.path / "request.toml";
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("hnow plan prints a table and writes a Gantt chart for the example broadcast") {
  TempDir dir;
  auto svg = (dir.path / "plan.svg").string();
  auto r = runCommand(kHnow + " plan " + kExamples + "broadcast.toml --svg " + svg);
  CHECK(r.status == 0);
  CHECK(r.out.find("broadcast with optimal") != std::string::npos);
  CHECK(r.out.find("makespan") != std::string::npos);
  std::string chart = hnow::testing::readWhole(svg);
  CHECK(chart.rfind("<svg", 0) == 0);
  CHECK(chart.find("makespan") != std::string::npos);
}

TEST_CASE("hnow plan --json prints the documented fields, transfers by name") {
  auto r = runCommand(kHnow + " plan " + kExamples + "broadcast.toml --json");
  REQUIRE(r.status == 0);
  auto json = nlohmann::json::parse(r.out);
  CHECK(json["op"] == "broadcast");
  CHECK(json["algo"] == "optimal");
  CHECK(json["makespan"].get<double>() > 0);
  CHECK(json["lower_bound"].get<double>() <= json["makespan"].get<double>());
  REQUIRE(json["transfers"].is_array());
  CHECK(json["transfers"][0].contains("from"));
  CHECK(json["transfers"][0]["from"].is_string());
  CHECK(json["stats"].contains("search_nodes"));
  CHECK(json["stats"].contains("seconds"));
}

TEST_CASE("hnow plan handles the example reduction") {
  auto r = runCommand(kHnow + " plan " + kExamples + "reduce.toml --json");
  REQUIRE(r.status == 0);
  auto json = nlohmann::json::parse(r.out);
  CHECK(json["op"] == "reduce");
  CHECK(json["transfers"].size() + 1 == 12u);
  CHECK(json["makespan"].get<double>() == doctest::Approx(4.0));
}

TEST_CASE("hnow plan rejects a bad request with one line and exit status 2") {
  TempDir dir;
  auto path = writeRequest(dir, "op = \"broadcast\"\nalgo = \"fnf\"\nroot = \"a\"\n[[node]]\nname = \"a\"\nt = 0\n");
  auto r = runCommand(kHnow + " plan " + path);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "hnow plan: " + path + ":6:5: t of node 'a' must be greater than 0 (seconds to send one message)\n");
}

TEST_CASE("hnow plan reports a missing request file and a bad option with exit status 2") {
  CHECK(runCommand(kHnow + " plan /nonexistent.toml").status == 2);
  CHECK(runCommand(kHnow + " plan").status == 2);
  CHECK(runCommand(kHnow + " plan " + kExamples + "broadcast.toml --colour").status == 2);
  CHECK(runCommand(kHnow + " frobnicate").status == 2);
}

TEST_CASE("hnow plan exits 1 when the chart cannot be written, after printing the plan") {
  auto r = runCommand(kHnow + " plan " + kExamples + "broadcast.toml --svg /nonexistent/dir/x.svg");
  CHECK(r.status == 1);
  CHECK(r.err.find("cannot write /nonexistent/dir/x.svg") != std::string::npos);
}

TEST_CASE("hnow plan runs the example worksharing request: JSON, table and Gantt chart") {
  auto r = runCommand(kHnow + " plan " + kExamples + "worksharing.toml --json");
  REQUIRE(r.status == 0);
  auto json = nlohmann::json::parse(r.out);
  CHECK(json["op"] == "worksharing");
  CHECK(json["makespan"].get<double>() == doctest::Approx(3600));
  CHECK(json["work"].get<double>() > 0);
  CHECK(json["allocations"].size() + json["left_out"].size() == 8u);
  CHECK(json["fifo_ratio"].get<double>() >= json["fifo_guarantee"].get<double>());
  CHECK(json["stats"]["proven_optimal"] == true);
  TempDir dir;
  auto svg = (dir.path / "ws.svg").string();
  auto table = runCommand(kHnow + " plan " + kExamples + "worksharing.toml --svg " + svg);
  CHECK(table.status == 0);
  CHECK(table.out.find("worksharing with best") != std::string::npos);
  CHECK(hnow::testing::readWhole(svg).find("srv serve") != std::string::npos);
}

TEST_CASE("hnow plan rejects a bad worksharing request with file:line:column and exit status 2") {
  TempDir dir;
  auto path = writeRequest(dir, "op = \"worksharing\"\nalgo = \"fifo\"\nresult_ratio = 2\nlifespan = 1\n");
  auto r = runCommand(kHnow + " plan " + path);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("hnow plan: " + path + ":3:16: result_ratio must be between 0 and 1", 0) == 0);
}

TEST_CASE("hnow plan refuses an infeasible worksharing plan with exit status 2 and prints none") {
  TempDir dir;
  auto path = writeRequest(dir,
                           "op = \"worksharing\"\nalgo = \"small-results\"\nresult_ratio = 1\nlifespan = 10\n"
                           "compute_time = 1\nselect_workers = false\n"
                           "[[worker]]\nname = \"a\"\nlink_time = 1.45\n[[worker]]\nname = \"b\"\nlink_time = 1.5\n"
                           "[[worker]]\nname = \"c\"\nlink_time = 0.95\n[[worker]]\nname = \"d\"\nlink_time = 5.55\n"
                           "[[worker]]\nname = \"e\"\nlink_time = 5.65\n");
  auto r = runCommand(kHnow + " plan " + path + " --json");
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("negative share") != std::string::npos);
}
