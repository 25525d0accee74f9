// /metrics' text: valid Prometheus 0.0.4 for a strict reader, stable
// names, and the values hnowd holds, agent names escaped.
#include <doctest/doctest.h>

#include "server/metrics_text.h"
#include "support/prometheus_text.h"

using namespace hnow::daemon;
using hnow::testing::parsePromText;

namespace {

hnow::api::AgentStatus agent(const std::string& name, bool alive, double up, double down, double compute) {
  hnow::api::AgentStatus a;
  a.name = name;
  a.alive = alive;
  a.rates.uplinkBytesPerSecond = up;
  a.rates.downlinkBytesPerSecond = down;
  a.rates.computeSecondsPerUnit = compute;
  return a;
}

MetricsValues lab() {
  MetricsValues v;
  v.version = "0.1.0";
  v.agents = {agent("pc-1", true, 12.5e6, 25e6, 0.002), agent("pc-2", false, 1e6, 2e6, 0)};
  v.operations = {{"send", "done", 7}, {"run", "failed", 2}};
  v.counts.replans = 3;
  v.counts.reissues = 4;
  v.counts.corruptChunks = 5;
  v.counts.relayFaults = 6;
  v.counts.planned(0.25);
  v.counts.planned(0.5);
  v.bytesSent = 123456789;
  v.bytesReceived = 42;
  return v;
}

}  // namespace

TEST_CASE("the metrics text is valid Prometheus 0.0.4 with every family typed") {
  const auto parsed = parsePromText(metricsText(lab()));
  REQUIRE_MESSAGE(parsed.error.empty(), parsed.error);
  for (const char* family : {"hnow_build_info", "hnow_agents", "hnow_agent_send_rate_bytes_per_second",
                             "hnow_agent_receive_rate_bytes_per_second", "hnow_agent_compute_seconds_per_unit",
                             "hnow_bytes_sent_total", "hnow_bytes_received_total", "hnow_operations",
                             "hnow_replans_total", "hnow_reissues_total", "hnow_corrupt_chunks_total",
                             "hnow_relay_faults_total", "hnow_plan_seconds"})
    CHECK_MESSAGE(parsed.types.count(family) == 1, family);
  CHECK(parsed.types.at("hnow_bytes_sent_total") == "counter");
  CHECK(parsed.types.at("hnow_plan_seconds") == "summary");
}

TEST_CASE("the metrics carry the agents by state, each agent's rates and hnowd's counts as given") {
  const auto p = parsePromText(metricsText(lab()));
  REQUIRE_MESSAGE(p.error.empty(), p.error);
  CHECK(p.value("hnow_build_info", {{"version", "0.1.0"}}) == 1);
  CHECK(p.value("hnow_agents", {{"state", "alive"}}) == 1);
  CHECK(p.value("hnow_agents", {{"state", "lost"}}) == 1);
  CHECK(p.value("hnow_agent_send_rate_bytes_per_second", {{"agent", "pc-1"}}) == 12.5e6);
  CHECK(p.value("hnow_agent_receive_rate_bytes_per_second", {{"agent", "pc-2"}}) == 2e6);
  CHECK(p.value("hnow_agent_compute_seconds_per_unit", {{"agent", "pc-1"}}) == doctest::Approx(0.002));
  CHECK(p.value("hnow_operations", {{"kind", "send"}, {"status", "done"}}) == 7);
  CHECK(p.value("hnow_operations", {{"kind", "run"}, {"status", "failed"}}) == 2);
  CHECK(p.value("hnow_replans_total") == 3);
  CHECK(p.value("hnow_reissues_total") == 4);
  CHECK(p.value("hnow_corrupt_chunks_total") == 5);
  CHECK(p.value("hnow_relay_faults_total") == 6);
  CHECK(p.value("hnow_plan_seconds_count") == 2);
  CHECK(p.value("hnow_plan_seconds_sum") == doctest::Approx(0.75));
  CHECK(p.value("hnow_bytes_sent_total") == 123456789);
  CHECK(p.value("hnow_bytes_received_total") == 42);
}

TEST_CASE("an agent name with quotes, backslashes and a line feed stays one label value") {
  MetricsValues v = lab();
  v.agents = {agent("evil\"} 1\nhnow_agents{state=\"alive\\", true, 1, 2, 0)};
  const auto p = parsePromText(metricsText(v));
  REQUIRE_MESSAGE(p.error.empty(), p.error);
  CHECK(p.value("hnow_agent_send_rate_bytes_per_second", {{"agent", v.agents[0].name}}) == 1);
  CHECK(p.value("hnow_agents", {{"state", "alive"}}) == 1);
  CHECK(labelValue("a\\b\"c\nd") == "a\\\\b\\\"c\\nd");
}

TEST_CASE("the strict reader refuses what a scraper would") {
  CHECK_FALSE(parsePromText("hnow_x 1").error.empty());                          // no final line feed
  CHECK_FALSE(parsePromText("hnow_x{a=\"1\"} one\n").error.empty());             // not a number
  CHECK_FALSE(parsePromText("hnow_x{a=1} 1\n").error.empty());                   // unquoted label
  CHECK_FALSE(parsePromText("hnow_x 1\nhnow_x 2\n").error.empty());              // one series twice
  CHECK_FALSE(parsePromText("hnow_x 1\nhnow_y 1\nhnow_x{a=\"b\"} 1\n").error.empty());  // family split
  CHECK_FALSE(parsePromText("# TYPE hnow_x counter\nhnow_x -1\n").error.empty());  // negative counter
  CHECK_FALSE(parsePromText("hnow_x{a=\"\\t\"} 1\n").error.empty());             // unknown escape
  CHECK(parsePromText("# TYPE hnow_x gauge\nhnow_x{a=\"b\",c=\"d\"} 1.5e3\n").error.empty());
}
