// `hnowd --config FILE`: the coordinator. The kj event loop runs on the main
// thread (the control thread, docs/architecture.md "Threads"); the data
// plane runs its libuv loop in its own thread.
#include <kj/async-io.h>
#include <kj/async-unix.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <set>
#include <optional>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

#include "base/host_networks.h"
#include "conf/runtime_config.h"
#include "core/coordinator.h"
#include "core/links/survey_runner.h"
#include "server/config_reload.h"
#include "server/address_file.h"
#include "server/control_server.h"
#include "server/coordinator_trust.h"
#include "server/coordinator_options.h"
#include "server/tick_loop.h"
#include "server/data_source_plane.h"
#include "server/link_probes.h"
#include "server/reachability_check.h"
#include "server/link_values.h"
#include "state/state_mark.h"
#include "core/send/owed_sends.h"
#include "core/manifest/manifest_service.h"
#include "core/send/send_service.h"
#include "core/send/sends_under_way.h"
#include "core/send/stored_send.h"
#include "core/jobs/job_service.h"
#include "server/output_temps.h"
#include "server/posix_run_files.h"
#include "server/send_paths.h"
#include "server/uploads.h"
#include "server/web_view.h"
#include "transport/data/kj_inbox.h"
#include "transport/data/data_plane.h"
#include "transport/data/frame.h"
#include "transport/auth.h"
#include "transport/daemon_main.h"
#include "transport/log_setup.h"
#include "transport/malloc_bounds.h"
#include "transport/service_notify.h"
#include "server/trust.h"
#include "transport/identity.h"
#include "transport/tls_config.h"

namespace {

using namespace hnow;

std::string hostOf(const std::string& listen) { return listen.substr(0, listen.rfind(':')); }
int portOf(const std::string& address) { return std::atoi(address.c_str() + address.rfind(':') + 1); }

kj::Promise<void> forwardDataEvents(transport::data::KjInbox<transport::data::TransferEvent>& inbox,
                                    daemon::DataSourcePlane& source) {
  return inbox.next().then([&inbox, &source](std::vector<transport::data::TransferEvent> events) {
    for (const auto& e : events) source.onTransfer(e);
    return forwardDataEvents(inbox, source);
  });
}

// The shares and results of jobs an earlier hnowd ran (a crash leaves them)
// belong to no job now, but for the directories of the jobs it resumes
// (state.db's jobs under way: their accepted results); job ids start over
// at 1. First the temp files it was writing beside an --output (output_temps.h).
void sweepEarlierJobs(const conf::CoordinatorConfig& config, daemon::StateStore& store) {
  const daemon::OutputTempSweep swept = daemon::sweepOutputTemps(config.dataDir + "/jobs", config.runRoots);
  for (const std::string& path : swept.removed)
    spdlog::warn("removed {}, the half-written --output of a run an earlier hnowd did not finish", path);
  for (const std::string& why : swept.skipped) spdlog::warn("left an earlier run's output temp file: {}", why);
  std::set<std::filesystem::path> resumed;
  if (auto running = store.loadRunningJobs(); !running) {
    spdlog::error("reading the jobs under way from state.db: {}", running.error().message);
  } else {
    for (const daemon::StoredRunningJob& job : *running) {
      resumed.insert(std::filesystem::path(job.dir).lexically_normal());
      for (const daemon::StoredShare& share : job.accepted)
        resumed.insert(std::filesystem::path(share.path).parent_path().lexically_normal());
    }
  }
  std::error_code error;
  std::uintmax_t removed = 0;
  const std::filesystem::path jobs = std::filesystem::path(config.dataDir) / "jobs";
  for (std::filesystem::directory_iterator it(jobs, error), end; !error && it != end; it.increment(error))
    if (!resumed.count(it->path().lexically_normal())) {
      std::error_code ignored;
      const auto n = std::filesystem::remove_all(it->path(), ignored);
      if (n != static_cast<std::uintmax_t>(-1)) removed += n;
    }
  if (removed > 0) spdlog::warn("removed {} file(s) of jobs an earlier hnowd left in {}/jobs", removed, config.dataDir);
}

// hnowd's data plane listening, watching its interface and paced at the
// configured uplink; the address agents reach it at.
Result<std::string> startDataPlane(transport::data::DataPlane& plane, const conf::CoordinatorConfig& config,
                                   daemon::Coordinator& coordinator) {
  auto port = plane.listen(hostOf(config.listen), config.dataPort);
  if (!port) return port.error();
  const std::string address = hostOf(config.listen) + ":" + std::to_string(port.value());
  spdlog::info("data plane listening on {}", address);
  // What else crosses hnowd's interface (a wildcard listen names none).
  plane.watchInterface(hostOf(config.listen));
  const double configuredUplink = config.uplinkMbps * 1e6 / 8;
  if (configuredUplink > 0) plane.setRates(configuredUplink, 0);  // probes are paced too
  if (configuredUplink > 0 && !config.survey.emulatedLinks)
    coordinator.links().setFixed({daemon::kCoordinatorNode, daemon::LinkDirection::kUp}, configuredUplink,
                                 daemon::RateMethod::kConfigured);
  return address;
}

// Listens for agents and clients until SIGTERM or SIGINT; 0, or the exit
// code of what failed.
int serveUntilStopped(kj::AsyncIoContext& io, daemon::ControlServer& server, const conf::CoordinatorConfig& config,
                      daemon::Ticked ticked, const std::filesystem::path& addressFile, daemon::Reloadable& reloadable,
                      const std::string& configPath) {
  auto address = io.provider->getNetwork().parseAddress(config.listen).wait(io.waitScope);
  auto receiver = address->listen();
  std::string bound = hostOf(config.listen) + ":" + std::to_string(receiver->getPort());
  if (!daemon::writeAddressFile(addressFile, bound)) {
    spdlog::error("cannot write {}", addressFile.string());
    return 1;
  }
  spdlog::info("listening on {}", bound);
  transport::notifyReady("listening on " + bound);
  auto watchdog = transport::feedWatchdog(io.provider->getTimer()).eagerlyEvaluate(nullptr);

  auto listening = server.listen(*receiver).eagerlyEvaluate([](kj::Exception&& e) {
    spdlog::error("accepting connections failed: {}", e.getDescription().cStr());
  });
  auto ticking = daemon::tickEvery(io.provider->getTimer(), ticked).eagerlyEvaluate(nullptr);
  auto reloading = daemon::reloadOnHangup(io.unixEventPort, reloadable, configPath).eagerlyEvaluate(nullptr);
  auto stop = io.unixEventPort.onSignal(SIGTERM).exclusiveJoin(io.unixEventPort.onSignal(SIGINT));
  siginfo_t signal = stop.wait(io.waitScope);
  transport::notifyStopping();
  // Operations under way end here as "interrupted", before the
  // connections close: agents disconnected by the stop are not lost, and
  // their sends are not failed.
  spdlog::info("stopping on signal {}; {} agents connected", signal.si_signo,
               ticked.coordinator.connectedCount());
  if (auto n = ticked.coordinator.operationLog().interruptRunning(); !n)
    spdlog::error("marking operations under way interrupted: {}", n.error().message);
  else if (*n > 0)
    spdlog::warn("{} operation(s) under way marked interrupted", *n);
  std::error_code error;
  std::filesystem::remove(addressFile, error);
  daemon::persist(ticked.coordinator);
  return 0;
}

// hnowd from its checked configuration to its stop: state, the data plane,
// the services, the control server.
int run(const conf::CoordinatorConfig& config, const std::string& configPath, const transport::Secret* secret,
        const std::filesystem::path& addressFile, bool newState) {
  auto io = kj::setupAsyncIo();
  hnow::SteadyClock clock;
  auto opened = daemon::openMarkedState(config.dataDir, newState);
  if (!opened) {
    spdlog::error("cannot open hnowd's state: {}", opened.error().message);
    return 1;
  }
  if (!opened->warning.empty()) spdlog::warn("{}", opened->warning);
  if (!opened->note.empty()) spdlog::info("{}", opened->note);
  auto store = std::move(opened.value().store);
  daemon::Coordinator coordinator(clock, daemon::rateOptionsOf(config), *store, daemon::linkOptionsOf(config));
  if (auto restored = coordinator.restore(); !restored) {
    spdlog::error("hnowd's state: {}", restored.error().message);
    return 1;
  }
  auto key = transport::loadOrCreateKeyFile(config.keyFile);
  if (!key) {
    spdlog::error("hnowd's key: {}", key.error().message);
    return 2;
  }
  const transport::KeyPair& hnowdKey = key.value();
  daemon::writePublicKey(config, hnowdKey);
  daemon::AgentKeys agentKeys(*store);
  std::vector<std::pair<std::string, std::string>> configuredAgents;
  for (const auto& a : config.agentKeys) configuredAgents.emplace_back(a.name, a.key);
  if (auto loaded = agentKeys.load(configuredAgents); !loaded) {
    spdlog::error("hnowd's state: {}", loaded.error().message);
    return 1;
  }
  daemon::SessionCuts cuts;
  daemon::KeyHosts keyHosts;
  daemon::Trust trust;
  trust.hnowdKey = &hnowdKey;
  trust.sharedSecret = secret;
  trust.agents = &agentKeys;
  trust.cuts = &cuts;
  trust.clock = &clock;
  trust.keyHosts = &keyHosts;
  auto operators = daemon::operatorsAtStart(config);
  if (!operators) {
    spdlog::error("{}: {}", configPath, operators.error().message);
    return 2;
  }
  trust.operators = std::move(operators).value();
  daemon::logTrust(config, configPath, trust);
  if (int n = coordinator.interruptedAtStart())
    spdlog::warn("{} operation(s) were still running when hnowd last stopped: marked interrupted", n);
  sweepEarlierJobs(config, *store);
  auto tls = transport::loadTlsIfConfigured(config.tls, transport::TlsSetup::Side::kServer,
                                            io.provider->getTimer());
  if (!tls) {
    spdlog::error("{}", tls.error().message);
    return 2;
  }
  // The data plane: hnowd is the source of every send.
  transport::data::DataOptions dataOptions;
  if (const char* every = std::getenv("HNOW_TEST_CORRUPT_CHUNK_EVERY"))  // test-only fault hook
    dataOptions.corruptChunkEvery = std::strtoull(every, nullptr, 10);
  dataOptions.maxAwaitingHelloPerHost = static_cast<std::size_t>(config.maxUnauthenticatedPerHost);
  // Results of `hnow run` arrive here; their events go to the source plane's receives.
  transport::data::KjInbox<transport::data::TransferEvent> dataEvents;
  transport::data::DataPlane dataPlane(
      clock, [&dataEvents](transport::data::TransferEvent e) { dataEvents.push(std::move(e)); }, dataOptions);
  auto listening = startDataPlane(dataPlane, config, coordinator);
  if (!listening) {
    spdlog::error("data plane: {}", listening.error().message);
    return 1;
  }
  const std::string dataAddress = listening.value();
  // Its own networks place hnowd in a room of agents (docs/rooms.md).
  HostNetworks own = hostNetworks();
  coordinator.linkKnowledge().setOwnNetworks(withHostNetworkFirst(std::move(own.networks), hostOf(dataAddress)), own.gateway,
                             dataAddress);
  const double configuredUplink = config.uplinkMbps * 1e6 / 8;
  // Agents that accept no connection (NAT, a firewall) are planned as leaves (docs/reachability.md).
  daemon::ReachabilityCheck reachability(
      io.provider->getNetwork(), io.provider->getTimer(),
      std::chrono::duration_cast<std::chrono::milliseconds>(dataOptions.connectTimeout).count() * kj::MILLISECONDS);
  coordinator.relays().setProbe(&reachability);
  daemon::NodeProber prober(coordinator, dataPlane);
  daemon::SurveyRunner surveys(
      coordinator, prober, clock, dataAddress,
      transport::freshToken,
      daemon::surveyOptionsOf(config));
  surveys.onReport(daemon::logSurvey);
  surveys.onRoomsFound([](const daemon::DiscoveredRooms& found) {
    if (found.roomOf.empty()) {
      spdlog::info("rooms: one switch ({} pairs at full speed, {} held back)", found.fullSpeedPairs, found.heldPairs);
      return;
    }
    std::map<std::string, std::string> members;
    for (const auto& [node, room] : found.roomOf) members[room] += (members[room].empty() ? "" : " ") + node;
    for (const auto& [room, nodes] : members) spdlog::info("rooms found by measurement: {}: {}", room, nodes);
  });
  daemon::DataSourcePlane source(dataPlane, config.dataDir + "/trees");
  if (std::size_t n = daemon::sweepBundles(config.dataDir + "/trees"))
    spdlog::warn("removed {} tree bundle(s) and compressed file(s) an earlier hnowd left in {}/trees", n,
                 config.dataDir);
  if (std::size_t n = daemon::sweepKeptStaging(config.dataDir + "/trees"))
    spdlog::warn("removed {} staging director(ies) an earlier hnowd left unpacking over a kept tree in {}/trees/kept",
                 n, config.dataDir);
  if (std::size_t n = daemon::sweepUploads(config.dataDir + "/uploads"))
    spdlog::warn("removed {} upload(s) an earlier hnowd left in {}/uploads", n, config.dataDir);
  daemon::SendService sends(coordinator, source, dataAddress, clock, transport::data::kChunkBytes, configuredUplink,
                            transport::freshToken);
  // What a send reads on this host, the sends owed to agents included, is read as [send] roots allowed it.
  // Both root lists are shared with what reads them, so that a reload (SIGHUP) changes them for all.
  daemon::LiveRoots sendRoots(config.sendRoots), runRoots(config.runRoots);
  sends.pinSourcesWith([sendRoots](const std::string& path) { return daemon::pinSendSource(sendRoots.get(), path); });
  sends.measureLinksWith([&surveys](std::vector<std::string> agents, auto done) {
    surveys.request(std::move(agents), std::move(done));
  });
  const daemon::SendStarter startSend = daemon::startOn(sends);
  daemon::OwedSends owed(coordinator, *store, clock, startSend);
  if (auto restored = owed.restore(); !restored)
    spdlog::error("reading the sends still owed from state.db: {}", restored.error().message);
  // Sends under way outlive hnowd: the next one runs them again once their agents are back.
  daemon::SendsUnderWay underWay(coordinator, *store, clock, startSend);
  sends.keepWith(underWay.keeper());
  if (auto restored = underWay.restore(daemon::kRestoredQueueGrace); !restored)
    spdlog::error("reading the sends under way from state.db: {}", restored.error().message);
  sends.onEnded([&owed, &underWay](const daemon::SendEnd& end) {
    underWay.drop(end.record);
    owed.ended(end);
  });
  daemon::ManifestService manifests(coordinator, clock, transport::data::kChunkBytes, transport::freshToken);
  daemon::PosixRunFiles runFiles(config.dataDir + "/jobs", runRoots);
  // A step a job must not take inside the call that caused it waits for the next turn of the loop.
  auto nextTurn = [](std::function<void()> f) { kj::evalLater(kj::mv(f)).detach([](kj::Exception&&) {}); };
  daemon::JobService jobs(coordinator, source, runFiles, dataAddress, clock, nextTurn, transport::freshToken, configuredUplink,
                          config.calibrationMaxSeconds);
  // Jobs the last hnowd left queued wait for their agents to log in again
  // (an agent retries within seconds of losing hnowd) before one may start.
  jobs.resumeRunning(daemon::kRestoredQueueGrace);  // ahead of the queued ones, as before
  jobs.restoreQueue(daemon::kRestoredQueueGrace);
  if (config.sendRoots.empty())
    spdlog::info("hnow send reads no file on this host: no [send] roots in {} (clients upload what they send; "
                 "add the directories hnowd may read and send in place)", configPath);
  if (config.runRoots.empty())
    spdlog::info("hnow run is off: no [run] roots in {} (the directories runs may read --input from and "
                 "write --output to on this host)", configPath);
  auto forwarding = forwardDataEvents(dataEvents, source).eagerlyEvaluate([](kj::Exception&& e) {
    spdlog::error("data plane events stopped: {}", e.getDescription().cStr());
  });
  daemon::ConnectionLimits limits{static_cast<std::size_t>(config.maxUnauthenticated),
                                  static_cast<int64_t>(config.loginTimeoutSeconds * 1000) * kj::MILLISECONDS,
                                  static_cast<std::size_t>(config.maxUnauthenticatedPerHost)};
  daemon::ControlServer server(coordinator, trust, io.provider->getTimer(), limits,
                               tls->get() ? &(*tls)->context() : nullptr,
                               daemon::Services{&sends, &manifests, &jobs, &surveys, &owed, config.dataDir + "/uploads",
                                                sendRoots, &source, portOf(dataAddress), nullptr, {}, &underWay});

  // The web view and /metrics read what `hnow status` and `hnow ops` read.
  std::unique_ptr<daemon::WebView> web;
  if (config.web.enabled()) {
    auto started = daemon::WebView::start(
        io, config.web, (std::filesystem::path(config.dataDir) / "web.address").string(),
        daemon::StatusSources{&coordinator, &sends, &manifests, &jobs, &surveys, &owed, &underWay, &keyHosts, &clock},
        transport::hnowVersion());
    if (!started) {
      spdlog::error("[web] in {}: {}", configPath, started.error().message);
      return 2;
    }
    web = std::move(started).value();
  }

  daemon::Ticked ticked{coordinator, surveys, jobs, owed, underWay, sends, manifests, dataPlane, configuredUplink, config.limits, clock};
  daemon::evaluateCaps(ticked);
  daemon::Reloadable reloadable{trust, sendRoots, runRoots, config};
  return serveUntilStopped(io, server, config, ticked, addressFile, reloadable, configPath);
}

}  // namespace

int main(int argc, char** argv) {
  transport::boundMallocArenas();  // before any thread
  CLI::App app{"hnowd: hnow's coordinator - keeps the agents' rates, plans and runs sends and jobs"};
  std::string configPath;
  transport::describeDaemon(app, "hnowd", configPath);
  bool newState = false;
  app.add_flag("--new-state", newState, "start with a state.db other than the one hnowd kept (docs/security.md)");
  if (auto exit = transport::exitInsteadOfRunning(app, argc, argv)) return *exit;
  auto config = conf::loadCoordinatorConfig(configPath);
  if (!config) {
    std::fprintf(stderr, "hnowd: %s\n", config.error().text().c_str());
    return 2;
  }
  std::optional<transport::Secret> secret;
  if (!config->secretFile.empty()) {
    auto loaded = transport::loadSecretFile(config->secretFile);
    if (!loaded.secret) {
      std::fprintf(stderr, "hnowd: %s\n", loaded.error.c_str());
      return 2;
    }
    secret.emplace(std::move(*loaded.secret));
  }
  transport::setupLogging("hnowd", config->logLevel, config->logFormat);
  std::error_code error;
  std::filesystem::create_directories(config->dataDir, error);
  if (error) {
    spdlog::error("cannot create the data directory {}: {}", config->dataDir, error.message());
    return 1;
  }
  const auto addressFile = std::filesystem::path(config->dataDir) / "hnowd.address";

  kj::UnixEventPort::captureSignal(SIGTERM);
  kj::UnixEventPort::captureSignal(SIGINT);
  kj::UnixEventPort::captureSignal(SIGHUP);  // reload the config (server/config_reload.h)
  try {
    return run(*config, configPath, secret ? &*secret : nullptr, addressFile, newState);
  } catch (const kj::Exception& e) {
    spdlog::error("{}", e.getDescription().cStr());
    return 1;
  }
}
