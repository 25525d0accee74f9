#include "cli/coordinator_client.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <unistd.h>

#include <kj/async-io.h>
#include <kj/debug.h>

#include "api/coordinator_status_wire.h"
#include "api/manifest_wire.h"
#include "api/run_wire.h"
#include "api/send_request_wire.h"
#include "api/send_status_wire.h"
#include "transport/held_lists_wire.h"
#include "transport/auth.h"
#include "transport/gate_client.h"
#include "transport/link_wire.h"
#include "transport/rpc_connection.h"
#include "transport/tls_config.h"
#include "transport/wire_rates.h"
#include "transport/rpc_errors.h"

namespace hnow::cli {

namespace {
// hnowd answers in milliseconds when it has a core to itself; one beside
// hundreds of agents and a CPU hog on two cores, or one stopped a while
// (docs/reachability.md), took seconds, and its sends went on meanwhile:
// only half a minute of silence means it is wedged.
constexpr auto kDeadline = 30 * kj::SECONDS;

}  // namespace

struct CoordinatorClient::State {
  kj::AsyncIoContext io = kj::setupAsyncIo();
  std::optional<transport::KeyPair> key;
  std::unique_ptr<transport::TlsSetup> tls;  // outlives the connection it wraps
  kj::Own<transport::RpcConnection> connection;
  std::optional<wire::ClientSession::Client> session;
  std::string host;  // as the client reached hnowd (client.toml's coordinator), for its data plane

  // Waits for `promise` under the deadline; a kj failure becomes a message.
  template <class T>
  Reply<T> wait(kj::Promise<T> promise, kj::Duration deadline = kDeadline) {
    std::optional<T> value;
    KJ_IF_MAYBE(e, kj::runCatchingExceptions([&]() {
      value.emplace(io.provider->getTimer().timeoutAfter(deadline, kj::mv(promise)).wait(io.waitScope));
    })) {
      return Error{transport::describe(*e)};
    }
    return std::move(*value);
  }

  // Waits for the answer to a call that first reads whole files at hnowd
  // (hashing a file, walking and packing a tree, compressing): seconds to
  // minutes for a large one, so no fixed deadline. hnowd does that work off
  // its control thread and answers other calls meanwhile: a cheap call
  // every few seconds tells a busy hnowd from one that stopped answering.
  // `slow` is said once when the answer is not there after a moment.
  template <class T>
  Reply<T> waitWhileAnswering(kj::Promise<T> promise, const std::string& slow) {
    auto watch = watchAlive(slow, 0).then([]() -> T {
      kj::throwFatalException(transport::refusal("hnowd's watch ended without an answer"));
    });
    return wait(promise.exclusiveJoin(kj::mv(watch)), kMaxPreparing);
  }

 private:
  static constexpr auto kAliveEvery = 3 * kj::SECONDS;
  static constexpr auto kMaxPreparing = 60 * 60 * kj::SECONDS;
  kj::Promise<void> watchAlive(std::string slow, int round) {
    return io.provider->getTimer().afterDelay(kAliveEvery).then([this, slow, round]() mutable {
      if (round == 0 && !slow.empty()) std::fprintf(stderr, "%s\n", slow.c_str());
      auto ping = io.provider->getTimer().timeoutAfter(kDeadline, session->operationsRequest().send());
      return ping.then([this, slow = kj::mv(slow), round](auto) mutable { return watchAlive(kj::mv(slow), round + 1); },
                       [](kj::Exception&& e) -> kj::Promise<void> {
                         return transport::refusal("hnowd stopped answering while it prepared the send (" +
                                                   transport::describe(e) + ")");
                       });
    });
  }
};

CoordinatorClient::CoordinatorClient(std::unique_ptr<State> state) : state_(std::move(state)) {}
CoordinatorClient::~CoordinatorClient() = default;

Reply<std::unique_ptr<CoordinatorClient>> CoordinatorClient::connect(
    const conf::ClientConfig& config) {
  auto key = transport::loadKeyFile(config.keyFile);
  if (!key) return Error{"the operator key: " + key.error().message};
  auto coordinatorKey = transport::parseKeyText(config.coordinatorKey);
  if (!coordinatorKey) return Error{"coordinator_key: " + coordinatorKey.error().message};
  auto state = std::make_unique<State>();
  state->key.emplace(std::move(key).value());
  auto& s = *state;
  s.host = config.coordinator.substr(0, config.coordinator.rfind(':'));
  auto stream = s.wait(s.io.provider->getNetwork().parseAddress(config.coordinator).then(
      [](kj::Own<kj::NetworkAddress> address) { return address->connect().attach(kj::mv(address)); }));
  if (!stream) return Error{"cannot reach hnowd at " + config.coordinator + ": " + stream.error().message};
  if (config.tls.enabled()) {
    auto tls = transport::loadTlsIfConfigured(config.tls, transport::TlsSetup::Side::kClient,
                                              s.io.provider->getTimer());
    if (!tls) return Error{tls.error().message};
    s.tls = std::move(tls.value());
    stream = s.wait(s.tls->context().wrapClient(kj::mv(stream.value()), config.tls.serverName));
    if (!stream) return Error{"TLS with hnowd at " + config.coordinator + " failed: " + stream.error().message};
  }
  s.connection = kj::heap<transport::RpcConnection>(kj::mv(stream.value()));
  auto session = s.wait(transport::loginAsOperator(s.connection->peerBootstrap<wire::Gate>(), config.operatorName,
                                                   *s.key, coordinatorKey.value()));
  if (!session) return Error{"hnowd at " + config.coordinator + " refused the login: " + session.error().message};
  s.session.emplace(kj::mv(session.value()));
  return std::unique_ptr<CoordinatorClient>(new CoordinatorClient(std::move(state)));
}

Reply<bool> CoordinatorClient::measure(const std::vector<std::string>& nodes, double seconds) {
  auto& s = *state_;
  auto request = s.session->measureRequest();
  auto list = request.initNodes(static_cast<unsigned>(nodes.size()));
  for (unsigned i = 0; i < list.size(); ++i) list.set(i, nodes[i]);
  return s.wait(request.send().then([](auto) { return true; }),
                static_cast<std::int64_t>(seconds * 1000) * kj::MILLISECONDS);
}

Reply<api::CoordinatorStatus> CoordinatorClient::status() {
  auto& s = *state_;
  return s.wait(s.session->statusRequest().send().then(
      [](auto response) { return api::coordinatorStatusFromWire(response); }));
}

Reply<bool> CoordinatorClient::setEmulatedRates(const std::string& agent, const RateChange& change) {
  auto& s = *state_;
  auto request = s.session->setEmulatedRatesRequest();
  request.setName(agent);
  auto rates = request.initRates();
  rates.setUplinkMbps(change.uplinkMbps);
  rates.setDownlinkMbps(change.downlinkMbps);
  rates.setComputeFactor(change.computeFactor);
  return s.wait(request.send().then([](auto) { return true; }));
}

Reply<CoordinatorClient::Sight> CoordinatorClient::sees(const std::string& path, std::uint64_t size,
                                                        std::int64_t mtimeNs) {
  auto& s = *state_;
  auto request = s.session->seesRequest();
  request.setPath(path);
  request.setSize(size);
  request.setMtimeNs(mtimeNs);
  return s.wait(request.send().then([](auto response) { return Sight{response.getSame(), response.getWhy()}; }));
}

Reply<CoordinatorClient::Sight> CoordinatorClient::seesTree(const std::string& path, const std::array<unsigned char, 32>& listing) {
  auto& s = *state_;
  auto request = s.session->seesTreeRequest();
  request.setPath(path);
  request.setListing(capnp::Data::Reader(listing.data(), listing.size()));
  return s.waitWhileAnswering(
      request.send().then([](auto response) { return Sight{response.getSame(), response.getWhy()}; }),
                              "hnow: hnowd is listing " + path + " to see whether it holds the same tree");
}

Reply<transport::data::HeldFiles> CoordinatorClient::keptHeld(const std::string& key, const std::string& index) {
  auto& s = *state_;
  auto request = s.session->keptHeldRequest();
  request.setKey(key);
  request.setIndex(capnp::Data::Reader(reinterpret_cast<const kj::byte*>(index.data()), index.size()));
  return s.waitWhileAnswering(request.send().then([](auto response) { return transport::heldListsOf(response); }),
                              "hnow: hnowd is comparing the directory with its copy from the last upload");
}

Reply<CoordinatorClient::UploadGrant> CoordinatorClient::grantUpload(std::uint64_t size) {
  auto& s = *state_;
  auto request = s.session->uploadRequest();
  request.setSize(size);
  return s.wait(request.send().then([&s](auto response) {
    auto text = [](capnp::Data::Reader d) { return std::string(reinterpret_cast<const char*>(d.begin()), d.size()); };
    return UploadGrant{response.getId(), text(response.getToken()), text(response.getTicket()),
                       s.host + ":" + std::to_string(response.getDataPort())};
  }));
}

Reply<std::uint64_t> CoordinatorClient::awaitUpload(std::uint64_t id, const std::array<unsigned char, 32>& sha256) {
  auto& s = *state_;
  auto request = s.session->uploadedRequest();
  request.setId(id);
  request.setSha256(capnp::Data::Reader(sha256.data(), sha256.size()));
  return s.waitWhileAnswering(request.send().then([](auto response) { return response.getSize(); }), "");
}

Reply<bool> CoordinatorClient::forgetAgent(const std::string& agent) {
  auto& s = *state_;
  auto request = s.session->forgetAgentRequest();
  request.setName(agent);
  return s.wait(request.send().then([](auto) { return true; }));
}

Reply<std::pair<std::string, double>> CoordinatorClient::agentToken(const std::string& name, double ttlSeconds) {
  auto& s = *state_;
  auto request = s.session->agentTokenRequest();
  request.setName(name);
  request.setTtlS(ttlSeconds);
  return s.wait(request.send().then([](auto response) {
    return std::make_pair(std::string(response.getToken()), response.getExpiresInS());
  }));
}

Reply<unsigned> CoordinatorClient::revokeAgent(const std::string& name) {
  auto& s = *state_;
  auto request = s.session->revokeAgentRequest();
  request.setName(name);
  return s.wait(request.send().then([](auto response) { return static_cast<unsigned>(response.getClosed()); }));
}

Reply<std::string> CoordinatorClient::approveAgent(const std::string& name) {
  auto& s = *state_;
  auto request = s.session->approveAgentRequest();
  request.setName(name);
  return s.wait(request.send().then([](auto response) { return std::string(response.getKey()); }));
}

Reply<std::pair<std::string, std::string>> CoordinatorClient::acknowledgeAgent(const std::string& name) {
  auto& s = *state_;
  auto request = s.session->acknowledgeAgentRequest();
  request.setName(name);
  return s.wait(request.send().then([](auto response) {
    auto hosts = response.getHosts();
    return hosts.size() == 2 ? std::make_pair(std::string(hosts[0]), std::string(hosts[1]))
                             : std::make_pair(std::string("?"), std::string("?"));
  }));
}

Reply<std::vector<CoordinatorClient::AgentKey>> CoordinatorClient::agentKeys() {
  auto& s = *state_;
  return s.wait(s.session->agentKeysRequest().send().then([](auto response) {
    std::vector<AgentKey> keys;
    for (auto k : response.getKeys())
      keys.push_back({k.getName(), k.getKey(), k.getState(), k.getHow(), k.getPeer(), k.getAgeS()});
    return keys;
  }));
}

Reply<std::vector<api::OperationSummary>> CoordinatorClient::operations(std::uint32_t limit) {
  auto& s = *state_;
  auto request = s.session->operationsRequest();
  request.setLimit(limit);
  return s.wait(request.send().then([](auto response) { return api::operationsFromWire(response.getRecords()); }));
}

Reply<std::pair<std::uint64_t, api::SendStatus>> CoordinatorClient::startSend(const api::SendRequest& r) {
  auto& s = *state_;
  auto request = s.session->sendRequest();
  api::toWire(r, request.initRequest());
  return s.waitWhileAnswering(request.send().then([](auto response) {
    return std::make_pair(response.getOperation(), api::sendStatusFromWire(response.getReport()));
  }), "hnow: hnowd is reading " + r.path + " (hashing; a directory is walked and packed) before the send starts");
}

Reply<api::SendStatus> CoordinatorClient::sendProgress(std::uint64_t operation) {
  auto& s = *state_;
  auto request = s.session->sendProgressRequest();
  request.setOperation(operation);
  return s.wait(request.send().then([](auto response) { return api::sendStatusFromWire(response.getReport()); }));
}

// `hnow send --manifest`.
Reply<std::pair<std::uint64_t, api::ManifestStatus>> CoordinatorClient::startManifest(
    const api::ManifestRequest& r) {
  auto& s = *state_;
  auto request = s.session->sendManifestRequest();
  api::toWire(r, request.initRequest());
  return s.wait(request.send().then([](auto response) {
    return std::make_pair(response.getOperation(), api::manifestStatusFromWire(response.getReport()));
  }));
}

Reply<api::ManifestStatus> CoordinatorClient::manifestProgress(std::uint64_t operation) {
  auto& s = *state_;
  auto request = s.session->manifestProgressRequest();
  request.setOperation(operation);
  return s.wait(request.send().then([](auto response) { return api::manifestStatusFromWire(response.getReport()); }));
}

Reply<std::uint64_t> CoordinatorClient::startRun(const api::RunRequest& r) {
  auto& s = *state_;
  auto request = s.session->runRequest();
  api::toWire(r, request.initRequest());
  return s.wait(request.send().then([](auto response) { return response.getOperation(); }));
}

Reply<RunReportView> CoordinatorClient::runProgress(std::uint64_t operation) {
  auto& s = *state_;
  auto request = s.session->runProgressRequest();
  request.setOperation(operation);
  return s.wait(request.send().then([](auto response) { return api::runStatusFromWire(response.getReport()); }));
}

Reply<std::string> CoordinatorClient::runOutput(std::uint64_t operation, std::uint64_t offset) {
  auto& s = *state_;
  auto request = s.session->runOutputRequest();
  request.setOperation(operation);
  request.setOffset(offset);
  return s.wait(request.send().then([](auto response) {
    auto data = response.getData();
    return std::string(reinterpret_cast<const char*>(data.begin()), data.size());
  }));
}

std::unique_ptr<CoordinatorClient> connectOrReport(const std::string& configPath, int& exitCode) {
  auto config = conf::loadClientConfig(configPath);
  if (!config) {
    std::fprintf(stderr, "hnow: %s\n", config.error().text().c_str());
    exitCode = 2;
    return nullptr;
  }
  auto client = CoordinatorClient::connect(*config);
  if (!client) {
    std::fprintf(stderr, "hnow: %s\n", client.error().message.c_str());
    exitCode = 1;
    return nullptr;
  }
  return std::move(client.value());
}

int reportLostHnowd(const char* doing, const char* operation, const char* whatAgentsDrop, const char* retry,
                    const std::string& why) {
  std::fprintf(stderr,
               "hnow: lost hnowd while %s: %s\n"
               "hnow: the %s did not finish; agents drop %s. %s once hnowd is back "
               "(`hnow ops` lists it as interrupted)\n",
               doing, why.c_str(), operation, whatAgentsDrop, retry);
  return 1;
}

}  // namespace hnow::cli
