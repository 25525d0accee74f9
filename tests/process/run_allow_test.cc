// What an agent's owner lets hnowd run ([jobs] in the agent's config), on a
// local cluster of real processes: a command outside an agent's allow list,
// or past one of its limits, is refused there with a log line naming hnowd
// and the command; the share goes to the other agents, the run lands and its
// report says why; when no agent will run it, the run fails with their reasons.
#include <doctest/doctest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "process/child_process.h"
#include "process/test_cluster.h"

using hnow::testing::ChildProcess;
using hnow::testing::eventually;
using hnow::testing::processAlive;
using hnow::testing::occurrences;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TestCluster;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

const std::string kAgentBinary = HNOW_AGENT_BINARY;

bool alive(const TestCluster& cluster, const std::string& name) {
  auto r = runCommand(cluster.hnow("status --json"));
  if (r.status != 0) return false;
  const auto status = nlohmann::json::parse(r.out);  // a temporary's member would not outlive the loop's start
  for (const auto& a : status["agents"])
    if (a["name"] == name) return a["state"] == "alive";
  return false;
}

// Stops agent-N of `cluster`, gives it `jobs` as its [jobs] table (the rest of
// its config, its name and credentials kept) and starts it again.
std::unique_ptr<ChildProcess> restartWithJobs(const TestCluster& cluster, int n, const std::string& jobs) {
  const std::string name = "agent-" + std::to_string(n);
  const pid_t old = cluster.pid(name);
  ::kill(old, SIGTERM);
  REQUIRE(eventually([&] { return !processAlive(old); }, 5s));
  const fs::path config = cluster.dir.path / "agents" / (name + ".toml");
  std::string text = readWhole(config);
  const auto from = text.find("\n[jobs]\n");
  REQUIRE(from != std::string::npos);
  const auto to = text.find("\n[", from + 1);
  text = text.substr(0, from) + (to == std::string::npos ? "" : text.substr(to)) + "\n[jobs]\n" + jobs;
  std::ofstream(config) << text;
  const fs::path log = cluster.dir.path / "logs" / (name + ".log");
  const std::size_t before = occurrences(readWhole(log), "registered with hnowd");
  auto agent = std::make_unique<ChildProcess>(std::vector<std::string>{kAgentBinary, "--config", config.string()},
                                              std::vector<std::string>{}, log.string());
  std::ofstream(cluster.dir.path / "pids" / (name + ".pid")) << agent->pid();  // for `hnow local down`
  REQUIRE(eventually([&] { return occurrences(readWhole(log), "registered with hnowd") > before; }, 10s));
  // hnowd counts it alive again at its next tick, not at the login.
  REQUIRE(eventually([&] { return alive(cluster, name); }, 10s));
  return agent;
}

std::string lines(std::size_t n) {
  std::string text;
  for (std::size_t i = 0; i < n; ++i) text += "line " + std::to_string(i) + " of the input, in lower case\n";
  return text;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The report's failures of one agent, joined.
std::string failuresOf(const nlohmann::json& report, const std::string& agent) {
  std::string out;
  for (const auto& a : report["agents"])
    if (a["name"] == agent)
      for (const auto& f : a["failures"]) out += f.get<std::string>() + "\n";
  return out;
}

}  // namespace

TEST_CASE("a command outside an agent's allow list is refused there and the run lands through the others") {
  TestCluster cluster("--agents 3");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  auto picky = restartWithJobs(cluster, 3, "allow = [\"/usr/bin/wc\"]\n");
  const fs::path input = cluster.dir.path / "input.txt";
  const std::string text = lines(20000);
  std::ofstream(input) << text;
  const fs::path output = cluster.dir.path / "out.txt";

  auto r = runCommand(cluster.hnow("run --input " + input.string() + " --cmd 'tr a-z A-Z' --concat --json --output " +
                                   output.string()));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(readWhole(output) == upper(text));
  auto report = nlohmann::json::parse(r.out);
  CHECK(failuresOf(report, "agent-3").find("left out: /usr/bin/tr is not in [jobs] allow (\"/usr/bin/wc\")") !=
        std::string::npos);
  for (const auto& a : report["agents"])
    if (a["name"] == "agent-3") CHECK(a["units"] == 0);
  CHECK(cluster.logHas("agent-3", "refused a share of run 1 from hnowd at " + cluster.hnowdAddress() +
                                      ": /usr/bin/tr is not in [jobs] allow (\"/usr/bin/wc\")"));
  CHECK(cluster.logHas("hnowd", "run 1: agent-3 left out: /usr/bin/tr is not in [jobs] allow"));

  // Only agents that refuse: the run fails with each one's reason.
  auto alone = runCommand(cluster.hnow("run --input " + input.string() + " --cmd 'tr a-z A-Z' --concat --to agent-3"));
  CHECK(alone.status == 1);
  CHECK(alone.err.find("hnow: run failed: no agent would run the command: agent-3: /usr/bin/tr is not in [jobs] "
                       "allow (\"/usr/bin/wc\")") != std::string::npos);
  auto shell = runCommand(cluster.hnow("run --input " + input.string() + " --cmd 'wc -l' --shell --concat --to agent-3"));
  CHECK(shell.status == 1);
  CHECK(shell.err.find("agent-3: it runs through a shell (hnow run --shell) and [jobs] shell = false here") !=
        std::string::npos);
  // What it allows still runs there.
  auto allowed = runCommand(cluster.hnow("run --input " + input.string() + " --cmd 'wc -l' --concat --to agent-3"));
  REQUIRE_MESSAGE(allowed.status == 0, allowed.err);
  long long counted = 0;  // one count per share
  for (std::size_t at = 0; at < allowed.out.size();) {
    std::size_t end = allowed.out.find('\n', at);
    if (end == std::string::npos) end = allowed.out.size();
    if (end > at) counted += std::stoll(allowed.out.substr(at, end - at));
    at = end + 1;
  }
  CHECK(counted == 20000);

  for (const char* name : {"hnowd", "agent-1", "agent-2"}) CHECK(processAlive(cluster.pid(name)));
  CHECK(processAlive(picky->pid()));
}

TEST_CASE("a share killed at an agent's output limit is reissued on another agent and the run lands") {
  TestCluster cluster("--agents 3");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  // The fastest agent takes the largest share: past 1 MiB, while the
  // calibration's sample (at most 256 KiB) stays under it.
  auto limited = restartWithJobs(cluster, 1, "allow = [\"*\"]\nnice = 0\nidle = false\noutput_mb = 1\n");
  const fs::path input = cluster.dir.path / "input.txt";
  const std::string text = lines(100000);  // about 4 MiB
  std::ofstream(input) << text;
  const fs::path output = cluster.dir.path / "out.txt";
  auto r = runCommand(cluster.hnow("run --input " + input.string() + " --cmd cat --concat --rounds 1 --json --output " +
                                   output.string()));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(readWhole(output) == text);
  auto report = nlohmann::json::parse(r.out);
  CHECK(report["reissued"].get<int>() >= 1);
  CHECK(failuresOf(report, "agent-1").find("'cat' was stopped: its output passed output_mb = 1") != std::string::npos);
  CHECK(cluster.logHas("agent-1", "failed: 'cat' was stopped: its output passed output_mb = 1"));
  for (const char* name : {"hnowd", "agent-2", "agent-3"}) CHECK(processAlive(cluster.pid(name)));
  CHECK(processAlive(limited->pid()));
}
