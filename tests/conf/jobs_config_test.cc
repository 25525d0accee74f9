#include <doctest/doctest.h>

#include "conf/runtime_config.h"

using namespace hnow::conf;

namespace {

const std::string kAgentBase = "coordinator = \"10.0.0.1:7411\"\ndata_dir = \"d\"\nsecret_file = \"s\"\n";

hnow::Result<AgentConfig> parse(const std::string& jobs) {
  return parseAgentConfig(kAgentBase + jobs, "agent.toml", "/etc/hnow");
}

std::string errorOf(const std::string& jobs) {
  auto loaded = parse(jobs);
  return loaded ? "" : loaded.error().text();
}

}  // namespace

TEST_CASE("an agent config without a jobs table runs no jobs") {
  auto loaded = parse("");
  REQUIRE(loaded.ok());
  CHECK_FALSE(loaded->jobs.runsJobs());
  auto empty = parse("[jobs]\nshell = true\n");  // a table without allow: still none
  REQUIRE(empty.ok());
  CHECK_FALSE(empty->jobs.runsJobs());
}

TEST_CASE("the jobs table is read with every key and volunteer-safe defaults") {
  auto defaults = parse("[jobs]\nallow = [\"/usr/bin/wc\"]\n");
  REQUIRE(defaults.ok());
  const JobsConfig& d = defaults->jobs;
  CHECK(d.runsJobs());
  CHECK(d.allow == std::vector<std::string>{"/usr/bin/wc"});
  CHECK_FALSE(d.shell);
  CHECK(d.nice == 19);
  CHECK(d.idle);
  CHECK(d.limits.cpuSeconds == 0);
  CHECK(d.limits.memoryMb == 0);
  CHECK(d.limits.outputMb == 0);
  CHECK(d.limits.wallSeconds == 0);
  CHECK(d.limits.processes == 256);  // on unless the owner turns it off: a fork bomb stops

  auto full = parse("[jobs]\nallow = [\"/usr/bin/*\", \"/opt/tools/bin/grep\"]\nshell = true\nnice = 5\n"
                    "idle = false\ncpu_s = 60\nmemory_mb = 512\noutput_mb = 100\nwall_s = 2.5\nprocesses = 32\n");
  REQUIRE(full.ok());
  const JobsConfig& j = full->jobs;
  CHECK(j.allow == std::vector<std::string>{"/usr/bin/*", "/opt/tools/bin/grep"});
  CHECK(j.shell);
  CHECK(j.nice == 5);
  CHECK_FALSE(j.idle);
  CHECK(j.limits.cpuSeconds == 60);
  CHECK(j.limits.memoryMb == 512);
  CHECK(j.limits.outputMb == 100);
  CHECK(j.limits.wallSeconds == 2.5);
  CHECK(j.limits.processes == 32);
  auto unlimited = parse("[jobs]\nallow = [\"*\"]\nprocesses = 0\n");
  REQUIRE(unlimited.ok());
  CHECK(unlimited->jobs.limits.processes == 0);
  auto everything = parse("[jobs]\nallow = [\"*\"]\n");
  REQUIRE(everything.ok());
  CHECK(everything->jobs.allow == std::vector<std::string>{"*"});
}

TEST_CASE("a bad key in the jobs table is an error at its place in the file") {
  CHECK(errorOf("[jobs]\nallow = [\"/usr/bin/wc\", \"wc\"]\n") ==
        "agent.toml:5:25: every entry of [jobs] allow must be an absolute path or pattern (\"/usr/bin/*\") or \"*\", "
        "not 'wc'");
  CHECK(errorOf("[jobs]\nallow = \"*\"\n").find("agent.toml:5:9: 'allow' in [jobs] must be an array of strings") == 0);
  CHECK(errorOf("[jobs]\nalow = [\"*\"]\n").find("agent.toml:5:8: unknown key 'alow' in [jobs]") == 0);
  CHECK(errorOf("[jobs]\nnice = 20\n") == "agent.toml:5:8: 'nice' in [jobs] must be from 0 to 19, not 20");
  CHECK(errorOf("[jobs]\nnice = -1\n") == "agent.toml:5:8: 'nice' in [jobs] must be from 0 to 19, not -1");
  CHECK(errorOf("[jobs]\ncpu_s = -2\n").find("agent.toml:5:9: 'cpu_s' in [jobs] must be from 0 (no limit)") == 0);
  CHECK(errorOf("[jobs]\ncpu_s = 1.5\n").find("agent.toml:5:9: 'cpu_s' in [jobs] must be an integer") == 0);
  CHECK(errorOf("[jobs]\nmemory_mb = \"64\"\n").find("agent.toml:5:13: 'memory_mb' in [jobs] must be an integer") == 0);
  CHECK(errorOf("[jobs]\noutput_mb = -1\n").find("agent.toml:5:13: 'output_mb' in [jobs] must be from 0") == 0);
  CHECK(errorOf("[jobs]\nprocesses = -5\n") ==
        "agent.toml:5:13: 'processes' in [jobs] must be from 0 (no limit) to 4194304 processes, not -5");
  CHECK(errorOf("[jobs]\nwall_s = -1\n").find("agent.toml:5:10: 'wall_s' in [jobs] must be from 0 (no limit)") == 0);
  CHECK(errorOf("[jobs]\nshell = \"yes\"\n").find("agent.toml:5:9: 'shell' in [jobs] must be true or false") == 0);
  CHECK(errorOf("[jobs]\nidle = 1\n").find("agent.toml:5:8: 'idle' in [jobs] must be true or false") == 0);
  CHECK(errorOf("jobs = 1\n").find("agent.toml:4:8: 'jobs' must be a table ([jobs])") == 0);
}
