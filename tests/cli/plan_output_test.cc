#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli/gantt_svg.h"
#include "cli/plan_output.h"

using namespace hnow::cli;

namespace {

PlanReport sample() {
  PlanReport r;
  r.op = "broadcast";
  r.algo = "fnf";
  r.makespan = 2;
  r.lowerBound = 2;
  r.nodeNames = {"alpha", "b<&>", "c"};
  r.transfers = {{0, 1, 0, 1}, {0, 2, 1, 2}};
  return r;
}

}  // namespace

TEST_CASE("plan JSON keeps transfers in scheduling order with node names") {
  auto json = nlohmann::json::parse(planJson(sample()));
  CHECK(json["makespan"] == 2.0);
  REQUIRE(json["transfers"].size() == 2);
  CHECK(json["transfers"][0]["from"] == "alpha");
  CHECK(json["transfers"][0]["to"] == "b<&>");
  CHECK(json["transfers"][1]["start"] == 1.0);
  CHECK(json["stats"]["search_nodes"] == 0);
}

TEST_CASE("plan table lists every transfer") {
  std::string table = planTable(sample());
  CHECK(table.find("broadcast with fnf on 3 nodes") != std::string::npos);
  CHECK(table.find("alpha") != std::string::npos);
  CHECK(table.find("ratio 1") != std::string::npos);
}

TEST_CASE("the Gantt chart has a row per node, send and receive bars, the makespan, escaped names") {
  GanttChart chart = ganttOf(sample());
  CHECK(chart.rows.size() == 3);
  CHECK(chart.bars.size() == 4);
  std::string svg = renderGanttSvg(chart);
  CHECK(svg.find("b&lt;&amp;&gt;") != std::string::npos);
  CHECK(svg.find("b<&>") == std::string::npos);
  CHECK(svg.find("makespan 2 s") != std::string::npos);
  CHECK(svg.find(">send<") != std::string::npos);
  CHECK(svg.find(">receive<") != std::string::npos);
}
