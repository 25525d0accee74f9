#include "conf/jobs_config.h"

#include "conf/toml_reader.h"

namespace hnow::conf {

namespace {

// A whole number in [0, high]; `unit` names it in the message.
std::uint64_t readCount(TableReader& t, std::string_view key, long long high, std::string_view unit) {
  auto value = t.optionalInteger(key);
  if (!value) return 0;
  if (*value < 0 || *value > high)
    t.failAt(key, "'" + std::string(key) + "' in [jobs] must be from 0 (no limit) to " + std::to_string(high) + " " +
                      std::string(unit) + ", not " + std::to_string(*value));
  return static_cast<std::uint64_t>(*value);
}

}  // namespace

JobsConfig readJobs(TableReader& t) {
  t.allowOnly({"allow", "shell", "nice", "idle", "cpu_s", "memory_mb", "output_mb", "wall_s", "processes"});
  JobsConfig jobs;
  jobs.allow = t.optionalStringList("allow").value_or(std::vector<std::string>{});
  for (std::size_t i = 0; i < jobs.allow.size(); ++i) {
    const std::string& entry = jobs.allow[i];
    if (entry != "*" && (entry.empty() || entry.front() != '/'))
      t.failAtElement("allow", i,
                      "every entry of [jobs] allow must be an absolute path or pattern (\"/usr/bin/*\") or \"*\", "
                      "not '" + entry + "'");
  }
  jobs.shell = t.optionalBool("shell").value_or(jobs.shell);
  if (auto nice = t.optionalInteger("nice")) {
    if (*nice < 0 || *nice > 19) t.failAt("nice", "'nice' in [jobs] must be from 0 to 19, not " + std::to_string(*nice));
    jobs.nice = static_cast<int>(*nice);
  }
  jobs.idle = t.optionalBool("idle").value_or(jobs.idle);
  // RLIMIT_CPU counts whole seconds; a year bounds the others against typos.
  jobs.limits.cpuSeconds = readCount(t, "cpu_s", 365LL * 86400, "seconds");
  jobs.limits.memoryMb = readCount(t, "memory_mb", 1LL << 30, "MiB");
  jobs.limits.outputMb = readCount(t, "output_mb", 1LL << 30, "MiB");
  // Linux's own bound on pids (pid_max at most 2^22).
  if (t.has("processes")) jobs.limits.processes = readCount(t, "processes", 1LL << 22, "processes");
  jobs.limits.wallSeconds = t.optionalNumber("wall_s").value_or(0.0);
  if (!(jobs.limits.wallSeconds >= 0 && jobs.limits.wallSeconds <= 365.0 * 86400))
    t.failAt("wall_s", "'wall_s' in [jobs] must be from 0 (no limit) to 31536000 seconds");
  return jobs;
}

}  // namespace hnow::conf
