#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli/gantt_svg.h"
#include "cli/plan_output.h"
#include "cli/plan_runner.h"
#include "conf/plan_request.h"

using namespace hnow::cli;

namespace {

PlanReport planned(const std::string& text) {
  auto request = hnow::conf::parsePlanRequest(text, "ws.toml");
  REQUIRE(request.ok());
  auto report = runPlan(request.value());
  REQUIRE_MESSAGE(report.ok(), (report.ok() ? "" : report.error().message));
  return report.value();
}

const std::string kRequest =
    "op = \"worksharing\"\nalgo = \"lifo\"\nmaster = \"srv\"\nresult_ratio = 0.5\nlifespan = 100\n"
    "compute_time = 1\n"
    "[[worker]]\nname = \"slow\"\nlink_time = 0.5\n[[worker]]\nname = \"fast\"\nlink_time = 0.1\n";

}  // namespace

TEST_CASE("worksharing JSON has the common fields, work and one allocation per worker in serve order") {
  auto json = nlohmann::json::parse(planJson(planned(kRequest)));
  CHECK(json["op"] == "worksharing");
  CHECK(json["algo"] == "lifo");
  CHECK(json["makespan"].get<double>() == doctest::Approx(100));
  CHECK(json["lower_bound"].is_null());  // a lifespan was given: nothing to bound
  REQUIRE(json["allocations"].size() == 2);
  const auto& first = json["allocations"][0];
  CHECK(first["node"] == "fast");  // Theorem 1(c): faster link served first
  CHECK(first["serve"] == 1);
  CHECK(first["return"] == 2);     // LIFO: first served returns last
  for (const char* key : {"units", "send_start", "send_end", "compute_end", "return_start", "return_end"})
    CHECK(first[key].is_number());
  double total = 0;
  for (const auto& a : json["allocations"]) total += a["units"].get<double>();
  CHECK(json["work"].get<double>() == doctest::Approx(total));
  // Transfers: serve messages then return messages, by name.
  REQUIRE(json["transfers"].size() == 4);
  CHECK(json["transfers"][0]["from"] == "srv");
  CHECK(json["transfers"][0]["to"] == "fast");
  CHECK(json["transfers"][2]["from"] == "slow");
  CHECK(json["transfers"][3]["to"] == "srv");
  CHECK(json["transfers"][3]["end"].get<double>() == doctest::Approx(100));
  CHECK(json["stats"].contains("seconds"));
}

TEST_CASE("worksharing with a work goal reports a lower bound no greater than the makespan") {
  std::string text = kRequest;
  text.replace(text.find("lifespan = 100"), 14, "work = 250");
  auto json = nlohmann::json::parse(planJson(planned(text)));
  CHECK(json["work"].get<double>() == doctest::Approx(250));
  REQUIRE(json["lower_bound"].is_number());
  CHECK(json["lower_bound"].get<double>() <= json["makespan"].get<double>());
}

TEST_CASE("the worksharing Gantt chart has the master's two ports and a row per worker") {
  GanttChart chart = ganttOf(planned(kRequest));
  REQUIRE(chart.rows.size() == 4);
  CHECK(chart.rows[0] == "srv serve");
  CHECK(chart.rows[1] == "srv return");
  CHECK(chart.rows[2] == "fast");
  int serves = 0, computes = 0, returnsOnMaster = 0;
  for (const auto& bar : chart.bars) {
    serves += bar.row == 0 && bar.kind == "send";
    computes += bar.kind == "compute";
    returnsOnMaster += bar.row == 1 && bar.kind == "return";
  }
  CHECK(serves == 2);
  CHECK(computes == 2);
  CHECK(returnsOnMaster == 2);
  std::string svg = renderGanttSvg(chart);
  CHECK(svg.find(">compute<") != std::string::npos);
  CHECK(svg.find("srv return") != std::string::npos);
}

TEST_CASE("the worksharing table lists each worker's share and the FIFO ratio for best") {
  std::string text = kRequest;
  text.replace(text.find("\"lifo\""), 6, "\"best\"");
  std::string table = planTable(planned(text));
  CHECK(table.find("worksharing with best on 3 nodes") != std::string::npos);
  CHECK(table.find("fifo / best") != std::string::npos);
  CHECK(table.find("fast") != std::string::npos);
  CHECK(table.find("proven optimal") != std::string::npos);
}

TEST_CASE("select_workers = false with a negative share is an error naming the worker, no plan") {
  auto request = hnow::conf::parsePlanRequest(
      "op = \"worksharing\"\nalgo = \"small-results\"\nresult_ratio = 1\nlifespan = 10\ncompute_time = 1\n"
      "select_workers = false\n"
      "[[worker]]\nname = \"a\"\nlink_time = 1.45\n[[worker]]\nname = \"b\"\nlink_time = 1.5\n"
      "[[worker]]\nname = \"c\"\nlink_time = 0.95\n[[worker]]\nname = \"d\"\nlink_time = 5.55\n"
      "[[worker]]\nname = \"e\"\nlink_time = 5.65\n",
      "ws.toml");
  REQUIRE(request.ok());
  auto report = runPlan(request.value());
  REQUIRE_FALSE(report.ok());
  CHECK(report.error().message.find("negative share") != std::string::npos);
  CHECK(report.error().message.find("infeasible") != std::string::npos);
  CHECK(report.error().message.find("select_workers") != std::string::npos);
}
