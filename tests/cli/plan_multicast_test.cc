#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli/gantt_svg.h"
#include "cli/plan_output.h"
#include "cli/plan_runner.h"
#include "conf/plan_request.h"
#include "run_process.h"

using hnow::testing::runCommand;
using hnow::testing::TempDir;

namespace {

const std::string kHnow = HNOW_BINARY;
const std::string kExample = std::string(HNOW_SOURCE_DIR) + "/examples/multicast.toml";

// The example with another algo.
hnow::conf::PlanRequest exampleWith(const std::string& algo) {
  auto loaded = hnow::conf::loadPlanRequest(kExample);
  REQUIRE(loaded.ok());
  auto request = loaded.value();
  std::get<hnow::conf::MulticastRequest>(request).algo = algo;
  return request;
}

}  // namespace

TEST_CASE("hnow plan --json on the example multicast gives messages, task lists and the seed's times") {
  auto r = runCommand(kHnow + " plan " + kExample + " --json");
  REQUIRE(r.status == 0);
  auto json = nlohmann::json::parse(r.out);
  CHECK(json["op"] == "multicast");
  CHECK(json["algo"] == "ecfp");
  CHECK(json["makespan"].get<double>() == 16.0);
  CHECK(json["lower_bound"].get<double>() == 13.0);
  CHECK(json["preemptive"] == true);
  REQUIRE(json["transfers"].size() == 7u);  // 2 + 2 + 3 destinations
  for (const auto& x : json["transfers"]) {
    CHECK(x["message"].is_number_integer());
    CHECK(x["from"].is_string());
    CHECK(x["receive_start"].get<double>() >= x["arrival"].get<double>());
  }
  // Each node's task list; ECFP lets p1 send message 1 while it waits for message 0.
  REQUIRE(json["tasks"].size() == 4u);
  const auto& p1 = json["tasks"]["p1"];
  REQUIRE(p1.size() == 4u);
  CHECK(p1[0]["op"] == "send");
  CHECK(p1[0]["message"] == 1);
  CHECK(p1[0]["to"] == "p3");
  CHECK(p1[1]["op"] == "receive");
  CHECK(p1[1]["from"] == "p0");
  CHECK(p1[1]["posted"].get<double>() == 1.0);
}

TEST_CASE("hnow plan prints the multicast table with task lists and draws waits in the Gantt chart") {
  TempDir dir;
  auto svg = (dir.path / "m.svg").string();
  auto r = runCommand(kHnow + " plan " + kExample + " --svg " + svg);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("multicast with ecfp on 4 nodes") != std::string::npos);
  CHECK(r.out.find("lower bound  13 s") != std::string::npos);
  CHECK(r.out.find("receive m0 from p0  posted 1, 1 - 4") != std::string::npos);
  std::string chart = hnow::testing::readWhole(svg);
  CHECK(chart.find(">wait<") != std::string::npos);
  CHECK(chart.find(">send<") != std::string::npos);
  CHECK(chart.find("makespan 16 s") != std::string::npos);
}

TEST_CASE("hnow plan rejects a bad multicast request with one line and exit status 2") {
  TempDir dir;
  auto path = (dir.path / "bad.toml").string();
  std::ofstream(path) << "op = \"multicast\"\nalgo = \"ecf\"\nlink_s_per_byte = 0\n"
                         "[[node]]\nname = \"a\"\nsend_overhead = 1\nrecv_overhead = 1\n"
                         "[[node]]\nname = \"b\"\nsend_overhead = 1\nrecv_overhead = 1\n"
                         "[[message]]\nsource = \"a\"\nbytes = 0\ndestinations = [\"b\", \"c\"]\n";
  auto r = runCommand(kHnow + " plan " + path);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "hnow plan: " + path + ":15:22: 'c' is not the name of any [[node]]\n");
}

TEST_CASE("every multicast algo runs through hnow plan's runner and validator, never below the bound") {
  for (const std::string& algo : hnow::conf::multicastAlgorithms()) {
    CAPTURE(algo);
    auto report = hnow::cli::runPlan(exampleWith(algo));
    REQUIRE_MESSAGE(report.ok(), (report.ok() ? "" : report.error().message));
    CHECK(report->algo == algo);
    CHECK(report->makespan >= *report->lowerBound);
    auto json = nlohmann::json::parse(hnow::cli::planJson(*report));
    CHECK(json["transfers"].size() == 7u);
    CHECK(json["tasks"].size() == 4u);
    CHECK(hnow::cli::ganttOf(*report).bars.size() >= 14u);  // a send and a receive per transfer
  }
  // The seed's §6 makespans of the non-preemptive ECF and WR (Figure 4).
  CHECK(hnow::cli::runPlan(exampleWith("ecf"))->makespan == 19.0);
  CHECK(hnow::cli::runPlan(exampleWith("wr"))->makespan == 19.0);
}
