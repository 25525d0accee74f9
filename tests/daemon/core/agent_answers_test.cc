#include <doctest/doctest.h>

#include <map>

#include "core/send/agent_answers.h"

using hnow::Error;
using hnow::Result;
using hnow::daemon::AgentLink;
using hnow::daemon::askAgents;
using hnow::daemon::gatherAnswers;

namespace {

struct SilentAgent final : AgentLink {
  void setEmulatedRates(const hnow::daemon::EmulatedRates&, Done done) override { done({}); }
  void probeNow() override {}
};

}  // namespace

TEST_CASE("answers gathered from several agents come all at once, in the order asked, each counted once") {
  std::vector<Result<std::string>> got;
  int calls = 0;
  auto slots = gatherAnswers<std::string>(3, [&](std::vector<Result<std::string>> all) {
    ++calls;
    got = std::move(all);
  });
  REQUIRE(slots.size() == 3);
  slots[2](std::string("/srv/c/f"));
  slots[0](std::string("/srv/a/f"));
  CHECK(calls == 0);
  slots[0](Error{"a second answer from the same agent is ignored"});
  slots[1](Error{"refused: /etc is outside this agent's roots"});
  REQUIRE(calls == 1);
  REQUIRE(got.size() == 3);
  CHECK(*got[0] == "/srv/a/f");
  CHECK(got[1].error().message == "refused: /etc is outside this agent's roots");
  CHECK(*got[2] == "/srv/c/f");
}

TEST_CASE("asking no agent answers at once, and an agent without a link answers 'not connected'") {
  int calls = 0;
  gatherAnswers<int>(0, [&](std::vector<Result<int>> all) { calls += all.empty(); });
  CHECK(calls == 1);

  SilentAgent a;
  std::map<std::string, AgentLink*> links{{"a", &a}, {"b", nullptr}};
  std::vector<Result<int>> got;
  std::vector<std::size_t> asked;
  askAgents<int>(
      {"a", "b"}, [&](const std::string& name) { return links[name]; },
      [&](AgentLink&, std::size_t i, std::function<void(const Result<int>&)> answer) {
        asked.push_back(i);
        answer(static_cast<int>(i) + 40);
      },
      [&](std::vector<Result<int>> all) { got = std::move(all); });
  CHECK(asked == std::vector<std::size_t>{0});
  REQUIRE(got.size() == 2);
  CHECK(*got[0] == 40);
  CHECK(got[1].error().message == "not connected");
}
