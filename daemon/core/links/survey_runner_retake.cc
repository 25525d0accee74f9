// SurveyRunner's second look at readings that fell under a known capacity
// (docs/link-rates.md): a node short of CPU once keeps its capacity, a link
// that did slow is confirmed by a round of its own.
#include <algorithm>

#include "core/links/survey_runner.h"

namespace hnow::daemon {

bool SurveyRunner::retakeFalls() {
  Survey& s = *current_;
  const LinkBook& book = coordinator_.links();
  std::vector<SurveyFinding> first = findingsOf(s, 0);
  std::vector<LinkId> falls;
  for (const SurveyFinding& f : first) {
    const LinkRate* known = book.rate(f.link);
    if (f.saturated && known && !known->bound() && f.bytesPerSecond < (1.0 - options_.confirmFall) * known->bytesPerSecond)
      falls.push_back(f.link);
  }
  std::vector<SurveyNode> nodes;
  for (const SurveyNode& n : surveyNodes())
    if (!s.excluded.count(n.name)) nodes.push_back(n);
  std::vector<ProbeRound> rounds =
      planSurvey(nodes, falls, [&book](const LinkId& l) { return book.knownAtLeast(l); }, options_.survey);
  if (rounds.empty()) return false;
  s.retakeFrom = s.outcomes.size();
  s.first = std::move(first);
  s.falls = std::move(falls);
  s.rounds.insert(s.rounds.end(), rounds.begin(), rounds.end());
  startRound();
  return true;
}

std::vector<SurveyFinding> SurveyRunner::retaken(const Survey& survey, std::vector<SurveyFinding>& falls) const {
  const std::vector<SurveyFinding> again = findingsOf(survey, *survey.retakeFrom);
  std::vector<SurveyFinding> out;
  for (const SurveyFinding& f : survey.first) {
    if (std::find(survey.falls.begin(), survey.falls.end(), f.link) == survey.falls.end()) {
      out.push_back(f);
      continue;
    }
    falls.push_back(f);
    auto g = std::find_if(again.begin(), again.end(), [&](const SurveyFinding& a) { return a.link == f.link; });
    if (g == again.end()) continue;
    SurveyFinding best = g->bytesPerSecond > f.bytesPerSecond ? *g : f;
    best.foreign = std::max(f.foreign, g->foreign);
    out.push_back(best);
  }
  return out;
}

}  // namespace hnow::daemon
