// `hnow-agent --config FILE`: builds the real clock, network and timer and
// hands them to AgentRuntime: only main() builds real ones, so logic is
// tested with fakes (docs/architecture.md "Conventions the code follows").
#include <kj/async-io.h>
#include <kj/async-unix.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string_view>

#include "agent/agent_enroll.h"
#include "agent/agent_runtime.h"
#include "agent/config_reload.h"
#include "agent/startup_sweep.h"
#include "conf/runtime_config.h"
#include "transport/auth.h"
#include "transport/log_setup.h"
#include "transport/malloc_bounds.h"
#include "transport/service_notify.h"
#include "transport/tls_config.h"

int main(int argc, char** argv) {
  using namespace hnow;
  transport::boundMallocArenas();  // before any thread
  if (argc > 1 && std::string_view(argv[1]) == "enroll") {
    auto enrolling = agent::parseEnrollArgs(argc - 1, argv + 1);
    if (const int* exit = std::get_if<int>(&enrolling)) return *exit;
    return agent::enroll(std::get<agent::EnrollArgs>(enrolling));
  }
  auto parsed = agent::parseAgentArgs(argc, argv);
  if (const int* exit = std::get_if<int>(&parsed)) return *exit;
  const agent::AgentArgs* args = &std::get<agent::AgentArgs>(parsed);
  auto config = conf::loadAgentConfig(args->configPath);
  if (!config) {
    std::fprintf(stderr, "hnow-agent: %s\n", config.error().text().c_str());
    return 2;
  }
  transport::setupLogging("hnow-agent", config->logLevel, config->logFormat);
  std::error_code error;
  std::filesystem::create_directories(config->dataDir, error);
  if (error) {
    spdlog::error("cannot create the data directory {}: {}", config->dataDir, error.message());
    return 1;
  }
  auto credentials = agent::AgentCredentials::load(*config, args->token);
  if (!credentials) {
    spdlog::error("{}", credentials.error().message);
    return 2;
  }
  spdlog::info("agent key {} ({})", transport::keyText(credentials->key()), config->keyFile);

  // The owner decides what runs here (docs/jobs.md): without [jobs] allow, nothing does.
  if (!config->jobs.runsJobs())
    spdlog::info("this agent runs no jobs: to let hnowd run commands here, list them in [jobs] allow in {} "
                 "(docs/jobs.md)", args->configPath);
  else if (::geteuid() == 0)
    spdlog::warn("hnow-agent runs as root, and so would the jobs [jobs] allow, and the kernel does not hold root to "
                 "[jobs] processes: run it as an unprivileged user (dist/hnow-agent.service)");

  // A crash leaves temp files and job files no operation will claim.
  auto swept = agent::sweepLeftovers(config->roots);
  if (swept.tempFiles || swept.jobFiles || swept.stagingDirs)
    spdlog::warn("removed {} temp file(s) of unfinished receives, {} unpublished tree(s) and {} job file(s) left "
                 "by an earlier run",
                 swept.tempFiles, swept.stagingDirs, swept.jobFiles);
  if (swept.receivesKept)
    spdlog::info("kept {} unfinished receive(s) an earlier run left, for the next send of the same files to resume",
                 swept.receivesKept);
  for (const auto& problem : swept.errors) spdlog::warn("cannot sweep a leftover: {}", problem);

  // Signals are captured before any thread exists, so only the kj loop sees them.
  kj::UnixEventPort::captureSignal(SIGTERM);
  kj::UnixEventPort::captureSignal(SIGINT);
  kj::UnixEventPort::captureSignal(SIGHUP);  // reload [jobs] and log_level (agent/config_reload.h)
  try {
    auto io = kj::setupAsyncIo();
    hnow::SteadyClock clock;
    auto tls = transport::loadTlsIfConfigured(config->tls, transport::TlsSetup::Side::kClient,
                                              io.provider->getTimer());
    if (!tls) {
      spdlog::error("{}", tls.error().message);
      return 2;
    }
    agent::AgentRuntime runtime(*config, credentials.value(), io.provider->getNetwork(),
                                io.provider->getTimer(), clock, tls->get() ? &(*tls)->context() : nullptr);
    runtime.onRegistered([&config]() { transport::notifyReady("registered with " + config->coordinator); });
    auto watchdog = transport::feedWatchdog(io.provider->getTimer()).eagerlyEvaluate(nullptr);
    auto reloading =
        agent::reloadAgentOnHangup(io.unixEventPort, config.value(), [&runtime] { return runtime.jobs(); },
                                   args->configPath).eagerlyEvaluate(nullptr);
    auto running = runtime.run().eagerlyEvaluate([](kj::Exception&& e) {
      spdlog::error("agent loop failed: {}", e.getDescription().cStr());
    });
    spdlog::info("agent {} starting; hnowd at {}", config->name, config->coordinator);
    auto stop = io.unixEventPort.onSignal(SIGTERM).exclusiveJoin(io.unixEventPort.onSignal(SIGINT));
    siginfo_t signal = stop.wait(io.waitScope);
    transport::notifyStopping();
    spdlog::info("stopping on signal {}", signal.si_signo);
  } catch (const kj::Exception& e) {
    spdlog::error("{}", e.getDescription().cStr());
    return 1;
  }
  return 0;
}
