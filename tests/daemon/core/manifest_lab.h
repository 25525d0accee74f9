#pragma once
// ManifestService in memory: a manual clock, agents whose links answer at
// once and record the commands; no sockets.
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <optional>

#include "core/coordinator.h"
#include "core/manifest/manifest_service.h"
#include "daemon/core/memory_state_store.h"

namespace hnow::daemon::manifest_lab {

struct Commands {
  std::map<std::string, std::string> files;  // "agent:file" -> size as text; others are missing
  std::vector<std::string> pulls;            // "agent<-address"
  std::vector<std::pair<std::string, std::string>> receives;  // (agent, token)
  std::vector<std::string> releases;         // agent names
  std::vector<double> servePaces;            // each serveFile's uplink pace
  std::vector<AgentLink::ReceiveOrder> orders;  // every receive order
  bool refusing = false;                        // every receive order refused, as by a full disk
};

struct FakeAgent final : AgentLink {
  FakeAgent(std::string n, Commands* c) : name(std::move(n)), commands(c) {}
  void setEmulatedRates(const EmulatedRates&, Done done) override { done({}); }
  void probeNow() override {}
  void serveFile(const std::string&, const std::string& file, double uplinkPace, ServeDone done) override {
    commands->servePaces.push_back(uplinkPace);
    auto it = commands->files.find(name + ":" + file);
    if (it == commands->files.end()) return done(Error{"cannot open " + file + ": No such file or directory"});
    done(ServedFile{std::stoull(it->second), std::string(32, 'h')});
  }
  void receive(const ReceiveOrder& order, ReceiveDone done) override {
    commands->receives.emplace_back(name, order.token);
    commands->orders.push_back(order);
    if (commands->refusing) return done(Error{"no space left on device"});
    done("/srv/" + name + "/" + order.dest);
  }
  void pull(const std::string&, const std::string& parent) override { commands->pulls.push_back(name + "<-" + parent); }
  void release(const std::string&) override { commands->releases.push_back(name); }
  std::string name;
  Commands* commands;
};

struct RecordingObserver final : TransferObserver {
  void transferReport(const std::string& agent, const std::string&, const TransferReport&) override {
    reports.push_back(agent);
  }
  void agentGone(const std::string& agent) override { gone.push_back(agent); }
  std::vector<std::string> reports, gone;
};

struct Lab {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator{clock, RateTableOptions{}, store};
  Commands commands;
  RecordingObserver sends;  // stands for the SendService
  std::map<std::string, SessionId> sessions;

  Lab() {
    coordinator.addTransferObserver(&sends);
    for (const char* name : {"a1", "a2", "a3", "a4"}) {
      AgentRegistration r{name, "room", {"relay"}, std::string(name) + ":9000", {"/srv"}};
      SessionId s = coordinator.attach(r, std::make_unique<FakeAgent>(name, &commands));
      hnow::planner::NodeRates rates;
      rates.sendOverheadSeconds = rates.receiveOverheadSeconds = 1e-4;
      coordinator.reportRates(s, rates, {1e7, 1e7});  // emulated links: taken as told
      sessions[name] = s;
    }
    commands.files["a1:x.bin"] = "1000000";
    commands.files["a2:y.bin"] = "2000000";
  }
  // Distinct 32-byte tokens, as hnowd's fresh ones are.
  std::function<std::string()> tokens() {
    return [n = 0]() mutable { return std::string(31, 't') + static_cast<char>('a' + n++); };
  }
  ManifestRequest twoItems() const {
    return {{{"a1", "x.bin", "in/x.bin", {"all"}, "m.toml:1:1"}, {"a2", "y.bin", "in/y.bin", {"a3", "a4"}, "m.toml:6:1"}},
            "auto"};
  }
  // Done, with the SHA-256 the fake sources report (32 bytes 'h').
  TransferReport done() const {
    TransferReport r;
    r.state = TransferReport::State::kDone;
    for (int i = 0; i < 32; ++i) r.sha256 += "68";
    return r;
  }
};

// Starts a manifest whose agents answer at once: its id and first status, or why it was refused.
inline Result<std::pair<std::uint64_t, ManifestStatus>> started(ManifestService& service, const ManifestRequest& request) {
  std::optional<Result<std::pair<std::uint64_t, ManifestStatus>>> answer;
  service.start(request, [&](const Result<std::pair<std::uint64_t, ManifestStatus>>& a) { answer = a; });
  REQUIRE(answer);
  return *answer;
}

// The manifest's id and first status; the test stops if it was refused.
inline std::pair<std::uint64_t, ManifestStatus> startedOk(ManifestService& service, const ManifestRequest& request) {
  auto answer = started(service, request);
  REQUIRE_MESSAGE(answer.ok(), (answer.ok() ? "" : answer.error().message));
  return *answer;
}

}  // namespace hnow::daemon::manifest_lab
