// A send to an agent whose links hnowd has not measured yet (one enrolled a
// moment ago, before the survey of joiners ran) waits for hnowd to measure
// them, then starts with that agent in its plan.
#include "daemon/core/send_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::send_lab;

namespace {

// a2's links taken as unknown: no longer emulated, not measured.
void unmeasure(Lab& lab, const std::string& agent) {
  lab.coordinator.links().clearFixed({agent, LinkDirection::kUp});
  lab.coordinator.links().clearFixed({agent, LinkDirection::kDown});
}

void measure(Lab& lab, const std::string& agent, double bytesPerSecond) {
  const LinkId up{agent, LinkDirection::kUp}, down{agent, LinkDirection::kDown};
  lab.coordinator.links().applySurvey({{up, bytesPerSecond, true, 0.0, 1, 0.0}, {down, bytesPerSecond, true, 0.0, 1, 0.0}},
                                      {up, down}, false);
}

// What the survey was asked for, and its answer held until the test gives it.
struct Measurer {
  std::vector<std::vector<std::string>> asked;
  std::function<void(const Result<void>&)> answer;
  void attach(Lab& lab) {
    lab.service.measureLinksWith([this](std::vector<std::string> agents, std::function<void(const Result<void>&)> done) {
      asked.push_back(std::move(agents));
      answer = std::move(done);
    });
  }
};

using Answer = std::optional<Result<std::pair<std::uint64_t, SendStatus>>>;

}  // namespace

TEST_CASE("without a way to measure links, a send to an agent never measured is refused, naming it and hnow measure") {
  Lab lab;
  unmeasure(lab, "a2");
  const std::string why = refusalOf(lab, lab.toAll());
  CHECK(why.find("the links of a2 have not been measured yet") != std::string::npos);
  CHECK(why.find("hnow measure") != std::string::npos);
  CHECK(lab.agents.receives.empty());
}

TEST_CASE("a send to an agent never measured waits for its links to be measured, then plans with the rates found") {
  Lab lab;
  Measurer measurer;
  measurer.attach(lab);
  unmeasure(lab, "a2");
  Answer answer;
  lab.service.start(lab.toAll(), [&](const auto& a) { answer = a; });
  REQUIRE(measurer.asked.size() == 1);
  CHECK(measurer.asked[0] == std::vector<std::string>{"a2"});  // only the agent lacking rates
  CHECK_FALSE(answer);  // waiting: no agent asked to receive yet
  CHECK(lab.agents.receives.empty());
  measure(lab, "a2", 5e6);
  measurer.answer({});
  REQUIRE(answer);
  REQUIRE_MESSAGE(*answer, answer->error().message);
  CHECK(lab.agents.receives.size() == 3);
  CHECK((*answer)->second.copies.size() == 3);
  CHECK(measurer.asked.size() == 1);
}

TEST_CASE("a send whose agents' links could not be measured is refused with the survey's reason") {
  Lab lab;
  Measurer measurer;
  measurer.attach(lab);
  unmeasure(lab, "a3");
  Answer answer;
  lab.service.start(lab.toAll(), [&](const auto& a) { answer = a; });
  REQUIRE(measurer.answer);
  measurer.answer(Error{"every round failed: a3 did not answer its probe"});
  REQUIRE(answer);
  REQUIRE_FALSE(*answer);
  CHECK(answer->error().message.find("the links of a3 could not be measured") != std::string::npos);
  CHECK(answer->error().message.find("a3 did not answer its probe") != std::string::npos);
  CHECK(lab.agents.receives.empty());
}

TEST_CASE("a survey that ends without the rates a send needs is not asked for again: the send is refused") {
  Lab lab;
  Measurer measurer;
  measurer.attach(lab);
  unmeasure(lab, "a1");
  Answer answer;
  lab.service.start(lab.toAll(), [&](const auto& a) { answer = a; });
  REQUIRE(measurer.answer);
  measurer.answer({});  // ended, but a1's links are still unknown
  REQUIRE(answer);
  REQUIRE_FALSE(*answer);
  CHECK(answer->error().message.find("the links of a1 have not been measured yet") != std::string::npos);
  CHECK(measurer.asked.size() == 1);
}

TEST_CASE("a send to measured agents never asks for a survey") {
  Lab lab;
  Measurer measurer;
  measurer.attach(lab);
  auto answer = started(lab, lab.toAll());
  REQUIRE(answer);
  CHECK(measurer.asked.empty());
}
