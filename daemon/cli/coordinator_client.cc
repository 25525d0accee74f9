#include "cli/coordinator_client.h"
#include "cli/coordinator_state.h"

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
#include "transport/wire_bytes.h"

namespace hnow::cli {

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

Reply<CoordinatorClient::Sight> CoordinatorClient::sees(const std::string& path, const api::FileStamp& stamp,
                                                        const std::string& key) {
  auto& s = *state_;
  auto request = s.session->seesRequest();
  request.setPath(path);
  request.setSize(stamp.size);
  request.setMtimeNs(stamp.mtimeNs);
  request.setKey(key);
  auto out = request.initStamp();
  out.setSize(stamp.size);
  out.setMtimeNs(stamp.mtimeNs);
  out.setCtimeNs(stamp.ctimeNs);
  out.setInode(stamp.inode);
  return s.wait(request.send().then(
      [](auto response) { return Sight{response.getSame(), response.getWhy(), response.getKept()}; }));
}

Reply<CoordinatorClient::Sight> CoordinatorClient::seesTree(const std::string& path, const std::array<unsigned char, 32>& listing) {
  auto& s = *state_;
  auto request = s.session->seesTreeRequest();
  request.setPath(path);
  request.setListing(capnp::Data::Reader(listing.data(), listing.size()));
  return s.waitWhileAnswering(
      request.send().then([](auto response) { return Sight{response.getSame(), response.getWhy(), false}; }),
                              "hnow: hnowd is listing " + path + " to see whether it holds the same tree");
}

Reply<transport::data::HeldFiles> CoordinatorClient::keptHeld(const std::string& key, const std::string& index) {
  auto& s = *state_;
  auto request = s.session->keptHeldRequest();
  request.setKey(key);
  request.setIndex(transport::dataOf(index));
  return s.waitWhileAnswering(request.send().then([](auto response) { return transport::heldListsOf(response); }),
                              "hnow: hnowd is comparing the directory with its copy from the last upload");
}

Reply<CoordinatorClient::UploadGrant> CoordinatorClient::grantUpload(std::uint64_t size) {
  auto& s = *state_;
  auto request = s.session->uploadRequest();
  request.setSize(size);
  return s.wait(request.send().then([&s](auto response) {
    return UploadGrant{response.getId(), transport::stringOf(response.getToken()), transport::stringOf(response.getTicket()),
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

Reply<std::string> CoordinatorClient::cancel(std::uint64_t record) {
  auto& s = *state_;
  auto request = s.session->cancelRequest();
  request.setOperation(record);
  return s.wait(request.send().then([](auto response) { return std::string(response.getNote()); }));
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

Reply<std::string> CoordinatorClient::approveAgent(const std::string& name, const std::string& expectedKey) {
  auto& s = *state_;
  auto request = s.session->approveAgentRequest();
  request.setName(name);
  request.setExpectedKey(expectedKey);
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
      keys.push_back({k.getName(), k.getKey(), k.getState(), k.getHow(), k.getPeer(), k.getAgeS(), k.getExpiresInS()});
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

Reply<CoordinatorClient::RunStarted> CoordinatorClient::startRun(const api::RunRequest& r) {
  auto& s = *state_;
  auto request = s.session->runRequest();
  api::toWire(r, request.initRequest());
  return s.wait(request.send().then([](auto response) { return RunStarted{response.getOperation(), response.getRecord()}; }));
}

Reply<CoordinatorClient::Located> CoordinatorClient::locate(std::uint64_t record) {
  auto& s = *state_;
  auto request = s.session->locateRequest();
  request.setRecord(record);
  return s.wait(request.send().then([](auto response) {
    return Located{std::string(response.getKind().cStr()), response.getOperation(),
                   response.hasEntry() ? api::operationFromWire(response.getEntry()) : api::OperationSummary{}};
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

int reportDetached(const char* kind, std::uint64_t record, const char* state, const char* more) {
  const auto id = static_cast<unsigned long long>(record);
  std::printf("%llu\n", id);  // the id on stdout alone, for scripts; what to do with it on stderr
  std::fprintf(stderr, "hnow: %s %llu %s; `hnow ops wait %llu` follows it%s\n", kind, id, state, id, more);
  return 0;
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
