#include "agent/config_reload.h"

#include <spdlog/spdlog.h>

#include <csignal>

#include "base/joined.h"
#include "agent/job_policy.h"
#include "agent/job_runner.h"

namespace hnow::agent {

namespace {

std::string allowText(const conf::JobsConfig& jobs) {
  if (jobs.allow.empty()) return "none (this agent runs no jobs)";
  return joined(jobs.allow) + (jobs.shell ? "; --shell commands too" : "");
}

bool sameJobs(const conf::JobsConfig& a, const conf::JobsConfig& b) {
  return a.allow == b.allow && a.shell == b.shell && a.nice == b.nice && a.idle == b.idle &&
         a.limits.cpuSeconds == b.limits.cpuSeconds && a.limits.memoryMb == b.limits.memoryMb &&
         a.limits.outputMb == b.limits.outputMb && a.limits.wallSeconds == b.limits.wallSeconds &&
         a.limits.processes == b.limits.processes;
}

// What the runtime opened or announced at start: a restart takes them.
std::vector<std::string> restartOnly(const conf::AgentConfig& was, const conf::AgentConfig& now) {
  std::vector<std::string> changed;
  if (was.name != now.name) changed.push_back("name");
  if (was.site != now.site) changed.push_back("site");
  if (was.coordinator != now.coordinator) changed.push_back("coordinator");
  if (was.dataPort != now.dataPort) changed.push_back("data_port");
  if (was.dataDir != now.dataDir) changed.push_back("data_dir");
  if (was.keyFile != now.keyFile) changed.push_back("key_file");
  if (was.roots != now.roots) changed.push_back("roots");
  if (was.logFormat != now.logFormat) changed.push_back("log_format");
  return changed;
}

}  // namespace

AgentReloadOutcome applyAgentReload(conf::AgentConfig& running, JobRunner* jobs, const conf::AgentConfig& fresh) {
  AgentReloadOutcome out;
  if (!sameJobs(running.jobs, fresh.jobs)) {
    const bool couldRun = running.jobs.runsJobs();
    running.jobs = fresh.jobs;  // what the next login announces to hnowd
    if (jobs) jobs->setPolicy(JobPolicy::ofThisHost(fresh.jobs));
    std::string line = "[jobs] allow: " + allowText(fresh.jobs);
    // hnowd learns that the agent runs jobs from its login; a refusal, from the refusals.
    if (!couldRun && fresh.jobs.runsJobs()) line += "; hnowd plans jobs here from the agent's next login";
    out.applied.push_back(line);
  }
  if (running.logLevel != fresh.logLevel) {
    running.logLevel = fresh.logLevel;
    spdlog::set_level(spdlog::level::from_str(fresh.logLevel));
    out.applied.push_back("log_level: " + fresh.logLevel);
  }
  out.deferred = restartOnly(running, fresh);
  return out;
}

kj::Promise<void> reloadAgentOnHangup(kj::UnixEventPort& port, conf::AgentConfig& running,
                                      std::function<JobRunner*()> jobs, std::string configPath) {
  return port.onSignal(SIGHUP).then([&port, &running, jobs = std::move(jobs),
                                     configPath = std::move(configPath)](siginfo_t) mutable {
    auto fresh = conf::loadAgentConfig(configPath);
    if (!fresh) {
      spdlog::error("reload on SIGHUP refused, hnow-agent runs on as it was: {}", fresh.error().text());
    } else {
      const AgentReloadOutcome outcome = applyAgentReload(running, jobs(), *fresh);
      if (outcome.applied.empty() && outcome.deferred.empty())
        spdlog::info("reloaded {}: nothing a running agent takes changed", configPath);
      for (const std::string& line : outcome.applied) spdlog::info("reloaded {}: {}", configPath, line);
      for (const std::string& key : outcome.deferred)
        spdlog::warn("reloaded {}: {} changed, and takes effect only when hnow-agent restarts", configPath, key);
    }
    return reloadAgentOnHangup(port, running, std::move(jobs), std::move(configPath));
  });
}

}  // namespace hnow::agent
