#pragma once
// Measuring link capacities by probe rounds (docs/link-rates.md "Surveys").
// A downlink is measured by the peers with the most uplink sending into it
// at once, an uplink by sending to the peers with the most downlink at once:
// a probe from one peer could never read more than that peer's own link
// (hnowd's uplink below an agent's downlink, say). Every node of a round
// reports each flow it received and its whole load over the same window;
// judgeFlows (link_verdict.h) then says which links were the limit. A link
// no round could saturate keeps the most any round saw, as a lower bound.
// Pure: the rounds are planned here, run by SurveyRunner, judged here.
#include <string>
#include <utility>
#include <vector>

#include "core/links/link_verdict.h"

namespace hnow::daemon {

struct SurveyNode {
  std::string name;
  std::string site;  // "" (hnowd): reached from every site
  // Others can connect to it (reachability.h): in a flow the receiver
  // connects to the sender, so one that cannot be reached sends in none,
  // and its uplink is not measured.
  bool serves = true;
};

struct ProbeRound {
  LinkId target;
  std::vector<std::pair<std::string, std::string>> flows;  // (from, to)
  std::vector<std::string> nodes() const;                  // every node of a flow, once
};

struct RoundOutcome {
  std::vector<Flow> flows;                 // what each receiver measured per flow
  std::map<std::string, NodeLoad> loads;   // every node of the round, same window
};

struct SurveyOptions {
  // Peers per round: enough to fill a fast link, few enough that a round
  // of a large lab stays a handful of TCP flows per node.
  int maxPeers = 8;
  VerdictOptions verdict;
};

// One round per target. Peers come from the target's own site first (a
// flow from another site may be held back by the link between the sites),
// then hnowd, then other sites only if there is no peer yet; the fastest
// by `known` first, names breaking ties.
std::vector<ProbeRound> planSurvey(const std::vector<SurveyNode>& nodes, const std::vector<LinkId>& targets,
                                   const KnownRate& known, const SurveyOptions& options = {});

struct SurveyFinding {
  LinkId link;
  double bytesPerSecond = 0.0;  // the capacity, or (not saturated) the most any round saw
  bool saturated = false;
  double foreign = 0.0;         // the most other traffic seen on the link during the rounds
  int samples = 0;              // saturated readings behind the capacity
  double spread = 0.0;          // (max - min) / median of them
};

// Every link the rounds crossed. Judged twice: first with the most each
// link carried in any round (or `prior`, what was known before), then
// with the capacities the first pass proved, so a stale prior does not
// give a link room it no longer has.
std::vector<SurveyFinding> deriveSurvey(const std::vector<RoundOutcome>& rounds, const KnownRate& prior,
                                        const SurveyOptions& options = {});

}  // namespace hnow::daemon
