#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli/gantt_svg.h"
#include "cli/plan_output.h"
#include "cli/plan_runner.h"
#include "run_process.h"

using namespace hnow::cli;
using hnow::conf::ClusterSpec;
using hnow::conf::TwoLevelRequest;
using hnow::testing::runCommand;
using hnow::testing::TempDir;

namespace {

const std::string kHnow = HNOW_BINARY;
const std::string kExamples = std::string(HNOW_SOURCE_DIR) + "/examples/";

// seed 001 §3.2's bad example with n0 = 4, n1 = 8, C = 3.
TwoLevelRequest badExample() {
  TwoLevelRequest r;
  r.algo = "lcf";
  r.globalTime = 3.0;
  r.clusters = {{"k0", 4, 0, 0}, {"k1", 8, 0, 0}, {"s1", 1, 0, 0}, {"s2", 1, 0, 0}, {"s3", 1, 0, 0}};
  return r;
}

}  // namespace

TEST_CASE("hnow plan names two-level nodes <cluster>.<i> and reports k - 1 global transfers") {
  auto report = runPlan(badExample());
  REQUIRE(report.ok());
  CHECK(report->nodeNames.size() == 15u);
  CHECK(report->nodeNames[0] == "k0.0");
  CHECK(report->nodeNames[4] == "k1.0");
  CHECK(report->nodeNames[14] == "s3.0");
  CHECK(report->makespan == doctest::Approx(2 + 3.0 + 3));  // ceil(log 4) + C + ceil(log 8)
  REQUIRE(report->lowerBound);
  CHECK(*report->lowerBound <= report->makespan);
  const auto& details = std::get<TwoLevelDetails>(report->details);
  CHECK(details.globalTransfers == 4);
  CHECK(details.variant == "lcf");
  CHECK(details.clusters[1].reachedAt == doctest::Approx(5.0));
  CHECK(details.clusters[1].doneAt == doctest::Approx(8.0));
}

TEST_CASE("two-level JSON adds model, global_transfers, lower_bounds and per-cluster times") {
  auto report = runPlan(badExample());
  REQUIRE(report.ok());
  auto json = nlohmann::json::parse(planJson(*report));
  CHECK(json["op"] == "cluster-broadcast");
  CHECK(json["model"] == "blocking");
  CHECK(json["global_transfers"] == 4);
  CHECK(json["max_global"].is_null());
  CHECK(json["lower_bounds"]["p"] == 1);
  CHECK(json["lower_bound"].get<double>() >= json["lower_bounds"]["p_c"].get<double>());
  REQUIRE(json["clusters"].size() == 5u);
  CHECK(json["clusters"][0]["reached_at"] == 0.0);
  CHECK(json["clusters"][4]["name"] == "s3");
  CHECK(json["transfers"][0]["from"] == "k0.0");
}

TEST_CASE("two-level table lists the model, the bounds and every cluster") {
  auto report = runPlan(badExample());
  REQUIRE(report.ok());
  std::string table = planTable(*report);
  CHECK(table.find("cluster-broadcast with lcf on 15 nodes") != std::string::npos);
  CHECK(table.find("global       4 transfers") != std::string::npos);
  CHECK(table.find("bounds       log N 4") != std::string::npos);
  CHECK(table.find("  k1 ") != std::string::npos);
}

TEST_CASE("the postal Gantt chart shows the sender busy one local time and the receiver on arrival") {
  TwoLevelRequest r = badExample();
  r.postal = true;
  r.algo = "interleaved-lcf";
  auto report = runPlan(r);
  REQUIRE(report.ok());
  GanttChart chart = ganttOf(*report);
  int globalSends = 0;
  for (const auto& bar : chart.bars) {
    CHECK(bar.end - bar.start == doctest::Approx(1.0));
    if (bar.kind == "global send") ++globalSends;
  }
  CHECK(globalSends == 4);
  CHECK(renderGanttSvg(chart).find("global receive") != std::string::npos);
}

TEST_CASE("bounded-degree and bounded-size plans are replayed under their limits") {
  TwoLevelRequest degree = badExample();
  degree.clusters[0].degree = 1;
  auto a = runPlan(degree);
  REQUIRE(a.ok());
  CHECK(std::get<TwoLevelDetails>(a->details).variant == "bounded-degree");
  TwoLevelRequest matching = badExample();
  matching.maxGlobal = 2;
  auto b = runPlan(matching);
  REQUIRE(b.ok());
  CHECK(std::get<TwoLevelDetails>(b->details).variant == "bounded-size");
  CHECK(std::get<TwoLevelDetails>(b->details).maxGlobal == 2);
  // One sender in K0 at a time means the four copies leave one after another.
  CHECK(a->makespan > runPlan(badExample())->makespan);
}

TEST_CASE("hnow plan runs the example cluster broadcast and writes its Gantt chart") {
  TempDir dir;
  auto svg = (dir.path / "plan.svg").string();
  auto r = runCommand(kHnow + " plan " + kExamples + "cluster-broadcast.toml --svg " + svg);
  CHECK(r.status == 0);
  CHECK(r.out.find("cluster-broadcast with lcf on 29 nodes") != std::string::npos);
  CHECK(r.out.find("lab-b.0") != std::string::npos);
  CHECK(hnow::testing::readWhole(svg).find("global send") != std::string::npos);
}

TEST_CASE("hnow plan --json runs the example cluster multicast within its limits") {
  auto r = runCommand(kHnow + " plan " + kExamples + "cluster-multicast.toml --json");
  REQUIRE(r.status == 0);
  auto json = nlohmann::json::parse(r.out);
  CHECK(json["op"] == "cluster-multicast");
  CHECK(json["variant"] == "bounded-degree");
  CHECK(json["makespan"].get<double>() >= json["lower_bound"].get<double>());
  for (const auto& c : json["clusters"]) {
    if (c["members"].get<int>() > 0) CHECK(c["done_at"].is_number());
  }
}

TEST_CASE("hnow plan rejects a bad cluster request with file:line:column and exit status 2") {
  TempDir dir;
  auto path = (dir.path / "request.toml").string();
  std::ofstream(path) << "op = \"cluster-broadcast\"\nalgo = \"lcf\"\nglobal_time = 4\n"
                         "[[cluster]]\nname = \"a\"\nsize = -1\n";
  auto r = runCommand(kHnow + " plan " + path);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "hnow plan: " + path +
                     ":6:8: 'size' in [[cluster]] #1 must be an integer from 1 to 100000 (its number of nodes)\n");
}
