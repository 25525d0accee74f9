#include "agent/agent_runtime.h"

#include <spdlog/spdlog.h>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <utility>

#include "agent/agent_control.h"
#include "agent/job_runner.h"
#include "agent/rate_probe.h"
#include "agent/receiver.h"
#include "base/host_key.h"
#include "base/host_networks.h"
#include "transport/gate_client.h"
#include "transport/link_wire.h"
#include "transport/rpc_connection.h"
#include "transport/wire_caps.h"
#include "transport/wire_rates.h"
#include "transport/rpc_errors.h"

namespace hnow::agent {

namespace {

using namespace std::chrono_literals;

constexpr hnow::Duration kFirstBackoff = 100ms;
constexpr hnow::Duration kMaxBackoff = 5s;
// A heartbeat unanswered this long means hnowd is gone even if TCP says not
// (a dead hnowd's sockets are closed by its kernel at once). hnowd beside
// 256 agents and a CPU hog on two cores answered seconds late: 5 s made
// every agent drop its connection and log in again at once, which only
// loaded hnowd more.
constexpr hnow::Duration kHeartbeatTimeout = 20s;
// Transfers are kept this long after the connection to hnowd ends, for the
// same hnowd to resume them (docs/reachability.md, "Lost while flowing").
constexpr hnow::Duration kKeepTransfers = 30s;
// Shares go on running this long after the connection ends, their results
// kept: hnowd restarted (the same key) collects them rather than compute
// them again, once it says which it still counts on (keepJobFiles). A
// dead hnowd's are dropped then: they hold CPU and disk here.
constexpr hnow::Duration kHoldJobs = 10min;

kj::Duration toKj(hnow::Duration d) { return d.count() * kj::NANOSECONDS; }

std::string hostOf(const std::string& hostPort) { return hostPort.substr(0, hostPort.rfind(':')); }

// Where this agent sits, asked again at every login (an address may have
// changed meanwhile): hnowd groups agents into rooms by the network its
// data plane listens on, so that one goes first.
void setNetworks(wire::Registration::Builder registration, const std::string& dataHost) {
  const HostNetworks here = hostNetworks();
  const std::vector<std::string> networks = withHostNetworkFirst(here.networks, dataHost);
  auto list = registration.initNetworks(static_cast<unsigned>(networks.size()));
  for (unsigned i = 0; i < networks.size(); ++i) list.set(i, networks[i]);
  registration.setGateway(here.gateway);
  registration.setHost(hostKey());
}

class SessionProbePeer final : public ProbePeer {
 public:
  explicit SessionProbePeer(wire::AgentSession::Client session) : session_(kj::mv(session)) {}
  // kj's capability handles may throw from their destructors; ProbePeer's may not.
  ~SessionProbePeer() noexcept override {}
  kj::Promise<void> ping() override { return session_.pingRequest().send().ignoreResult(); }

 private:
  wire::AgentSession::Client session_;
};

}  // namespace

AgentRuntime::AgentRuntime(const conf::AgentConfig& config, AgentCredentials& credentials,
                           kj::Network& network, kj::Timer& timer, const hnow::Clock& clock,
                           kj::TlsContext* tls)
    : config_(config), credentials_(credentials), network_(network), timer_(timer), clock_(clock), tls_(tls),
      emulation_{config.emulate.uplinkMbps, config.emulate.downlinkMbps,
                 config.emulate.computeFactor},
      backoff_(kFirstBackoff) {}

AgentRuntime::~AgentRuntime() {
  *alive_ = false;
  // A stop (an upgrade, a reboot) mid-send leaves each receive for the next process to resume (receive_records.h).
  if (receiver_) receiver_->keepUnfinishedOnStop();
}

void AgentRuntime::startDataPlane(kj::AsyncIoStream& controlStream) {
  if (receiver_) return;
  sockaddr_storage local{};
  kj::uint length = sizeof local;
  controlStream.getsockname(reinterpret_cast<sockaddr*>(&local), &length);
  char host[INET6_ADDRSTRLEN] = "0.0.0.0";
  if (local.ss_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&local)->sin_addr, host, sizeof host);
  else if (local.ss_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr, host, sizeof host);
  transport::data::DataOptions options;
  // Test-only fault injection (tests/process): corrupt every Nth chunk sent.
  if (const char* every = std::getenv("HNOW_TEST_CORRUPT_CHUNK_EVERY"))
    options.corruptChunkEvery = std::strtoull(every, nullptr, 10);
  if (const char* every = std::getenv("HNOW_TEST_REWRITE_RELAYED_CHUNK_EVERY"))
    options.rewriteRelayedChunkEvery = std::strtoull(every, nullptr, 10);
  options.maxAwaitingHelloPerHost = static_cast<std::size_t>(config_.maxUnauthenticatedPerHost);
  receiver_ = std::make_unique<Receiver>(config_.roots, clock_, options);
  receiver_->setCoordinatorHost(hostOf(config_.coordinator));
  applyRates();
  // Peers reach this agent where hnowd does: the address of this connection.
  dataAddress_ = transport::valueOrRefuse(receiver_->listen(host, config_.dataPort));
  dataHost_ = host;
  // Its interface's counters tell hnowd what other traffic shares this node's links.
  receiver_->watchInterface(host);
  if (!config_.roots.empty())
    jobs_ = std::make_unique<JobRunner>(*receiver_, config_.roots.front(), JobPolicy::ofThisHost(config_.jobs),
                                        "hnowd at " + config_.coordinator);
  // Receives an earlier process of this agent left: resumed by the next send of the same files.
  if (receiver_->restoreLeftovers() > 0) holdPartials();
  // Results an earlier process of this agent computed: given back to that hnowd, held as after a lost connection.
  if (jobs_)
    if (auto holder = transport::parseKeyText(jobs_->restoreHeld()); holder) {
      jobsHeldFor_ = *holder;
      holdJobs();
    }
  spdlog::info("data plane listening on {}", dataAddress_);
  reporting_ = receiver_
                   ->forwardEvents([this](const transport::data::TransferEvent& e,
                                          const transport::data::UnpackedTree* unpacked) { reportTransfer(e, unpacked); })
                   .eagerlyEvaluate([](kj::Exception&& e) {
                     spdlog::error("transfer reports stopped: {}", e.getDescription().cStr());
                   });
}

void AgentRuntime::forgetJobs() {
  if (jobs_) jobs_->dropAll();
}

void AgentRuntime::holdJobs() {
  spdlog::info("holding job files and shares for hnowd for {:.0f} s", hnow::seconds(kHoldJobs));
  holdingJobs_ = timer_.afterDelay(toKj(kHoldJobs)).then([this]() {
                                     spdlog::warn("hnowd has not claimed its shares after {:.0f} s: dropping them",
                                                  hnow::seconds(kHoldJobs));
                                     forgetJobs();
                                   }).eagerlyEvaluate(nullptr);
}

void AgentRuntime::forgetTransfers() {
  lastReports_.clear();
  if (receiver_) receiver_->releaseAll();
  paces_.clear();
  downPaces_.clear();
  applyRates();
}

void AgentRuntime::requestProbe() {
  if (wakeProbe_) {
    (*wakeProbe_)->fulfill();
    wakeProbe_.reset();
  } else {
    probeRequested_ = true;
  }
}

kj::Promise<void> AgentRuntime::probeWakeup() {
  if (probeRequested_) {
    probeRequested_ = false;
    return kj::READY_NOW;
  }
  auto paf = kj::newPromiseAndFulfiller<void>();
  wakeProbe_ = kj::mv(paf.fulfiller);
  return kj::mv(paf.promise);
}

kj::Promise<void> AgentRuntime::run() {
  return connectOnce()
      .then([this]() { spdlog::warn("the connection to hnowd at {} ended", config_.coordinator); },
            [this](kj::Exception&& e) {
              // A token hnowd refuses (expired, used) stays refused: say which file to replace.
              const std::string& token = credentials_.tokenFile();
              spdlog::warn("hnowd at {}: {}{}", config_.coordinator, transport::describe(e),
                           token.empty() ? "" : " (while enrolling with " + token + "; if hnowd refused the token, "
                                                "place a new one: hnow-agent enroll TOKEN_FILE)");
            })
      .then([this]() {
        wakeProbe_.reset();
        if (jobs_ && jobs_->holdsAny()) holdJobs();
        // A while for the same hnowd to come back (an overloaded one that let
        // heartbeats go unanswered): not for ever, a dead one holds disk here.
        keepingTransfers_ = timer_.afterDelay(toKj(kKeepTransfers)).then([this]() {
                                                  if (session_) return;
                                                  spdlog::warn("hnowd is not back after {:.0f} s: dropping {} transfer(s) "
                                                               "but the partial receives a restarted hnowd resumes",
                                                               hnow::seconds(kKeepTransfers), lastReports_.size());
                                                  parkTransfers();
                                                  coordinatorInstance_ = 0;
                                                }).eagerlyEvaluate(nullptr);
        // Jitter keeps a lab's agents from reconnecting in lockstep after a restart.
        static std::minstd_rand random(std::random_device{}());
        double jitter = 0.8 + 0.4 * (random() % 1000) / 1000.0;
        auto wait = std::chrono::duration_cast<hnow::Duration>(backoff_ * jitter);
        backoff_ = std::min(kMaxBackoff, backoff_ * 2);
        spdlog::debug("reconnecting in {:.2f} s", hnow::seconds(wait));
        return timer_.afterDelay(toKj(wait)).then([this]() { return run(); });
      });
}

kj::Promise<void> AgentRuntime::connectOnce() {
  return network_.parseAddress(config_.coordinator)
      .then([](kj::Own<kj::NetworkAddress> address) {
        return address->connect().attach(kj::mv(address));
      })
      .then([this](kj::Own<kj::AsyncIoStream> stream) -> kj::Promise<kj::Own<kj::AsyncIoStream>> {
        if (!tls_) return kj::mv(stream);
        return tls_->wrapClient(kj::mv(stream), config_.tls.serverName);
      })
      .then([this](kj::Own<kj::AsyncIoStream> stream) { return serve(kj::mv(stream)); });
}

kj::Promise<void> AgentRuntime::serve(kj::Own<kj::AsyncIoStream> stream) {
  startDataPlane(*stream);
  auto connection = kj::heap<transport::RpcConnection>(kj::mv(stream));
  auto gate = connection->peerBootstrap<wire::Gate>();
  auto ended = connection->onDisconnect();
  auto work =
      transport::openGate(gate, credentials_.trusted(), credentials_.secret())
          .then([this, gate](transport::GateOpening opening) mutable {
            auto request = gate.loginAgentKeyRequest();
            auto proof = credentials_.sign(config_.name, opening.nonce);
            auto credential = request.initCredential();
            credential.setKey(transport::dataOf(proof.key));
            credential.setSignature(transport::dataOf(proof.signature));
            credential.setTokenId(transport::dataOf(proof.tokenId));
            credential.setTokenProof(transport::dataOf(proof.tokenProof));
            credential.setSecretProof(transport::dataOf(proof.secretProof));
            coordinatorKey_ = opening.coordinator;
            auto registration = request.initRegistration();
            registration.setName(config_.name);
            registration.setSite(config_.site);
            // Only what its owner allows ([jobs] allow): hnowd plans no share on an agent without "jobs".
            const bool runsJobs = jobs_ && config_.jobs.runsJobs();
            auto capabilities = registration.initCapabilities(runsJobs ? 3 : 2);
            capabilities.set(0, "probe");
            capabilities.set(1, "relay");
            if (runsJobs) capabilities.set(2, "jobs");
            registration.setDataAddress(dataAddress_);
            // What it still runs for that hnowd (reportAgain below): hnowd
            // orders again what a process that keeps nothing had under way.
            registration.setKeptInstance(coordinatorInstance_);
            setNetworks(registration, dataHost_);
            auto roots = registration.initRoots(config_.roots.size());
            for (size_t i = 0; i < config_.roots.size(); ++i) roots.set(i, config_.roots[i]);
            request.setControl(kj::heap<AgentControlServer>(*this));
            return request.send();
          })
          .then([this](auto response) {
            wire::AgentSession::Client session = response.getSession();
            session_ = session;
            keepingTransfers_ = nullptr;
            const std::uint64_t instance = response.getInstance();
            if (instance != 0 && instance == coordinatorInstance_) {
              reportAgain();
              // Its calls for the shares running here failed with the
              // connection: it gave them to other agents.
              holdingJobs_ = nullptr;
              forgetJobs();
            } else {
              // The same hnowd restarted (its key): its shares stay until it
              // says which it still counts on, and the receives it runs
              // again resume from what is here. Another one knows none of them.
              const bool restarted = jobsHeldFor_ && *jobsHeldFor_ == coordinatorKey_;
              if (!lastReports_.empty())
                spdlog::info("{} {} transfer(s) an earlier hnowd started here",
                             restarted ? "parking" : "dropping", lastReports_.size());
              restarted ? parkTransfers() : forgetTransfers();
              if (!restarted) {
                holdingJobs_ = nullptr;
                forgetJobs();
              } else if (jobs_ && jobs_->holdsAny()) {
                spdlog::info("hnowd restarted: its job files and shares stay until it claims them");
                jobs_->serveResultsAgain();  // parkTransfers() released them with the transfers
              }
            }
            jobsHeldFor_ = coordinatorKey_;
            if (jobs_) jobs_->setHolder(transport::keyText(coordinatorKey_));
            coordinatorInstance_ = instance;
            credentials_.loggedIn(coordinatorKey_);
            backoff_ = kFirstBackoff;
            spdlog::info("registered with hnowd at {} as {} (site {})", config_.coordinator,
                         config_.name, config_.site);
            if (onRegistered_) onRegistered_();
            return heartbeats(session).exclusiveJoin(probes(session)).exclusiveJoin(capsSchedule(session));
          });
  return work.exclusiveJoin(kj::mv(ended))
      .attach(kj::defer([this]() { session_.reset(); }))
      .attach(kj::mv(connection));
}

kj::Promise<void> AgentRuntime::heartbeats(wire::AgentSession::Client session) {
  auto interval = std::chrono::duration<double>(config_.heartbeatIntervalSeconds);
  return timer_.afterDelay(toKj(std::chrono::duration_cast<hnow::Duration>(interval)))
      .then([this, session]() mutable {
        auto request = session.heartbeatRequest();
        if (receiver_) transport::toWire(receiver_->counters(), request.initCounters());
        return timer_.timeoutAfter(toKj(kHeartbeatTimeout), request.send().ignoreResult());
      })
      .then([this, session]() mutable { return heartbeats(session); });
}

kj::Promise<void> AgentRuntime::probes(wire::AgentSession::Client session) {
  ProbeSettings settings;
  settings.computeFactor = emulation_.computeFactor;
  auto peer = kj::heap<SessionProbePeer>(session);
  auto measured = probeRates(*peer, clock_, settings).attach(kj::mv(peer));
  return measured
      .then([this, session](planner::NodeRates rates) mutable {
        const double up = mbpsToBytesPerSecond(emulation_.uplinkMbps), down = mbpsToBytesPerSecond(emulation_.downlinkMbps);
        spdlog::info("measured overhead {:.1f} us, compute {:.3f} ms/unit; links {}", rates.sendOverheadSeconds * 1e6,
                     rates.computeSecondsPerUnit * 1e3,
                     up > 0 || down > 0 ? fmt::format("emulated at {} / {} Mbit/s up / down (0: not paced)",
                                                      emulation_.uplinkMbps, emulation_.downlinkMbps)
                                        : std::string("measured by hnowd"));
        auto request = session.reportRatesRequest();
        transport::ratesToWire(rates, request.initRates());
        auto emulated = request.initEmulated();
        // Test-only fault hook: an agent that tells hnowd its uplink is this
        // many times what it paces (docs/security.md, "Rates that lie").
        static const double lie = [] {
          const char* times = std::getenv("HNOW_TEST_TELL_UPLINK_TIMES");
          return times ? std::max(1.0, std::atof(times)) : 1.0;
        }();
        emulated.setUplinkBytesPerS(up * lie);
        emulated.setDownlinkBytesPerS(down);
        return request.send().ignoreResult();
      })
      .then([this]() {
        auto interval = std::chrono::duration<double>(config_.probeIntervalSeconds);
        return timer_.afterDelay(toKj(std::chrono::duration_cast<hnow::Duration>(interval)))
            .exclusiveJoin(probeWakeup());
      })
      .then([this, session]() mutable { return probes(session); });
}

}  // namespace hnow::agent
