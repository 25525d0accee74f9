#include <doctest/doctest.h>

#include "core/links/link_survey.h"

using namespace hnow::daemon;

namespace {
KnownRate uplinks(std::map<std::string, double> up) {
  return [up](const LinkId& l) {
    auto it = up.find(l.node);
    return l.direction == LinkDirection::kUp && it != up.end() ? it->second : 0.0;
  };
}
}  // namespace

TEST_CASE("a downlink's round takes the same site's fastest senders first, then hnowd, at most maxPeers") {
  std::vector<SurveyNode> nodes{{"hnowd", ""}, {"a1", "east"}, {"a2", "east"}, {"a3", "east"}, {"b1", "west"}};
  SurveyOptions options;
  options.maxPeers = 3;
  auto rounds = planSurvey(nodes, {{"a1", LinkDirection::kDown}}, uplinks({{"a2", 10}, {"a3", 50}, {"hnowd", 500}}), options);
  REQUIRE(rounds.size() == 1);
  using P = std::pair<std::string, std::string>;
  CHECK(rounds[0].flows == std::vector<P>{{"a3", "a1"}, {"a2", "a1"}, {"hnowd", "a1"}});
  CHECK(rounds[0].nodes() == std::vector<std::string>{"a3", "a1", "a2", "hnowd"});
}

TEST_CASE("an uplink's round sends to peers - another site only when nobody else can take part") {
  std::vector<SurveyNode> nodes{{"a1", "east"}, {"b1", "west"}, {"b2", "west"}};
  auto rounds = planSurvey(nodes, {{"a1", LinkDirection::kUp}}, uplinks({}));
  REQUIRE(rounds.size() == 1);
  using P = std::pair<std::string, std::string>;
  CHECK(rounds[0].flows == std::vector<P>{{"a1", "b1"}, {"a1", "b2"}});
  nodes.push_back({"hnowd", ""});
  rounds = planSurvey(nodes, {{"a1", LinkDirection::kUp}}, uplinks({}));
  CHECK(rounds[0].flows == std::vector<P>{{"a1", "hnowd"}});
  CHECK(planSurvey({{"a1", "east"}}, {{"a1", LinkDirection::kUp}}, uplinks({})).empty());  // nobody to measure against
}

TEST_CASE("a survey's findings: a saturated round gives the capacity - a round that saw more than it is kept as a bound") {
  RoundOutcome fill{{{"s", "r", 100e6}}, {{"s", {100e6, 0}}, {"r", {0, 100e6}}}};
  RoundOutcome more{{{"s", "r", 300e6}}, {{"s", {300e6, 0}}, {"r", {0, 300e6}}}};
  auto known = [](const LinkId& l) { return l.node == "s" ? 1000e6 : 0.0; };  // s has plenty of room
  auto findings = deriveSurvey({fill}, known);
  auto of = [&](const LinkId& l) {
    for (const auto& f : findings)
      if (f.link == l) return f;
    return SurveyFinding{};
  };
  CHECK(of({"r", LinkDirection::kDown}).saturated);
  CHECK(of({"r", LinkDirection::kDown}).bytesPerSecond == 100e6);
  // s's uplink is known at 300: in the second round it was full, r not.
  findings = deriveSurvey({fill, more}, [](const LinkId& l) { return l.node == "s" ? 300e6 : 0.0; });
  CHECK_FALSE(of({"r", LinkDirection::kDown}).saturated);
  CHECK(of({"r", LinkDirection::kDown}).bytesPerSecond == 300e6);
}
