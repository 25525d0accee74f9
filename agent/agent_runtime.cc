#include "agent/agent_runtime.h"

#include <kj/debug.h>
#include <spdlog/spdlog.h>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <utility>

#include "agent/job_runner.h"
#include "agent/rate_probe.h"
#include "agent/receiver.h"
#include "agent/source_file.h"
#include "base/host_key.h"
#include "base/host_networks.h"
#include "transport/held_lists_wire.h"
#include "transport/gate_client.h"
#include "transport/agent_wire.h"
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

kj::Duration toKj(hnow::Duration d) { return d.count() * kj::NANOSECONDS; }

double bytesPerSecond(double mbps) { return mbps * 1e6 / 8; }

std::string tokenOf(capnp::Data::Reader data) {
  return std::string(reinterpret_cast<const char*>(data.begin()), data.size());
}

// A 32-byte digest (checked by the codec) as the data plane holds it.
transport::data::Sha256 digestOf(const std::string& sha256) {
  transport::data::Sha256 sha{};
  std::copy(sha256.begin(), sha256.end(), sha.begin());
  return sha;
}

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

// A manifest item's file opened and hashed off the kj thread; closed here
// unless it was handed to the data plane (a call cancelled meanwhile).
struct OpenedSource {
  Result<SourceFile> source;
  explicit OpenedSource(Result<SourceFile> opened) : source(std::move(opened)) {}
  OpenedSource(OpenedSource&& other) noexcept : source(std::move(other.source)) {
    if (other.source) other.source.value().fd = -1;
  }
  OpenedSource& operator=(OpenedSource&&) = delete;
  ~OpenedSource() {
    if (source && source.value().fd >= 0) ::close(source.value().fd);
  }
};

// hnowd's commands to this agent.
class AgentControlServer final : public wire::AgentControl::Server {
 public:
  explicit AgentControlServer(AgentRuntime& runtime) : runtime_(runtime) {}

 protected:
  kj::Promise<void> setEmulatedRates(SetEmulatedRatesContext context) override {
    auto in = context.getParams().getRates();
    double up = in.getUplinkMbps(), down = in.getDownlinkMbps(), factor = in.getComputeFactor();
    for (double v : {up, down, factor})
      KJ_REQUIRE(std::isfinite(v) && v >= 0, "rates must be finite and not negative");
    KJ_REQUIRE(factor == 0 || factor >= 1, "a compute factor can only slow work down");
    runtime_.setEmulation(up, down, factor);
    return kj::READY_NOW;
  }
  kj::Promise<void> probeNow(ProbeNowContext) override {
    runtime_.requestProbe();
    return kj::READY_NOW;
  }
  kj::Promise<void> receive(ReceiveContext context) override {
    auto order = transport::receiveOrderFromWire(context.getParams().getOrder());
    if (!order) transport::refuse(order.error().message);
    std::string path = order->tree              ? runtime_.receiver().receiveTree(*order)
                       : order->compressed      ? runtime_.receiver().receiveCompressed(*order)
                       : order->stripes.empty() ? runtime_.receiver().receive(order->token, order->dest, order->size,
                                                                              digestOf(order->sha256),
                                                                              wholeFileDigests(*order), order->operation)
                                                : runtime_.receiver().receiveStriped(*order);
    runtime_.paceReceive(order->token, order->uplinkPaceBytesPerSecond, order->downlinkPaceBytesPerSecond);
    runtime_.spaceProgress(*order);
    context.getResults().setPath(path);
    return kj::READY_NOW;
  }
  kj::Promise<void> pull(PullContext context) override {
    auto params = context.getParams();
    runtime_.receiver().pull(tokenOf(params.getToken()), params.getParentAddress());
    return kj::READY_NOW;
  }
  kj::Promise<void> release(ReleaseContext context) override {
    const std::string token = tokenOf(context.getParams().getToken());
    runtime_.receiver().release(token);
    runtime_.forgetReport(token);
    runtime_.paceReceive(token, 0.0, 0.0);
    return kj::READY_NOW;
  }
  // This agent is the source of a manifest item.
  kj::Promise<void> serveFile(ServeFileContext context) override {
    auto params = context.getParams();
    KJ_REQUIRE(params.getToken().size() == wire::TOKEN_BYTES, "an operation token is 32 bytes");
    const double pace = params.getUplinkPaceBytesPerS();
    KJ_REQUIRE(std::isfinite(pace) && pace >= 0, "an uplink pace must be finite and not negative");
    std::string file = params.getFile();
    // Hashing the file takes seconds for a large one: off the kj thread, which keeps heartbeats going.
    return offThread<OpenedSource>([roots = runtime_.receiver().roots(), file] {
             return OpenedSource(openSourceFile(roots, file));
           })
        .then([this, context, file, pace](kj::Own<OpenedSource> opened) mutable {
          if (!opened->source) {
            spdlog::warn("refused to serve a file: {}", opened->source.error().message);
            transport::refuse(opened->source.error().message);
          }
          SourceFile& source = opened->source.value();
          spdlog::info("serving {} ({} bytes)", file, source.size);
          const std::string token = tokenOf(context.getParams().getToken());
          const std::string pieces = source.digests.pieceBytes();
          auto results = context.getResults();
          results.setSize(source.size);
          results.setSha256(capnp::Data::Reader(source.sha256.data(), source.sha256.size()));
          results.setDigestChunkBytes(source.digests.chunkBytes);
          results.setPieceDigests(capnp::Data::Reader(reinterpret_cast<const kj::byte*>(pieces.data()), pieces.size()));
          runtime_.receiver().serve(token, std::exchange(source.fd, -1), source.size, std::move(source.digests));
          runtime_.paceReceive(token, pace, 0.0);
        });
  }
  // `hnow run`'s shares and results (agent/job_runner.h).
  kj::Promise<void> fetchJobFile(FetchJobFileContext context) override {
    auto file = transport::jobFileFromWire(context.getParams().getInput());
    if (!file) transport::refuse(file.error().message);
    return jobs().fetch(file->token, file->size, digestOf(file->sha256), file->source);
  }
  kj::Promise<void> runJobTask(RunJobTaskContext context) override {
    auto task = transport::jobTaskFromWire(context.getParams().getTask());
    if (!task) transport::refuse(task.error().message);
    auto& t = task.value();
    return jobs()
        .run(std::move(t.inputs), std::move(t.argv), t.resultToken, runtime_.emulation().computeFactor, t.shell, t.run)
        .then([context](TaskOutcome outcome) mutable {
          transport::toWire(transport::JobTaskAnswer{outcome.exitCode, outcome.error, outcome.size, outcome.sha256,
                                                     outcome.computeS, outcome.runS, outcome.refused, outcome.limited},
                            context.getResults().initResult());
        });
  }
  kj::Promise<void> offerFile(OfferFileContext context) override {
    auto params = context.getParams();
    const std::string token = tokenOf(params.getToken()), ticket = tokenOf(params.getTicket());
    if (token.size() != 32 || ticket.size() != 32) transport::refuse("offerFile: token and ticket are 32 bytes each");
    return jobs().offer(token, ticket, params.getAddress());
  }
  kj::Promise<void> dropJobFiles(DropJobFilesContext context) override {
    std::vector<std::string> tokens;
    for (auto t : context.getParams().getTokens()) tokens.push_back(tokenOf(t));
    jobs().drop(tokens);
    return kj::READY_NOW;
  }
  // Only what changed: which files of a tree's index this agent lacks.
  kj::Promise<void> treeHeld(TreeHeldContext context) override {
    auto params = context.getParams();
    auto index = params.getIndex();
    std::string dest = params.getDest();
    std::string query(reinterpret_cast<const char*>(index.begin()), index.size());
    return offThread<Result<transport::data::HeldFiles>>(
               [roots = runtime_.receiver().roots(), dest, query, listings = runtime_.receiver().listings()] {
                 return Receiver::treeHeld(roots, dest, query, *listings);
               })
        .then([context](kj::Own<Result<transport::data::HeldFiles>> held) mutable {
          if (!*held) transport::refuse(held->error().message);
          transport::setHeldLists(context.getResults(), **held);
        });
  }
  // A single file's send: what its destination already holds.
  kj::Promise<void> fileHeld(FileHeldContext context) override {
    auto params = context.getParams();
    std::optional<transport::data::Sha256> sha256;
    if (params.getSha256().size() == 32)
      sha256 = digestOf(std::string(reinterpret_cast<const char*>(params.getSha256().begin()), 32));
    else if (params.getSha256().size() != 0)
      transport::refuse("a file's SHA-256 from hnowd must be 32 bytes");
    std::string dest = params.getDest();
    const std::uint64_t size = params.getSize();
    using Holding = Result<Receiver::FileHolding>;
    return offThread<Holding>([roots = runtime_.receiver().roots(), dest, size, sha256,
                               listings = runtime_.receiver().listings()] {
             return Receiver::fileHeld(roots, dest, size, sha256, *listings);
           })
        .then([context](kj::Own<Holding> held) mutable {
          if (!*held) transport::refuse(held->error().message);
          using H = transport::data::DestHolding;
          wire::DestHolding out = wire::DestHolding::OTHER;
          switch ((*held)->holding) {
            case H::kAbsent: out = wire::DestHolding::ABSENT; break;
            case H::kSameSize: out = wire::DestHolding::SAME_SIZE; break;
            case H::kSame: out = wire::DestHolding::SAME; break;
            case H::kOther: case H::kDirectory: break;
          }
          context.getResults().setHolding(out);
          context.getResults().setHeldAt((*held)->heldAt);
        });
  }
  // A single file's send: write dest from the same bytes under another path here.
  kj::Promise<void> copyHeld(CopyHeldContext context) override {
    auto params = context.getParams();
    if (params.getSha256().size() != 32) transport::refuse("a file's SHA-256 from hnowd must be 32 bytes");
    const auto sha256 = digestOf(std::string(reinterpret_cast<const char*>(params.getSha256().begin()), 32));
    std::string dest = params.getDest(), from = params.getFrom();
    const std::uint64_t size = params.getSize();
    // dest is held while the copy runs, as a receive holds its own.
    auto claimed = runtime_.receiver().claimCopy(dest);
    if (!claimed) transport::refuse(claimed.error().message);
    using Copied = Result<std::string>;
    return offThread<Copied>([roots = runtime_.receiver().roots(), dest, from, size, sha256,
                              listings = runtime_.receiver().listings()] {
             return Receiver::copyHeld(roots, dest, from, size, sha256, *listings);
           })
        .then([context, claim = std::move(claimed).value()](kj::Own<Copied> copied) mutable {
          if (!*copied) transport::refuse(copied->error().message);
          context.getResults().setPath(**copied);
        });
  }
  kj::Promise<void> probeLinks(ProbeLinksContext context) override {
    auto order = transport::probeOrderFromWire(context.getParams().getOrder());
    if (!order) transport::refuse(order.error().message);
    return runtime_.receiver().probe(std::move(order).value()).then([context](Receiver::ProbeAnswer r) mutable {
      if (!*r) transport::refuse(r->error().message);
      transport::toWire(r->value(), context.getResults().initResult());
    });
  }

 private:
  // `work` on a thread of its own (it reads files: seconds for large ones),
  // its answer back on the kj thread, which keeps heartbeats and relays going.
  template <typename T>
  kj::Promise<kj::Own<T>> offThread(std::function<T()> work) {
    auto paf = kj::newPromiseAndFulfiller<kj::Own<T>>();
    auto fulfiller = std::make_shared<kj::Own<kj::PromiseFulfiller<kj::Own<T>>>>(kj::mv(paf.fulfiller));
    runtime_.offThread().run<T>(std::move(work),
                                [fulfiller](T& answer) { (*fulfiller)->fulfill(kj::heap<T>(std::move(answer))); });
    return kj::mv(paf.promise);
  }
  JobRunner& jobs() {
    JobRunner* jobs = runtime_.jobs();
    if (!jobs) transport::refuse("this agent has no data root, so it cannot run jobs");
    return *jobs;
  }
  AgentRuntime& runtime_;
};

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

AgentRuntime::~AgentRuntime() { *alive_ = false; }

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
  dataAddress_ = receiver_->listen(host);
  dataHost_ = host;
  // Its interface's counters tell hnowd what other traffic shares this node's links.
  receiver_->watchInterface(host);
  if (!config_.roots.empty())
    jobs_ = std::make_unique<JobRunner>(*receiver_, config_.roots.front(), JobPolicy::ofThisHost(config_.jobs),
                                        "hnowd at " + config_.coordinator);
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

void AgentRuntime::forgetOperations() {
  forgetJobs();
  lastReports_.clear();
  if (receiver_) receiver_->releaseAll();
  paces_.clear();
  downPaces_.clear();
  applyRates();
}

void AgentRuntime::paceReceive(const std::string& token, double up, double down) {
  bool changed = false;
  for (auto [paces, pace] : {std::pair{&paces_, up}, std::pair{&downPaces_, down}}) {
    if (pace > 0) {
      (*paces)[token] = pace;
      changed = true;
    } else if (paces->erase(token) > 0) {
      changed = true;
    }
  }
  if (changed) applyRates();
}

namespace {

// The lowest of the rates that are set (0: none is).
double lowest(std::initializer_list<double> rates, const std::map<std::string, double>& paces) {
  double low = 0.0;
  for (double r : rates) low = capped(low, r);
  for (const auto& [token, pace] : paces) low = capped(low, pace);
  return low;
}

// The caps this agent paces at by itself: a percentage needs the link's
// capacity, which only an emulated link knows here; of a real link hnowd
// resolves it against what it measured and sends it as a receive's pace
// (applied here, a percentage of a link paced at it would be measured as
// the link, and shrink at every survey).
double ownCap(const DirectionCap& cap, double emulated) {
  return emulated > 0 ? cap.bytesPerSecond(emulated) : cap.absoluteBytesPerSecond();
}

}  // namespace

// The slowest of: the emulated link, the caps this agent knows how to
// apply, and every live receive's pace (hnowd's share of a measured
// uplink, the caps resolved by hnowd, a send's --max-rate); unpaced when
// none is set.
void AgentRuntime::applyRates() {
  if (!receiver_) return;
  const double emulatedUp = bytesPerSecond(emulation_.uplinkMbps);
  const double emulatedDown = bytesPerSecond(emulation_.downlinkMbps);
  receiver_->setRates(lowest({emulatedUp, ownCap(caps_.up, emulatedUp)}, paces_),
                      lowest({emulatedDown, ownCap(caps_.down, emulatedDown)}, downPaces_));
}

void AgentRuntime::evaluateCaps() {
  caps_ = capsAt(config_.limits, localTimeOf(clock_.wallNow()));
  applyRates();
  const double up = bytesPerSecond(emulation_.uplinkMbps), down = bytesPerSecond(emulation_.downlinkMbps);
  if (!config_.limits.empty())
    spdlog::info("caps in force: uplink {}, downlink {}",
                 caps_.up.bytesPerSecond(up) > 0
                     ? fmt::format("{:.1f} Mbit/s ({})", caps_.up.bytesPerSecond(up) * 8 / 1e6,
                                   caps_.up.source(up, "max_uplink_mbps"))
                     : std::string("none"),
                 caps_.down.bytesPerSecond(down) > 0
                     ? fmt::format("{:.1f} Mbit/s ({})", caps_.down.bytesPerSecond(down) * 8 / 1e6,
                                   caps_.down.source(down, "max_downlink_mbps"))
                     : std::string("none"));
}

kj::Promise<void> AgentRuntime::capsSchedule(wire::AgentSession::Client session) {
  evaluateCaps();
  auto request = session.reportCapsRequest();
  transport::capsToWire(caps_, request.initCaps());
  // An hnowd that cannot take caps (an older one) plans without them; the
  // agent still paces by them, and its session goes on.
  auto reported = request.send().ignoreResult().catch_([](kj::Exception&& e) {
    if (e.getType() == kj::Exception::Type::DISCONNECTED) kj::throwFatalException(kj::mv(e));
    spdlog::warn("hnowd did not take this agent's bandwidth caps ({}); it plans without them",
                 e.getDescription().cStr());
  });
  auto next = secondsUntilNextChange(config_.limits, localTimeOf(clock_.wallNow()));
  if (!next) return reported.then([]() { return kj::Promise<void>(kj::NEVER_DONE); });
  // Half a second past the boundary: the new minute is surely the one read.
  return reported.then([this, session, wait = *next]() mutable {
    return timer_.afterDelay(wait * kj::SECONDS + 500 * kj::MILLISECONDS).then([this, session]() mutable {
      return capsSchedule(session);
    });
  });
}

void AgentRuntime::setEmulation(double uplinkMbps, double downlinkMbps, double computeFactor) {
  if (uplinkMbps > 0) emulation_.uplinkMbps = uplinkMbps;
  if (downlinkMbps > 0) emulation_.downlinkMbps = downlinkMbps;
  if (computeFactor > 0) emulation_.computeFactor = computeFactor;
  if (jobs_ && computeFactor > 0) jobs_->setComputeFactor(computeFactor);  // runs under way too
  applyRates();
  spdlog::info("emulating uplink {} Mbit/s, downlink {} Mbit/s, compute x{} (0 = not limited)",
               emulation_.uplinkMbps, emulation_.downlinkMbps, emulation_.computeFactor);
  requestProbe();
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
              spdlog::warn("hnowd at {}: {}", config_.coordinator, transport::describe(e));
            })
      .then([this]() {
        wakeProbe_.reset();
        forgetJobs();
        // A while for the same hnowd to come back (an overloaded one that let
        // heartbeats go unanswered): not for ever, a dead one holds disk here.
        keepingTransfers_ = timer_.afterDelay(toKj(kKeepTransfers)).then([this]() {
                                                  if (session_) return;
                                                  spdlog::warn("hnowd is not back after {:.0f} s: dropping {} transfer(s)",
                                                               hnow::seconds(kKeepTransfers), lastReports_.size());
                                                  forgetOperations();
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
            if (instance == 0 || instance != coordinatorInstance_) {
              if (!lastReports_.empty())
                spdlog::info("dropping {} transfer(s) an earlier hnowd started here", lastReports_.size());
              forgetOperations();
            } else {
              reportAgain();
            }
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
        const double up = bytesPerSecond(emulation_.uplinkMbps), down = bytesPerSecond(emulation_.downlinkMbps);
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
