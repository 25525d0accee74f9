#pragma once
// hnow-agent's config read again on SIGHUP (`systemctl reload
// hnow-agent`): the owner's [jobs] (which commands hnowd may run here, and
// their limits) and log_level take effect for the next command, without
// dropping hnowd or what runs; commands already running keep the limits
// they started under. Other keys changed are named: they wait for a
// restart. A config that does not load changes nothing.
#include <kj/async-unix.h>

#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "conf/runtime_config.h"

namespace hnow::agent {

class JobRunner;

// What a reload did, a line each, as it logs them.
struct AgentReloadOutcome {
  std::vector<std::string> applied;
  std::vector<std::string> deferred;  // keys that changed but wait for a restart
};

// Applies `fresh` to `running` (the config the agent's runtime reads at
// each login) and to `jobs` (null: no data root, so no jobs here).
AgentReloadOutcome applyAgentReload(conf::AgentConfig& running, JobRunner* jobs, const conf::AgentConfig& fresh);

// Reads `configPath` again at every SIGHUP and applies it; never ends.
// `jobs` gives the runner at that time (the runtime makes it once its data
// plane listens). SIGHUP must have been captured (kj::UnixEventPort::captureSignal).
kj::Promise<void> reloadAgentOnHangup(kj::UnixEventPort& port, conf::AgentConfig& running,
                                      std::function<JobRunner*()> jobs, std::string configPath);

}  // namespace hnow::agent
