// SendService in memory: a manual clock, a source plane that records what
// hnowd serves, agents whose links answer at once; no sockets, no files.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <map>
#include <set>

#include "base/hex.h"
#include "core/coordinator.h"
#include "daemon/core/memory_state_store.h"
#include "core/send_service.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;

namespace {

struct Agents {
  std::set<std::string> refusing;                              // agents that refuse the destination
  std::vector<std::pair<std::string, std::string>> receives;  // (agent, token)
  std::vector<std::string> pulls;                              // "agent<-address"
  std::vector<std::string> releases;                           // agent names
};

struct FakeAgent final : AgentLink {
  FakeAgent(std::string n, Agents* a) : name(std::move(n)), agents(a) {}
  void setEmulatedRates(const EmulatedRates&, Done done) override { done({}); }
  void probeNow() override {}
  void receive(const ReceiveOrder& order, ReceiveDone done) override {
    agents->receives.emplace_back(name, order.token);
    if (agents->refusing.count(name)) return done(Error{"'/etc/passwd' is outside this agent's roots"});
    done("/srv/" + name + "/" + order.dest);
  }
  void pull(const std::string&, const std::string& parent) override { agents->pulls.push_back(name + "<-" + parent); }
  void release(const std::string&) override { agents->releases.push_back(name); }
  std::string name;
  Agents* agents;
};

// hnowd's files by path (their sizes); what it served, released and paced at.
struct RecordingPlane final : SourcePlane {
  Result<SourceFile> serveFile(const std::string& token, const std::string& path) override {
    auto it = files.find(path);
    if (it == files.end()) return Error{"cannot open " + path + ": No such file or directory"};
    served.insert(token);
    SourceFile f;
    f.size = it->second;
    f.sha256 = std::string(32, 'h');
    for (int i = 0; i < 32; ++i) f.sha256Hex += "68";
    return f;
  }
  Result<std::uint64_t> sizeOf(const std::string& path) override {
    auto it = files.find(path);
    if (it == files.end()) return Error{"cannot open " + path + ": No such file or directory"};
    return it->second;
  }
  // Each stripe's digest is its token's first byte, repeated.
  Result<SourceFile> serveStripes(const std::string& token, const std::string& path, std::uint64_t size,
                                  const std::vector<StripeCut>& stripes) override {
    auto served = serveFile(token, path);
    if (!served) return served;
    SourceFile file = *served;
    if (file.size != size) return Error{"changed"};
    for (const StripeCut& s : stripes) {
      this->served.insert(s.token);
      file.stripeSha256.push_back(std::string(32, s.token[0]));
      file.stripeSha256Hex.push_back(hnow::hexOf(reinterpret_cast<const unsigned char*>(file.stripeSha256.back().data()), 32));
    }
    cuts = stripes;
    return file;
  }
  Result<SourceFile> serveBytes(const std::string&, const std::string&, std::string_view) override {
    return Error{"a send serves no bytes of its own"};
  }
  void receiveFile(const std::string&, std::uint64_t, const std::string&, const std::string&, const std::string&,
                   Received done) override {
    done(Error{"a send receives nothing at hnowd"});
  }
  void release(const std::string& token) override { served.erase(token); }
  void paceUplink(double bytesPerSecond) override { paced.push_back(bytesPerSecond); }
  std::map<std::string, std::uint64_t> files{{"/data/image.iso", 64 << 20}};
  std::set<std::string> served;
  std::vector<StripeCut> cuts;  // the last striped send's
  std::vector<double> paced;
};

struct Lab {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator{clock, RateTableOptions{}, store};
  Agents agents;
  RecordingPlane plane;
  std::map<std::string, SessionId> sessions;
  SendService service{coordinator, plane, "hnowd:7000", clock, 128 << 10, 12.5e6, [] { return std::string(32, 't'); }};

  Lab() {
    for (const char* name : {"a1", "a2", "a3"}) {
      AgentRegistration r{name, "room", {"relay"}, std::string(name) + ":9000", {"/srv"}};
      SessionId s = coordinator.attach(r, std::make_unique<FakeAgent>(name, &agents));
      planner::NodeRates rates;
      rates.sendOverheadSeconds = rates.receiveOverheadSeconds = 1e-4;
      coordinator.reportRates(s, rates, {1e7, 1e7});  // emulated links: taken as told
      sessions[name] = s;
    }
  }
  SendRequest toAll() const { return {"/data/image.iso", "in/image.iso", {"all"}, "auto", true}; }
  TransferReport done() const {
    TransferReport r;
    r.state = TransferReport::State::kDone;
    r.bytes = 64 << 20;
    for (int i = 0; i < 32; ++i) r.sha256 += "68";
    return r;
  }
};

// Starts a send whose agents answer at once: its id and first status, or why it was refused.
Result<std::pair<std::uint64_t, SendStatus>> started(Lab& lab, const SendRequest& request) {
  std::optional<Result<std::pair<std::uint64_t, SendStatus>>> answer;
  lab.service.start(request, [&](const Result<std::pair<std::uint64_t, SendStatus>>& a) { answer = a; });
  REQUIRE(answer);
  return *answer;
}

std::string refusalOf(Lab& lab, const SendRequest& request) {
  auto answer = started(lab, request);
  return answer ? "" : answer.error().message;
}

}  // namespace

TEST_CASE("a send serves the file from hnowd, orders every receive, starts the tree and ends when all copies are verified") {
  Lab lab;
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  const auto& [id, first] = *answer;
  CHECK(lab.plane.served == std::set<std::string>{std::string(32, 't')});
  REQUIRE(lab.agents.receives.size() == 3);
  for (const auto& [agent, token] : lab.agents.receives) CHECK(token == std::string(32, 't'));
  REQUIRE(first.copies.size() == 3);
  std::vector<std::string> expected;
  for (const auto& c : first.copies)
    expected.push_back(c.node + "<-" + (c.parent == "hnowd" ? std::string("hnowd:7000") : c.parent + ":9000"));
  std::sort(expected.begin(), expected.end());
  std::sort(lab.agents.pulls.begin(), lab.agents.pulls.end());
  CHECK(lab.agents.pulls == expected);
  CHECK(first.predictedS > 0);
  REQUIRE(lab.plane.paced.size() == 1);
  CHECK(lab.plane.paced[0] > 0);

  lab.clock.advance(2s);
  for (const char* agent : {"a1", "a2", "a3"})
    lab.coordinator.reportTransfer(lab.sessions[agent], std::string(32, 't'), lab.done());
  auto status = *lab.service.status(id);
  CHECK(status.finished);
  CHECK(status.elapsedS == doctest::Approx(2.0));
  for (const auto& c : status.copies) CHECK(c.state == CopyStatus::State::kDone);
  CHECK(lab.plane.served.empty());  // released once every copy ended
  CHECK(lab.agents.releases.size() == 3);
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].kind == "send");
  CHECK(ops[0].status == "done");
}

TEST_CASE("a destination that refuses stops the send before a byte moves, and hnowd stops serving") {
  Lab lab;
  lab.agents.refusing.insert("a2");
  const std::string why = refusalOf(lab, lab.toAll());
  CHECK(why == "refused: a2: '/etc/passwd' is outside this agent's roots");
  CHECK(lab.agents.pulls.empty());
  CHECK(lab.plane.served.empty());
  CHECK(lab.agents.releases.size() == 3);
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].status == "failed");
}

TEST_CASE("a file hnowd cannot serve, or an unknown algorithm, is refused before any agent is asked") {
  Lab lab;
  SendRequest missing = lab.toAll();
  missing.path = "/data/none.iso";
  CHECK(refusalOf(lab, missing) == "cannot open /data/none.iso: No such file or directory");
  SendRequest unknown = lab.toAll();
  unknown.algo = "fastest";
  CHECK(refusalOf(lab, unknown) == "unknown --algo fastest");
  CHECK(lab.agents.receives.empty());
  CHECK(lab.plane.served.empty());
}
