// Who may feed others (core/trust/relay_policy.h): an agent others can
// connect to that has not been caught altering what it relayed; an agent
// is checked from hnowd once per data address it registers with.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/trust/relay_policy.h"

using namespace hnow;
using namespace hnow::daemon;

namespace {

// Answers each check when the test says, as the real probe does later on
// the control thread.
struct HeldProbe final : ReachabilityProbe {
  std::vector<std::string> asked;
  std::vector<std::function<void(Result<void>)>> answers;
  void check(const std::string& dataAddress, std::function<void(Result<void>)> done) override {
    asked.push_back(dataAddress);
    answers.push_back(std::move(done));
  }
};

std::vector<TreeNode> nodesNamed(const std::vector<std::string>& names) {
  std::vector<TreeNode> nodes(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) nodes[i].name = names[i];
  return nodes;
}

}  // namespace

TEST_CASE("an agent hnowd cannot connect to and a relay suspect both relay nothing, and forgetting them clears it") {
  RelayPolicy relays;
  HeldProbe probe;
  relays.setProbe(&probe);
  relays.registered("a1", "10.0.0.2:4000");
  relays.registered("a2", "10.0.0.3:4000");
  REQUIRE(probe.asked == std::vector<std::string>{"10.0.0.2:4000", "10.0.0.3:4000"});
  CHECK(relays.mayRelay("a1"));  // not known to refuse yet
  probe.answers[0](Error{"no answer within 3 s"});
  probe.answers[1](Result<void>{});
  CHECK_FALSE(relays.mayRelay("a1"));
  CHECK(relays.mayRelay("a2"));
  for (int k = 0; k < kSuspectFaults; ++k) relays.suspects().fault("a3");
  CHECK_FALSE(relays.mayRelay("a3"));
  CHECK(relays.mayRelay("a4"));

  std::vector<TreeNode> nodes = nodesNamed({"a3", "a1", "a2", "a3", "a4"});
  relays.planLeaves(nodes);
  CHECK(nodes[0].relays);  // the plan's source sends its own file whatever it is
  CHECK_FALSE(nodes[1].relays);
  CHECK(nodes[2].relays);
  CHECK_FALSE(nodes[3].relays);
  CHECK(nodes[4].relays);

  relays.forget("a1");
  relays.forget("a3");
  CHECK(relays.mayRelay("a1"));
  CHECK(relays.mayRelay("a3"));
  CHECK(relays.suspects().faults("a3") == 0);
}

TEST_CASE("an agent is checked once per data address, not at all without an address or a probe") {
  RelayPolicy relays;
  relays.registered("a1", "10.0.0.2:4000");  // no probe yet: nothing to check with
  HeldProbe probe;
  relays.setProbe(&probe);
  relays.registered("a0", "");  // serves no data plane
  relays.registered("a1", "10.0.0.2:4000");
  relays.registered("a1", "10.0.0.2:4000");  // logged in again at the same address
  relays.registered("a1", "10.0.0.9:4000");  // moved
  CHECK(probe.asked == std::vector<std::string>{"10.0.0.2:4000", "10.0.0.9:4000"});
  // The old address's check answering late says nothing of the new one.
  probe.answers[0](Error{"no answer within 3 s"});
  CHECK(relays.mayRelay("a1"));
  probe.answers[1](Error{"connection refused"});
  CHECK_FALSE(relays.mayRelay("a1"));
  CHECK(relays.reachability().view("a1").note.find("10.0.0.9:4000") != std::string::npos);
}
