#pragma once
// A coordinator with agents on a fluid lab (fluid_network.h) and a LinkProber
// that answers probe rounds with what that lab would measure: each flow's
// share of the window, and every node's counters (hnow's payload, its wire
// bytes, and the interface with the other traffic on it).
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/coordinator.h"
#include "core/links/survey_runner.h"
#include "daemon/core/fluid_network.h"
#include "daemon/core/memory_state_store.h"

namespace hnow::testing {

using namespace hnow::daemon;

inline double mbps(double m) { return m * 1e6 / 8; }

// Counters after `seconds` at the given payload rates (node_loads.h's
// inverse): the interface carries hnow's payload and the other traffic's
// in full segments, 66 bytes of headers each.
inline CounterSample countersAfter(double seconds, double sent, double received, double otherSent,
                                   double otherReceived, double at) {
  CounterSample c;
  c.atSeconds = at;
  c.dataSent = c.tcpSent = static_cast<std::uint64_t>(sent * seconds);
  c.dataReceived = c.tcpReceived = static_cast<std::uint64_t>(received * seconds);
  c.nicKnown = true;
  const auto nicSent = static_cast<std::uint64_t>((sent + otherSent) * seconds);
  const auto nicReceived = static_cast<std::uint64_t>((received + otherReceived) * seconds);
  c.nicSentPackets = nicSent / 1448 + 1;
  c.nicReceivedPackets = nicReceived / 1448 + 1;
  c.nicSent = nicSent + 66 * c.nicSentPackets;
  c.nicReceived = nicReceived + 66 * c.nicReceivedPackets;
  return c;
}

struct QuietLink final : AgentLink {
  void setEmulatedRates(const EmulatedRates&, Done done) override { done({}); }
  void probeNow() override {}
};

// An operation that says it moves data (surveys wait for it).
struct MovingObserver final : TransferObserver {
  bool moving_ = false;
  void transferReport(const std::string&, const std::string&, const TransferReport&) override {}
  void agentGone(const std::string&) override {}
  bool moving() const override { return moving_; }
};

class FluidProber final : public LinkProber {
 public:
  explicit FluidProber(std::map<std::string, FluidNode>& lab) : lab_(lab) {}

  void probe(const std::string& node, const ProbeOrder& order, ProbeDone done) override {
    if (failing.count(node)) return done(Error{failing.at(node)});
    pending_.push_back({node, order, std::move(done)});
  }

  // Answers every order handed out so far, as one round on the lab;
  // `background` are hnow flows already under way (a send).
  void answer() {
    std::vector<std::pair<std::string, std::string>> flows = background;
    std::vector<std::pair<std::size_t, std::size_t>> probeFlows;  // (pending index, pull index)
    for (std::size_t i = 0; i < pending_.size(); ++i)
      for (std::size_t k = 0; k < pending_[i].order.pullFrom.size(); ++k) {
        flows.emplace_back(nameOf(pending_[i].order.pullFrom[k]), pending_[i].node);
        probeFlows.emplace_back(i, k);
      }
    const FluidRates rates = maxMinRates(lab_, flows, trunks);
    auto pending = std::move(pending_);
    pending_.clear();
    ++rounds;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      const auto& p = pending[i];
      const double w = p.order.windowSeconds;
      ProbeReply reply;
      reply.windowSeconds = w;
      reply.flowBytesPerSecond.assign(p.order.pullFrom.size(), 0.0);
      for (std::size_t f = 0; f < probeFlows.size(); ++f)
        if (probeFlows[f].first == i)
          reply.flowBytesPerSecond[probeFlows[f].second] = rates.flows[background.size() + f];
      auto get = [](const std::map<std::string, double>& m, const std::string& k) {
        auto it = m.find(k);
        return it == m.end() ? 0.0 : it->second;
      };
      // A node short of CPU in the round for its downlink (it pulls from
      // several peers) takes only a share of what the link would carry.
      double share = 1.0;
      if (auto it = starveOnce.find(p.node); it != starveOnce.end() && p.order.pullFrom.size() >= 2) {
        share = it->second;
        starveOnce.erase(it);
        for (auto& rate : reply.flowBytesPerSecond) rate *= share;
      }
      reply.before = countersAfter(0, 0, 0, 0, 0, 100.0);
      reply.after = countersAfter(w, get(rates.sent, p.node), share * get(rates.received, p.node),
                                  get(rates.otherSent, p.node), get(rates.otherReceived, p.node), 100.0 + w);
      if (pacedByHnow) {
        // No interface counts it; its data plane counted a chunk more than
        // the window carried each way, and fitted what it did carry.
        reply.before.nicKnown = reply.after.nicKnown = false;
        if (reply.after.tcpSent > 0) reply.after.tcpSent += kChunk;
        if (reply.after.dataReceived > 0) reply.after.dataReceived += kChunk;
        if (fitted) {
          reply.sentBytesPerSecond = get(rates.sent, p.node);
          reply.receivedBytesPerSecond = share * get(rates.received, p.node);
        }
      }
      p.done(reply);
    }
  }
  bool waiting() const { return !pending_.empty(); }

  std::vector<std::pair<std::string, std::string>> background;
  std::map<std::string, std::string> failing;  // node -> the error it answers with
  FluidTrunks trunks;                           // rooms' trunks, by FluidNode::room
  std::map<std::string, double> starveOnce;    // node -> the share it reads of its downlink round, once
  // Links paced by hnow's own data planes (loopback, `hnow local`): whole
  // chunks at a time, no interface counters. `fitted`: the planes fit their
  // loads to their chunks (transport/data/probe_round.h); an older agent
  // answers counts alone.
  bool pacedByHnow = false;
  bool fitted = true;
  static constexpr std::uint64_t kChunk = 128 * 1024;
  int rounds = 0;

 private:
  struct Pending {
    std::string node;
    ProbeOrder order;
    ProbeDone done;
  };
  std::string nameOf(const std::string& address) const {
    return address.substr(0, address.find(':'));  // the fixture's addresses are "name:1"
  }
  std::map<std::string, FluidNode>& lab_;
  std::vector<Pending> pending_;
};

// hnowd and agents `agent-1..N` registered on `lab` (which holds "hnowd"
// too), a survey runner with a fluid prober.
struct FluidLab {
  std::map<std::string, FluidNode> lab;
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator{clock, RateTableOptions{}, store};
  FluidProber prober{lab};
  MovingObserver operation;
  int tokens = 0;
  SurveyRunner runner{coordinator, prober, clock, std::string(kCoordinatorNode) + ":1",
                      [this]() { return std::string(31, 't') + static_cast<char>('a' + (tokens++ % 26)); }};
  std::vector<SurveyReport> reports;

  // `labelRooms`: agents carry their FluidNode::room as their site label;
  // else all carry "lab" (two switches on one subnet, rooms unlabelled).
  explicit FluidLab(std::map<std::string, FluidNode> nodes, bool labelRooms = true) : lab(std::move(nodes)) {
    coordinator.addTransferObserver(&operation);
    runner.onReport([this](const SurveyReport& r) { reports.push_back(r); });
    for (const auto& [name, node] : lab)
      if (name != kCoordinatorNode) join(name, node.room.empty() || !labelRooms ? "lab" : node.room);
  }
  ~FluidLab() { coordinator.removeTransferObserver(&operation); }

  SessionId join(const std::string& name, const std::string& site) {
    SessionId s = coordinator.attach({name, site, {"probe", "relay"}, name + ":1", {"/srv"}}, std::make_unique<QuietLink>());
    sessions.push_back(s);
    return s;
  }
  std::vector<SessionId> sessions;
  // Ticks every 250 ms, answering rounds as they start, for `seconds`.
  void run(double seconds) {
    for (double t = 0; t < seconds; t += 0.25) {
      clock.advance(std::chrono::milliseconds(250));
      for (SessionId s : sessions) coordinator.heartbeat(s);
      coordinator.tick();
      runner.tick();
      while (prober.waiting()) prober.answer();
    }
  }
  const LinkRate* rate(const std::string& node, LinkDirection d) const { return coordinator.links().rate({node, d}); }
};

// The volunteer-like lab: hnowd 200 Mbit/s up with an unshaped downlink,
// agents 100, 60, 40, 20 up round-robin, every downlink 400.
inline std::map<std::string, FluidNode> volunteerLab(int agents = 8) {
  std::map<std::string, FluidNode> lab;
  lab[kCoordinatorNode] = {mbps(200), mbps(10000)};
  const double ups[] = {100, 60, 40, 20};
  for (int k = 1; k <= agents; ++k) lab["agent-" + std::to_string(k)] = {mbps(ups[(k - 1) % 4]), mbps(400)};
  return lab;
}

}  // namespace hnow::testing
