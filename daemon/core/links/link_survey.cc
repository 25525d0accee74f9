#include "core/links/link_survey.h"

#include <algorithm>
#include <set>

namespace hnow::daemon {

std::vector<std::string> ProbeRound::nodes() const {
  std::vector<std::string> out;
  for (const auto& [from, to] : flows)
    for (const std::string* n : {&from, &to})
      if (std::find(out.begin(), out.end(), *n) == out.end()) out.push_back(*n);
  return out;
}

namespace {

LinkDirection opposite(LinkDirection d) {
  return d == LinkDirection::kUp ? LinkDirection::kDown : LinkDirection::kUp;
}

// The peers of `target`'s round, best first (planSurvey's order).
std::vector<std::string> peersOf(const std::vector<SurveyNode>& nodes, const LinkId& target,
                                 const KnownRate& known, int maxPeers) {
  std::string site;
  for (const SurveyNode& n : nodes)
    if (n.name == target.node) site = n.site;
  // Rank 0: same site; 1: hnowd (or a target without a site); 2: another site.
  auto rank = [&](const SurveyNode& n) { return n.site == site ? 0 : n.site.empty() || site.empty() ? 1 : 2; };
  std::vector<const SurveyNode*> peers;
  for (const SurveyNode& n : nodes)
    if (n.name != target.node && (n.serves || target.direction == LinkDirection::kUp)) peers.push_back(&n);
  const LinkDirection their = opposite(target.direction);
  std::sort(peers.begin(), peers.end(), [&](const SurveyNode* a, const SurveyNode* b) {
    if (rank(*a) != rank(*b)) return rank(*a) < rank(*b);
    const double ka = known({a->name, their}), kb = known({b->name, their});
    if (ka != kb) return ka > kb;
    return a->name < b->name;
  });
  // Another site only when there is nobody else.
  const bool near = !peers.empty() && rank(*peers.front()) < 2;
  std::vector<std::string> out;
  for (const SurveyNode* p : peers) {
    if (static_cast<int>(out.size()) >= maxPeers || (near && rank(*p) == 2)) break;
    out.push_back(p->name);
  }
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

std::vector<ProbeRound> planSurvey(const std::vector<SurveyNode>& nodes, const std::vector<LinkId>& targets,
                                   const KnownRate& known, const SurveyOptions& options) {
  std::vector<ProbeRound> rounds;
  for (const LinkId& target : targets) {
    ProbeRound round{target, {}};
    const bool serves = std::none_of(nodes.begin(), nodes.end(),
                                     [&](const SurveyNode& n) { return n.name == target.node && !n.serves; });
    if (target.direction == LinkDirection::kUp && !serves) continue;
    for (const std::string& peer : peersOf(nodes, target, known, options.maxPeers)) {
      if (target.direction == LinkDirection::kDown) round.flows.emplace_back(peer, target.node);
      else round.flows.emplace_back(target.node, peer);
    }
    if (!round.flows.empty()) rounds.push_back(std::move(round));
  }
  return rounds;
}

std::vector<SurveyFinding> deriveSurvey(const std::vector<RoundOutcome>& rounds, const KnownRate& prior,
                                        const SurveyOptions& options) {
  // The most each link carried in any round: it carries at least that.
  std::map<LinkId, double> most, foreign;
  for (const RoundOutcome& r : rounds) {
    for (const LinkReading& reading : judgeFlows(r.flows, r.loads, [](const LinkId&) { return 0.0; },
                                                 options.verdict)) {
      most[reading.link] = std::max(most[reading.link], reading.bytesPerSecond);
      foreign[reading.link] = std::max(foreign[reading.link], reading.foreign);
    }
  }
  auto judgeAll = [&](const KnownRate& known) {
    std::map<LinkId, std::vector<double>> saturated;
    for (const RoundOutcome& r : rounds)
      for (const LinkReading& reading : judgeFlows(r.flows, r.loads, known, options.verdict))
        if (reading.saturated) saturated[reading.link].push_back(reading.bytesPerSecond);
    return saturated;
  };
  auto first = judgeAll([&](const LinkId& l) {
    auto it = most.find(l);
    return std::max(it == most.end() ? 0.0 : it->second, prior(l));
  });
  auto second = judgeAll([&](const LinkId& l) {
    if (auto it = first.find(l); it != first.end()) return median(it->second);
    auto m = most.find(l);
    return std::max(m == most.end() ? 0.0 : m->second, prior(l));
  });

  std::vector<SurveyFinding> findings;
  for (const auto& [link, carried] : most) {
    SurveyFinding f{link, carried, false, foreign[link], 0, 0.0};
    if (auto it = second.find(link); it != second.end()) {
      const double capacity = median(it->second);
      // A round that saw the link carry well more than the "capacity" another
      // round saturated it at means it changed meanwhile: keep what is sure.
      if (carried <= capacity * (1.0 + options.verdict.headroom)) {
        auto [lo, hi] = std::minmax_element(it->second.begin(), it->second.end());
        f = {link, capacity, true, foreign[link], static_cast<int>(it->second.size()),
             capacity > 0 ? (*hi - *lo) / capacity : 0.0};
      }
    }
    findings.push_back(f);
  }
  return findings;
}

}  // namespace hnow::daemon
