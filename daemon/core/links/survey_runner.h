#pragma once
// Runs link surveys (link_survey.h): which links to measure and when, one
// probe round after another, and the survey's findings into the link book.
// A survey runs on its own when nodes have links nobody measured yet (after
// joiners settle), when links measured under other traffic can be measured
// again because that traffic has gone, and on a schedule; but only while no
// operation moves data, since a probe fills the links it measures. One
// asked for (`hnow measure`) runs at once: its rounds judge every node's
// whole load, so a send under way is accounted for, not mistaken for a
// slower link. Logic only: time through Clock, probes through LinkProber.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/coordinator.h"
#include "core/links/link_probe.h"
#include "core/links/link_survey.h"
#include "core/links/room_discovery.h"
#include "core/links/trunk_survey.h"

namespace hnow::daemon {

struct SurveyRunnerOptions {
  double warmSeconds = 0.3;    // TCP ramps up on a LAN in well under this
  double windowSeconds = 0.6;
  Duration settle = std::chrono::seconds(1);  // agents joining together: one survey
  Duration every{};            // measure every link again this often (0: never)
  // A probe can read a link low (its senders short of CPU, a flow
  // recovering from a loss), never high: a reading this far under the known
  // capacity is taken again, and the higher of the two kept. TCP's readings
  // of a saturated link agree within about 3%.
  double confirmFall = 0.05;
  SurveyOptions survey;
  TrunkSurveyOptions trunk;
  DiscoveryOptions discovery;
};

struct SurveyReport {
  std::vector<LinkId> targets;
  std::vector<SurveyFinding> findings;
  // First readings that fell under a known capacity by more than
  // SurveyRunnerOptions::confirmFall: measured again, and the higher of the
  // two readings is in `findings`.
  std::vector<SurveyFinding> retaken;
  std::vector<std::string> errors;  // rounds that measured nothing, and why
  bool aborted = false;             // an operation started: it measured nothing
  bool asked = false;               // asked for, not automatic
  double seconds = 0.0;
};

class SurveyRunner {
 public:
  using Done = std::function<void(const Result<void>& measured)>;
  // `coordinatorAddress`: hnowd's data plane as agents reach it; `newToken`
  // makes a fresh 32-byte token per round.
  SurveyRunner(Coordinator& coordinator, LinkProber& prober, const Clock& clock, std::string coordinatorAddress,
               std::function<std::string()> newToken, SurveyRunnerOptions options = {});

  // Measures the links of `nodes` (every node when empty) as soon as the
  // survey under way ends, even while data moves. `done` once measured,
  // else with why not (an unknown node, no peer, every round failed).
  void request(std::vector<std::string> nodes, Done done);
  // Call periodically (hnowd's tick).
  void tick();
  bool running() const { return current_.has_value(); }
  // Called with every survey's report (hnowd logs it).
  void onReport(std::function<void(const SurveyReport&)> report) { report_ = std::move(report); }
  // Called when rounds between disjoint pairs decided the rooms (hnowd logs them).
  void onRoomsFound(std::function<void(const DiscoveredRooms&)> found) { discovered_ = std::move(found); }

 private:
  struct Asked {
    std::vector<std::string> nodes;
    Done done;
  };
  struct Survey {
    std::vector<LinkId> targets;
    std::vector<ProbeRound> rounds;
    std::size_t next = 0;
    std::vector<RoundOutcome> outcomes;
    std::vector<std::string> errors;
    std::set<std::string> excluded;  // nodes that failed a round: left out of the rest
    bool asked = false;
    // `hnow measure` of every node: the rooms' trunks after their links,
    // answered once both are measured.
    bool thenTrunks = false;
    Done done;
    TimePoint started{};
    // Links paced during a round (hnowd's uplink while a send runs): what
    // they carried measured the pacing, so their findings are left out even
    // if the operation ended before the survey did.
    std::set<LinkId> paced;
    // Once the rounds are done: the findings, and where the rounds that
    // measure their falls again begin.
    std::optional<std::size_t> retakeFrom;
    std::vector<SurveyFinding> first;
    std::vector<LinkId> falls;
    // Rooms' trunks (trunk_survey.h): the rounds judged together at the end,
    // each room's far side by the other rooms' trunks.
    bool trunks = false;
    std::vector<std::pair<ProbeRound, RoundOutcome>> trunkRounds;
    // Rooms on one subnet (room_discovery.h): every round judged at the end.
    bool discovery = false;
  };
  struct Round {
    std::uint64_t generation = 0;
    std::vector<std::string> nodes;
    std::vector<std::optional<Result<ProbeReply>>> replies;
    std::size_t answered = 0;
    TimePoint started{};
  };

  std::vector<SurveyNode> surveyNodes() const;
  // The trunk survey's findings, its rounds judged together.
  std::vector<SurveyFinding> trunkFindings(const Survey& survey) const;
  std::string addressOf(const std::string& node) const;
  // Links of connected nodes to measure without being asked: those never
  // measured (hnowd's with them), and bounds that peers who joined since
  // could now fill.
  std::vector<LinkId> unmeasured() const;
  // What the peers a round for `link` would take can send (or receive) together.
  double peerCapacity(const std::vector<SurveyNode>& nodes, const LinkId& link) const;
  std::vector<LinkId> linksOf(const std::vector<std::string>& nodes) const;
  void begin(std::vector<LinkId> targets, bool asked, Done done, bool trunks = false);
  // Rounds for `targets` over `nodes`: node links' or trunks'.
  std::vector<ProbeRound> planRounds(const std::vector<SurveyNode>& nodes, const std::vector<LinkId>& targets,
                                     bool trunks) const;
  // Trunks of rooms with real links (not all emulated): those not known
  // yet, or (`all`) every one.
  std::vector<LinkId> trunkLinks(bool all) const;
  // Nodes whose rooms to find by measurement now: hnowd and the agents with
  // real, measured links, when neither labels nor subnets tell rooms apart
  // and the rooms found before do not place them all; none otherwise.
  std::vector<std::string> roomDiscoveryNodes() const;
  void beginDiscovery(const std::vector<std::string>& nodes);
  // The rooms the discovery rounds say, into the coordinator.
  void finishDiscovery(const Survey& survey, bool aborted);
  void startRound();
  void answer(std::uint64_t generation, std::size_t node, const Result<ProbeReply>& reply);
  void finishRound();
  // Notes the links of the round's nodes that are paced now.
  void notePaced(const std::vector<std::string>& nodes);
  // Plans the rounds after the current one again without the nodes that
  // failed, the current one's target included when it did not fail itself.
  void replanWithout(const std::set<std::string>& failed);
  std::vector<SurveyFinding> findingsOf(const Survey& survey, std::size_t fromOutcome) const;
  // Plans rounds for the links whose findings fell under their capacity;
  // false when there are none.
  bool retakeFalls();
  // The first findings with each fall replaced by the higher of its two
  // readings (dropped when it could not be measured again); the falls' first
  // readings into `falls`.
  std::vector<SurveyFinding> retaken(const Survey& survey, std::vector<SurveyFinding>& falls) const;
  void complete(bool aborted);

  Coordinator& coordinator_;
  LinkProber& prober_;
  const Clock& clock_;
  std::string coordinatorAddress_;
  std::function<std::string()> newToken_;
  SurveyRunnerOptions options_;
  std::function<void(const SurveyReport&)> report_;
  std::function<void(const DiscoveredRooms&)> discovered_;
  std::vector<Asked> asked_;
  std::optional<Survey> current_;
  std::optional<Round> round_;
  std::uint64_t generation_ = 0;
  bool issuing_ = false;  // startRound is handing out orders (a reply may come at once)
  std::map<LinkId, double> triedWith_;  // peerCapacity when a link was last surveyed
  std::vector<LinkId> lastUnmeasured_;
  TimePoint unmeasuredSince_{};
  TimePoint lastFull_{};
  // An automatic survey that measured nothing is not tried again before this.
  std::vector<LinkId> failedTargets_;
  TimePoint retryAt_{};
  std::vector<LinkId> failedTrunks_;
  TimePoint trunksRetryAt_{};
  std::vector<std::string> discoveryTried_;
  TimePoint discoveryRetryAt_{};
};

}  // namespace hnow::daemon
