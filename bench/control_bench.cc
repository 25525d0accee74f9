// Targets: 1,000 agents reporting at 1 Hz cost hnowd under 10% of
// one core; 1,000 registrations take under 2 s.
//
// hnowd's real core (Coordinator, ControlServer, SqliteStateStore in a
// temp dir, the 0.25 s tick with a persist every second, as hnowd_main.cc)
// runs on its own thread and kj loop; 1,000 agents are RPC clients on a
// second thread, each with its own loopback TCP connection, doing the full
// HMAC login and then reportRates once a second (spread over the second).
// hnowd's CPU is getrusage(RUSAGE_THREAD) of its thread over the window.
//   control_bench [--agents N] [--seconds S] [--runs R]
#include <kj/async-io.h>
#include <kj/timer.h>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "daemon/core/coordinator.h"
#include "daemon/server/control_server.h"
#include "daemon/server/trust.h"
#include "daemon/state/sqlite_state_store.h"
#include "transport/gate_client.h"
#include "transport/identity.h"
#include "transport/rpc_connection.h"
#include "transport/wire_rates.h"

using namespace hnow;

namespace {

// hnowd's key and every agent's, bound as hnowd's config ([[agents]]) binds
// them, so logins measure the gate, not enrollment.
struct BenchKeys {
  transport::KeyPair hnowd = transport::KeyPair::generate();
  std::vector<transport::KeyPair> agents;
  explicit BenchKeys(int n) {
    for (int i = 0; i < n; ++i) agents.push_back(transport::KeyPair::generate());
  }
};

double threadCpuSeconds() {
  rusage r{};
  getrusage(RUSAGE_THREAD, &r);
  return r.ru_utime.tv_sec + r.ru_stime.tv_sec + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

class NoControl final : public wire::AgentControl::Server {};

// hnowd on its own thread; the bench thread talks to it via its executor.
class HnowdThread {
 public:
  HnowdThread(std::string dataDir, const BenchKeys& keys) : dataDir_(std::move(dataDir)), keys_(keys) {
    thread_ = std::thread([this]() { run(); });
    port_ = portPromise_.get_future().get();
  }
  ~HnowdThread() {
    executor_->executeSync([this]() { stop_->fulfill(); });
    thread_.join();
  }
  int port() const { return port_; }
  double cpuSeconds() { return executor_->executeSync([]() { return threadCpuSeconds(); }); }
  std::size_t connected() { return executor_->executeSync([this]() { return coordinator_->connectedCount(); }); }

 private:
  kj::Promise<void> tick(kj::Timer& timer, int n) {
    return timer.afterDelay(250 * kj::MILLISECONDS).then([this, &timer, n]() {
      coordinator_->tick();
      if ((n + 1) % 4 == 0) coordinator_->persist();
      return tick(timer, n + 1);
    });
  }
  void run() {
    pthread_setname_np(pthread_self(), "hnowd");  // for perf --comm
    auto io = kj::setupAsyncIo();
    hnow::SteadyClock clock;
    auto store = std::move(daemon::SqliteStateStore::open(dataDir_)).value();
    daemon::Coordinator coordinator(clock, daemon::RateTableOptions{}, *store);
    coordinator_ = &coordinator;
    daemon::AgentKeys agentKeys(*store);
    std::vector<std::pair<std::string, std::string>> bound;
    for (std::size_t i = 0; i < keys_.agents.size(); ++i)
      bound.emplace_back("agent-" + std::to_string(i), transport::keyText(keys_.agents[i].publicKey()));
    (void)agentKeys.load(bound);
    daemon::SessionCuts cuts;
    daemon::Trust trust;
    trust.hnowdKey = &keys_.hnowd;
    trust.agents = &agentKeys;
    trust.cuts = &cuts;
    trust.clock = &clock;
    daemon::ConnectionLimits limits;
    limits.maxUnauthenticated = 2000;  // every agent logs in at once here
    daemon::ControlServer server(coordinator, trust, io.provider->getTimer(), limits);
    auto receiver = io.provider->getNetwork().parseAddress("127.0.0.1:0").wait(io.waitScope)->listen();
    auto listening = server.listen(*receiver).eagerlyEvaluate(nullptr);
    auto ticking = tick(io.provider->getTimer(), 0).eagerlyEvaluate(nullptr);
    auto paf = kj::newPromiseAndFulfiller<void>();
    stop_ = kj::mv(paf.fulfiller);
    executor_ = &kj::getCurrentThreadExecutor();
    portPromise_.set_value(static_cast<int>(receiver->getPort()));
    paf.promise.wait(io.waitScope);
  }

  std::string dataDir_;
  const BenchKeys& keys_;
  std::thread thread_;
  std::promise<int> portPromise_;
  int port_ = 0;
  const kj::Executor* executor_ = nullptr;
  kj::Own<kj::PromiseFulfiller<void>> stop_;
  daemon::Coordinator* coordinator_ = nullptr;
};

struct Agent {
  kj::Own<transport::RpcConnection> connection;
  kj::Maybe<wire::AgentSession::Client> session;
};

kj::Promise<void> login(Agent& agent, const BenchKeys& keys, int i) {
  auto gate = agent.connection->peerBootstrap<wire::Gate>();
  const std::string name = "agent-" + std::to_string(i);
  const transport::KeyPair& key = keys.agents[i];
  return transport::openGate(gate, keys.hnowd.publicKey()).then([&agent, &key, gate, name](transport::GateOpening o) mutable {
    auto request = gate.loginAgentKeyRequest();
    auto credential = request.initCredential();
    transport::Bytes publicKey(key.publicKey().begin(), key.publicKey().end());
    credential.setKey(transport::dataOf(publicKey));
    credential.setSignature(transport::dataOf(transport::signLogin(key, transport::Role::kAgent, name, o.nonce)));
    request.initRegistration().setName(name);
    request.getRegistration().setSite("bench");
    request.setControl(kj::heap<NoControl>());
    return request.send().then([&agent](auto response) { agent.session = response.getSession(); });
  });
}

kj::Promise<void> reportEvery(kj::Timer& timer, wire::AgentSession::Client session, kj::TimePoint at,
                              kj::TimePoint until, std::size_t& reports, int i) {
  if (at >= until) return kj::READY_NOW;
  return timer.atTime(at).then([&timer, session, at, until, &reports, i]() mutable {
    auto request = session.reportRatesRequest();
    planner::NodeRates rates;
    rates.uplinkBytesPerSecond = 1e6 * (1 + i % 7);
    rates.downlinkBytesPerSecond = 2e6;
    rates.sendOverheadSeconds = 1e-5;
    rates.computeSecondsPerUnit = 1e-3;
    transport::ratesToWire(rates, request.initRates());
    return request.send().then([&reports](auto) { ++reports; }).then([&timer, session, at, until, &reports, i]() mutable {
      return reportEvery(timer, session, at + 1 * kj::SECONDS, until, reports, i);
    });
  });
}

struct RunResult {
  double registrationSeconds;
  double hnowdCpuFraction;
  double agentsCpuFraction;
  std::size_t reports;
};

RunResult runOnce(int agents, int seconds) {
  auto dir = std::filesystem::temp_directory_path() / ("hnow-control-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  RunResult result{};
  {
    BenchKeys keys(agents);
    HnowdThread hnowd(dir.string(), keys);
    auto io = kj::setupAsyncIo();
    auto& timer = io.provider->getTimer();
    auto address = io.provider->getNetwork().parseAddress(kj::str("127.0.0.1:", hnowd.port())).wait(io.waitScope);
    std::vector<Agent> fleet(agents);

    auto start = std::chrono::steady_clock::now();
    kj::Vector<kj::Promise<void>> logins;
    for (int i = 0; i < agents; ++i) {
      logins.add(address->connect().then([&fleet, &keys, i](kj::Own<kj::AsyncIoStream> stream) {
        fleet[i].connection = kj::heap<transport::RpcConnection>(kj::mv(stream));
        return login(fleet[i], keys, i);
      }));
    }
    kj::joinPromises(logins.releaseAsArray()).wait(io.waitScope);
    result.registrationSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (hnowd.connected() != static_cast<std::size_t>(agents)) std::fprintf(stderr, "not all registered\n");

    // Reporting at 1 Hz, agent i at offset i/N of each second.
    const kj::TimePoint begin = timer.now() + 100 * kj::MILLISECONDS;
    const kj::TimePoint until = begin + seconds * kj::SECONDS;
    std::size_t reports = 0;
    kj::Vector<kj::Promise<void>> loops;
    for (int i = 0; i < agents; ++i) {
      KJ_IF_MAYBE(session, fleet[i].session) {
        loops.add(reportEvery(timer, *session, begin + (i * 1000 / agents) * kj::MILLISECONDS, until, reports, i));
      }
    }
    timer.atTime(begin).wait(io.waitScope);
    double hnowdBefore = hnowd.cpuSeconds(), agentsBefore = threadCpuSeconds();
    auto wallBefore = std::chrono::steady_clock::now();
    kj::joinPromises(loops.releaseAsArray()).wait(io.waitScope);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallBefore).count();
    result.hnowdCpuFraction = (hnowd.cpuSeconds() - hnowdBefore) / wall;
    result.agentsCpuFraction = (threadCpuSeconds() - agentsBefore) / wall;
    result.reports = reports;
    fleet.clear();
  }
  std::filesystem::remove_all(dir);
  return result;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  int agents = 1000, seconds = 10, runs = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--agents")) agents = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seconds")) seconds = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--runs")) runs = std::atoi(argv[i + 1]);
  }
  // hnowd logs every registration at info; here that is 1,000 lines a run.
  spdlog::set_level(spdlog::level::warn);
  // Both ends of every connection live in this process.
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = files.rlim_max;
  setrlimit(RLIMIT_NOFILE, &files);

  std::vector<double> registration, hnowdCpu, agentsCpu;
  std::printf("run  registration_s  hnowd_cpu_%%  agents_cpu_%%  reports\n");
  for (int r = 0; r < runs; ++r) {
    RunResult result = runOnce(agents, seconds);
    registration.push_back(result.registrationSeconds);
    hnowdCpu.push_back(result.hnowdCpuFraction * 100);
    agentsCpu.push_back(result.agentsCpuFraction * 100);
    std::printf("%3d  %14.3f  %11.2f  %12.2f  %7zu\n", r + 1, result.registrationSeconds,
                result.hnowdCpuFraction * 100, result.agentsCpuFraction * 100, result.reports);
  }
  std::printf("median (%d agents, %d s at 1 Hz, %d runs): registration %.3f s (target < 2 s), "
              "hnowd CPU %.2f%% of one core (target < 10%%), agents' thread %.2f%%\n",
              agents, seconds, runs, median(registration), median(hnowdCpu), median(agentsCpu));
  return 0;
}
