// hnowd's RPC handlers as logged-in peers reach them: agents and a client
// log in through the real Gate (in-memory Cap'n Proto connections, reader
// limits as configured) and the fuzz input is a sequence of their calls
// with any values a peer can put in the request structs: AgentSession
// (heartbeat with counters, rates, transfer reports) and ClientSession (status,
// set-rate, operations, send, send --manifest, run and their progress),
// with the manual clock advanced between calls. The agents' own side
// (AgentControl) answers hnowd's commands at once and runs no command.
//
// Work per input is bounded: at most kMaxCalls calls, small payloads, and
// files only inside a scratch directory (hnowd opens a send's or a job's
// input on its own machine: a path from the input is taken relative to the
// scratch directory, and only without '..'; outputs go under out/ there).
#include <fuzzer/FuzzedDataProvider.h>
#include <kj/async.h>
#include <kj/debug.h>
#include <kj/timer.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "daemon/core/memory_state_store.h"
#include "daemon/server/test_trust.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/quiet_logs.h"
#include "core/jobs/job_service.h"
#include "core/manifest/manifest_service.h"
#include "core/send/send_service.h"
#include "server/data_source_plane.h"
#include "server/gate_server.h"
#include "server/posix_run_files.h"
#include "transport/data/frame.h"
#include "transport/gate_client.h"
#include "transport/rpc_connection.h"

namespace {

using namespace hnow;
namespace fs = std::filesystem;

constexpr int kMaxCalls = 48;
constexpr std::size_t kMaxText = 64;
std::string scratch;  // the working directory of this process, set once

struct Ignore final : kj::TaskSet::ErrorHandler {
  void taskFailed(kj::Exception&&) override {}
};

struct Lab;

// An agent's AgentControl: accepts every order, serves every file (1000
// bytes), runs nothing. Tokens it is given are kept so that transfer
// reports can name real operations.
class FuzzAgentControl final : public wire::AgentControl::Server {
 public:
  FuzzAgentControl(std::vector<std::string>& tokens, std::string name) : tokens_(tokens), name_(std::move(name)) {}

 protected:
  kj::Promise<void> setEmulatedRates(SetEmulatedRatesContext) override { return kj::READY_NOW; }
  kj::Promise<void> probeNow(ProbeNowContext) override { return kj::READY_NOW; }
  kj::Promise<void> receive(ReceiveContext context) override {
    auto order = context.getParams().getOrder();
    keep(order.getToken());
    context.getResults().setPath(kj::str("/srv/", name_.c_str(), "/", order.getDest()));
    return kj::READY_NOW;
  }
  kj::Promise<void> pull(PullContext) override { return kj::READY_NOW; }
  kj::Promise<void> release(ReleaseContext) override { return kj::READY_NOW; }
  kj::Promise<void> serveFile(ServeFileContext context) override {
    keep(context.getParams().getToken());
    context.getResults().setSize(1000);
    kj::byte sha[32];
    std::memset(sha, 'h', sizeof sha);
    context.getResults().setSha256(kj::arrayPtr(sha, sizeof sha));
    return kj::READY_NOW;
  }
  kj::Promise<void> fetchJobFile(FetchJobFileContext) override { return kj::READY_NOW; }
  kj::Promise<void> runJobTask(RunJobTaskContext) override {
    KJ_FAIL_REQUIRE("this agent runs no commands");
  }
  kj::Promise<void> dropJobFiles(DropJobFilesContext) override { return kj::READY_NOW; }

 private:
  void keep(capnp::Data::Reader token) {
    if (tokens_.size() < 64) tokens_.emplace_back(reinterpret_cast<const char*>(token.begin()), token.size());
  }
  std::vector<std::string>& tokens_;
  std::string name_;
};

struct Link {
  kj::Own<transport::RpcConnection> server;
  kj::Own<transport::RpcConnection> peer;
  wire::Gate::Client gate = nullptr;
};

struct Agent {
  Link link;
  wire::AgentSession::Client session = nullptr;
};

struct Lab {
  kj::EventLoop loop;
  kj::WaitScope ws{loop};
  kj::TimerImpl timer{kj::origin<kj::TimePoint>()};
  hnow::ManualClock clock;
  daemon::MemoryStateStore store;
  daemon::Coordinator coordinator{clock, daemon::RateTableOptions{}, store};
  transport::Secret secret{"0123456789abcdef0123456789abcdef"};
  testing::TestTrust keys{clock};
  Ignore ignore;
  transport::data::DataPlane plane{clock, [](transport::data::TransferEvent) {}};
  daemon::DataSourcePlane source{plane, scratch + "/trees"};
  daemon::PosixRunFiles runFiles{scratch + "/work", daemon::LiveRoots({scratch})};  // runs confined to the scratch directory, as [run] roots
  std::function<std::string()> newToken = [] { return std::string(32, 'k'); };
  daemon::SendService sends{coordinator, source, "hnowd:1", clock, transport::data::kChunkBytes, 0, newToken};
  daemon::ManifestService manifests{coordinator, clock, transport::data::kChunkBytes, newToken};
  daemon::JobService jobs{coordinator, source, runFiles, "hnowd:1", clock,
                          [](std::function<void()> f) { kj::evalLater(kj::mv(f)).detach([](kj::Exception&&) {}); },
                          newToken};
  kj::TaskSet tasks{ignore};
  std::vector<std::string> tokens;
  std::vector<std::string> enrollTokens;  // made by `agentToken` calls
  std::vector<std::uint64_t> operations{1};
  std::vector<Agent> agents;
  Link clientLink;
  wire::ClientSession::Client client = nullptr;

  Link connect() {
    auto pipe = kj::newTwoWayPipe();
    keys.trust.sharedSecret = &secret;  // agents of any name may enroll, as while a lab migrates
    auto gate = kj::heap<daemon::GateServer>(coordinator, keys.trust, tasks, "fuzz-peer", nullptr,
                                             daemon::Services{&sends, &manifests, &jobs, nullptr, nullptr, "",
                                                              daemon::LiveRoots({scratch})});
    Link link;
    link.server = kj::heap<transport::RpcConnection>(kj::mv(pipe.ends[0]), kj::mv(gate));
    link.peer = kj::heap<transport::RpcConnection>(kj::mv(pipe.ends[1]));
    link.gate = link.peer->peerBootstrap<wire::Gate>();
    return link;
  }

  // Runs `call` until it settles or nothing more can happen; a pending call is dropped.
  template <class T>
  kj::Maybe<T> settle(kj::Promise<T> call) {
    auto settled = call.then([](T v) -> kj::Maybe<T> { return kj::mv(v); },
                             [](kj::Exception&&) -> kj::Maybe<T> { return nullptr; });
    if (!settled.poll(ws)) return nullptr;
    return settled.wait(ws);
  }
  // The same for a call whose answer does not matter.
  void settle(kj::Promise<void> call, bool) {
    auto settled = call.catch_([](kj::Exception&&) {});
    if (settled.poll(ws)) settled.wait(ws);
  }
};

std::string text(FuzzedDataProvider& in) { return in.ConsumeRandomLengthString(kMaxText); }

// A name from a small set, so that calls meet each other's agents and sites.
std::string name(FuzzedDataProvider& in) {
  static const char* const names[] = {"a1", "a2", "a3", "all", "room", "hnowd", ""};
  if (in.ConsumeBool()) return names[in.ConsumeIntegralInRange<int>(0, 6)];
  return text(in);
}

double anyDouble(FuzzedDataProvider& in) {
  if (in.ConsumeBool()) return in.ConsumeIntegralInRange<int>(0, 1000) * 1e5;  // plausible rates
  std::uint64_t bits = in.ConsumeIntegral<std::uint64_t>();
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;  // NaN, infinities, negatives, denormals
}

// A path hnowd may open on its own machine: inside the scratch directory.
std::string confined(const std::string& path) {
  if (path.empty() || path[0] == '/' || path.find("..") != std::string::npos) return scratch + "/no-such-file";
  return scratch + "/" + path;
}

std::uint64_t operation(FuzzedDataProvider& in, const Lab& lab) {
  if (in.ConsumeBool()) return in.ConsumeIntegral<std::uint64_t>();
  return lab.operations[in.ConsumeIntegralInRange<std::size_t>(0, lab.operations.size() - 1)];
}

template <class List>
void fillTexts(FuzzedDataProvider& in, List list) {
  for (unsigned i = 0; i < list.size(); ++i) list.set(i, name(in));
}

void loginAgent(FuzzedDataProvider& in, Lab& lab) {
  if (lab.agents.size() >= 6) return;
  Agent agent;
  agent.link = lab.connect();
  auto opening = lab.settle(transport::openGate(agent.link.gate, lab.keys.hnowdKey.publicKey()));
  KJ_IF_MAYBE(o, opening) {
    const std::string agentName = name(in);
    auto request = agent.link.gate.loginAgentKeyRequest();
    // The enrollment messages: a fresh key proven with the shared secret, with
    // a token an operator made (or one altered), or credential bytes as they come.
    transport::KeyPair key = transport::KeyPair::generate();
    lab.keys.signAgent(request, agentName, key, o->nonce);
    auto credential = request.getCredential();
    const int how = in.ConsumeIntegralInRange<int>(0, 3);
    if (how == 0) {
      credential.setSecretProof(
          transport::dataOf(transport::makeProof(lab.secret, transport::Role::kAgent, agentName, o->nonce)));
    } else if (how == 1 && !lab.enrollTokens.empty()) {
      auto token = transport::parseTokenText(
          lab.enrollTokens[in.ConsumeIntegralInRange<std::size_t>(0, lab.enrollTokens.size() - 1)]);
      if (token) {
        transport::EnrollToken t = token.value();
        if (in.ConsumeBool()) t.secret[in.ConsumeIntegralInRange<std::size_t>(0, 31)] ^= 1;
        transport::Bytes id(t.id.begin(), t.id.end());
        credential.setTokenId(transport::dataOf(id));
        credential.setTokenProof(transport::dataOf(transport::enrollProof(t.secret, agentName, key.publicKey(), o->nonce)));
      }
    } else if (how == 2) {
      auto bytes = [&in](std::size_t most) {
        std::string b = in.ConsumeBytesAsString(in.ConsumeIntegralInRange<std::size_t>(0, most));
        return transport::Bytes(b.begin(), b.end());
      };
      transport::Bytes k = bytes(40), sig = bytes(80), id = bytes(12), proof = bytes(40);
      if (in.ConsumeBool()) credential.setKey(transport::dataOf(k));
      if (in.ConsumeBool()) credential.setSignature(transport::dataOf(sig));
      credential.setTokenId(transport::dataOf(id));
      credential.setTokenProof(transport::dataOf(proof));
    }  // else: a key nothing enrolls, which waits for approval
    auto r = request.getRegistration();
    r.setSite(name(in));
    r.setDataAddress(in.ConsumeBool() ? agentName + ":9000" : text(in));
    auto capabilities = r.initCapabilities(in.ConsumeIntegralInRange<unsigned>(0, 2));
    for (unsigned i = 0; i < capabilities.size(); ++i)
      capabilities.set(i, in.ConsumeBool() ? (in.ConsumeBool() ? "jobs" : "relay") : text(in));
    fillTexts(in, r.initRoots(in.ConsumeIntegralInRange<unsigned>(0, 3)));
    request.setControl(kj::heap<FuzzAgentControl>(lab.tokens, agentName));
    KJ_IF_MAYBE(response, lab.settle(request.send())) {
      agent.session = response->getSession();
      lab.agents.push_back(kj::mv(agent));
    }
  }
}

void agentCall(FuzzedDataProvider& in, Lab& lab, int method) {
  if (lab.agents.empty()) return;
  auto& session = lab.agents[in.ConsumeIntegralInRange<std::size_t>(0, lab.agents.size() - 1)].session;
  switch (method) {
    case 0: lab.settle(session.heartbeatRequest().send().ignoreResult(), true); break;
    case 1: {
      auto request = session.reportRatesRequest();
      auto rates = request.initRates();
      rates.setUplinkBytesPerS(anyDouble(in));
      rates.setDownlinkBytesPerS(anyDouble(in));
      rates.setSendOverheadS(anyDouble(in));
      rates.setRecvOverheadS(anyDouble(in));
      rates.setComputeSPerUnit(anyDouble(in));
      if (in.ConsumeBool()) {
        auto emulated = request.initEmulated();
        emulated.setUplinkBytesPerS(anyDouble(in));
        emulated.setDownlinkBytesPerS(anyDouble(in));
      }
      lab.settle(request.send().ignoreResult(), true);
      break;
    }
    case 2:
    case 3: {
      // Counters as a peer may send them: any values, going back, NaN times.
      auto request = session.heartbeatRequest();
      auto c = request.initCounters();
      c.setAtS(anyDouble(in));
      c.setDataSent(in.ConsumeIntegral<std::uint64_t>());
      c.setDataReceived(in.ConsumeIntegral<std::uint64_t>());
      c.setTcpSent(in.ConsumeIntegral<std::uint64_t>());
      c.setTcpReceived(in.ConsumeIntegral<std::uint64_t>());
      c.setNicKnown(in.ConsumeBool());
      c.setNicSent(in.ConsumeIntegral<std::uint64_t>());
      c.setNicReceived(in.ConsumeIntegral<std::uint64_t>());
      c.setNicSentPackets(in.ConsumeIntegral<std::uint64_t>());
      c.setNicReceivedPackets(in.ConsumeIntegral<std::uint64_t>());
      lab.settle(request.send().ignoreResult(), true);
      break;
    }
    default: {
      auto request = session.reportTransferRequest();
      auto report = request.initReport();
      std::string token = lab.tokens.empty() || in.ConsumeBool()
                              ? in.ConsumeBytesAsString(in.ConsumeIntegralInRange<std::size_t>(0, 40))
                              : lab.tokens[in.ConsumeIntegralInRange<std::size_t>(0, lab.tokens.size() - 1)];
      report.setToken(kj::arrayPtr(reinterpret_cast<const kj::byte*>(token.data()), token.size()));
      report.setState(static_cast<wire::TransferState>(in.ConsumeIntegralInRange<std::uint16_t>(0, 5)));
      report.setBytes(in.ConsumeBool() ? in.ConsumeIntegralInRange<std::uint64_t>(0, 2000) : in.ConsumeIntegral<std::uint64_t>());
      report.setCorruptChunks(in.ConsumeIntegral<std::uint64_t>());
      report.setMessage(text(in));
      report.setPath(text(in));
      // The digest the fuzz agents' files have (32 bytes 'h', in hex), or anything.
      std::string sha;
      for (int i = 0; i < 32; ++i) sha += "68";
      report.setSha256(in.ConsumeBool() ? sha : text(in));
      lab.settle(request.send().ignoreResult(), true);
      break;
    }
  }
}

// The operator's agent-key commands, with names and times as they come.
void keyCall(FuzzedDataProvider& in, Lab& lab) {
  auto& client = lab.client;
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: {
      auto request = client.agentTokenRequest();
      request.setName(name(in));
      request.setTtlS(in.ConsumeBool() ? 3600.0 : anyDouble(in));
      KJ_IF_MAYBE(made, lab.settle(request.send())) {
        if (lab.enrollTokens.size() < 8) lab.enrollTokens.push_back(made->getToken());
      }
      break;
    }
    case 1: {
      auto request = client.revokeAgentRequest();
      request.setName(name(in));
      lab.settle(request.send().ignoreResult(), true);
      break;
    }
    case 2: {
      auto request = client.approveAgentRequest();
      request.setName(name(in));
      lab.settle(request.send().ignoreResult(), true);
      break;
    }
    default: lab.settle(client.agentKeysRequest().send().ignoreResult(), true);
  }
}

void clientCall(FuzzedDataProvider& in, Lab& lab, int method) {
  auto& client = lab.client;
  switch (method) {
    case 0: lab.settle(client.statusRequest().send().ignoreResult(), true); break;
    case 1: {
      auto request = client.setEmulatedRatesRequest();
      request.setName(name(in));
      auto rates = request.initRates();
      rates.setUplinkMbps(anyDouble(in));
      rates.setDownlinkMbps(anyDouble(in));
      rates.setComputeFactor(anyDouble(in));
      lab.settle(request.send().ignoreResult(), true);
      break;
    }
    case 2: {
      auto request = client.operationsRequest();
      request.setLimit(in.ConsumeIntegral<std::uint32_t>());
      lab.settle(request.send().ignoreResult(), true);
      break;
    }
    case 3: {
      auto request = client.sendRequest();
      auto r = request.initRequest();
      r.setPath(confined(in.ConsumeBool() ? "file.bin" : text(in)));
      r.setDest(in.ConsumeBool() ? "in/file.bin" : text(in));
      fillTexts(in, r.initTo(in.ConsumeIntegralInRange<unsigned>(0, 3)));
      static const char* const algos[] = {"auto", "fnf", "optimal", "lcf", "binomial", "chain", "flat", ""};
      r.setAlgo(in.ConsumeBool() ? algos[in.ConsumeIntegralInRange<int>(0, 7)] : text(in));
      r.setNoReplan(in.ConsumeBool());
      KJ_IF_MAYBE(response, lab.settle(request.send())) lab.operations.push_back(response->getOperation());
      break;
    }
    case 4: {
      auto request = client.followSendRequest();
      request.setOperation(operation(in, lab));
      lab.settle(request.send().ignoreResult(), true);
      break;
    }
    case 5: {
      auto request = client.sendManifestRequest();
      auto r = request.initRequest();
      auto items = r.initItems(in.ConsumeIntegralInRange<unsigned>(0, 4));
      for (auto item : items) {
        item.setSource(name(in));
        item.setFile(in.ConsumeBool() ? "x.bin" : text(in));
        item.setDest(in.ConsumeBool() ? "in/x.bin" : text(in));
        fillTexts(in, item.initTo(in.ConsumeIntegralInRange<unsigned>(0, 3)));
        item.setWhere(text(in));
      }
      static const char* const algos[] = {"auto", "fef", "ecf", "wr", "eaf", "rr", "rrs", "ecfp",
                                          "wrp", "eafp", "rrp", "rrsp", "independent", "residual", ""};
      r.setAlgo(in.ConsumeBool() ? algos[in.ConsumeIntegralInRange<int>(0, 14)] : text(in));
      r.setNoReplan(in.ConsumeBool());
      KJ_IF_MAYBE(response, lab.settle(request.send())) lab.operations.push_back(response->getOperation());
      break;
    }
    case 6: {
      auto request = client.followManifestRequest();
      request.setOperation(operation(in, lab));
      lab.settle(request.send().ignoreResult(), true);
      break;
    }
    case 7: {
      auto request = client.runRequest();
      auto r = request.initRequest();
      r.setInput(confined(in.ConsumeBool() ? "input.txt" : text(in)));
      static const char* const splits[] = {"lines", "bytes:3", "records:,", "bytes:0", ""};
      r.setSplit(in.ConsumeBool() ? splits[in.ConsumeIntegralInRange<int>(0, 4)] : text(in));
      fillTexts(in, r.initArgv(in.ConsumeIntegralInRange<unsigned>(0, 3)));
      r.setCommand(text(in));
      fillTexts(in, r.initTo(in.ConsumeIntegralInRange<unsigned>(0, 3)));
      static const char* const orders[] = {"fifo", "lifo", "auto", ""};
      r.setOrder(in.ConsumeBool() ? orders[in.ConsumeIntegralInRange<int>(0, 3)] : text(in));
      fillTexts(in, r.initReduceArgv(in.ConsumeIntegralInRange<unsigned>(0, 2)));
      if (in.ConsumeBool()) r.setOutput(confined("out/" + text(in)));
      r.setSlack(anyDouble(in));
      static const char* const strategies[] = {"plan", "equal", "self", ""};
      r.setStrategy(in.ConsumeBool() ? strategies[in.ConsumeIntegralInRange<int>(0, 3)] : text(in));
      r.setBlockBytes(in.ConsumeBool() ? in.ConsumeIntegralInRange<std::uint64_t>(0, 64) : in.ConsumeIntegral<std::uint64_t>());
      r.setReplicas(in.ConsumeIntegral<std::uint8_t>());
      r.setRounds(in.ConsumeIntegral<std::uint8_t>());
      KJ_IF_MAYBE(response, lab.settle(request.send())) lab.operations.push_back(response->getOperation());
      break;
    }
    case 8: {
      auto request = client.followRunRequest();
      request.setOperation(operation(in, lab));
      lab.settle(request.send().ignoreResult(), true);
      break;
    }
    default: {
      auto request = client.grantOutputRequest();
      request.setOperation(operation(in, lab));
      lab.settle(request.send().ignoreResult(), true);
      break;
    }
  }
}

void writeFile(const std::string& path, const std::string& content) { std::ofstream(path) << content; }

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  hnow::fuzz::quietLogs();
  char dir[] = "/tmp/hnow-session-fuzz-XXXXXX";
  if (!mkdtemp(dir)) std::abort();
  scratch = dir;
  writeFile(scratch + "/file.bin", std::string(1000, 'f'));
  writeFile(scratch + "/input.txt", "one\ntwo\nthree\nfour\nfive\nsix\n");
  // The scratch directory goes when the process ends normally.
  std::atexit([] {
    std::error_code ignored;
    fs::remove_all(scratch, ignored);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  fs::create_directory(scratch + "/out");
  {
    Lab lab;
    lab.clientLink = lab.connect();
    KJ_IF_MAYBE(client, lab.settle(lab.keys.loginOperator(lab.clientLink.gate))) {
      lab.client = kj::mv(*client);
    } else {
      HNOW_FUZZ_CHECK(false, "an operator with its listed key logs in");
    }
    for (int calls = 0; calls < kMaxCalls && in.remaining_bytes() > 0; ++calls) {
      const int what = in.ConsumeIntegralInRange<int>(0, 19);
      if (what == 0) loginAgent(in, lab);
      else if (what <= 5) agentCall(in, lab, what - 1);
      else if (what <= 15) clientCall(in, lab, what - 6);
      else if (what == 19) keyCall(in, lab);
      else if (what == 16) {
        // Time passes: hnowd's tick (lost agents, drift, jobs) and its timers.
        const auto step = std::chrono::milliseconds(in.ConsumeIntegralInRange<int>(0, 5000));
        lab.clock.advance(step);
        lab.timer.advanceTo(lab.timer.now() + step.count() * kj::MILLISECONDS);
        lab.coordinator.tick();
        lab.jobs.tick();
        lab.ws.poll();
      } else if (what == 17 && !lab.agents.empty()) {
        // An agent's connection ends.
        lab.agents.erase(lab.agents.begin() + in.ConsumeIntegralInRange<std::size_t>(0, lab.agents.size() - 1));
        lab.ws.poll();
      } else {
        lab.ws.poll();
      }
    }
    // Peers go first, then what they used.
    lab.agents.clear();
    lab.client = nullptr;
    lab.clientLink = Link{};
    lab.ws.poll();
  }
  std::error_code ignored;
  fs::remove_all(scratch + "/work", ignored);
  fs::remove_all(scratch + "/out", ignored);
  return 0;
}
