// `--reduce`'s pairwise reduction (daemon/core/jobs/job_reduction.h), driven by
// hand with a manual clock: an agent lost before, during and after its
// step, a late step; the final result must combine every share's result
// exactly once (sharesOf the final partial), recomputing only what no live
// agent holds.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/jobs/job_reduction.h"
#include "daemon/core/reduction_fake.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;
using namespace hnow::daemon::reductiontest;

// Three agents a, b, c holding shares 0, 1, 2 of 100 bytes each.
struct ThreeShares {
  ManualClock clock;
  Fake f;
  JobReduction r{clock, f, costsOf};
  ThreeShares() {
    r.addLeaf(0, "a", 100);
    r.addLeaf(1, "b", 100);
    r.addLeaf(2, "c", 100);
  }
};

TEST_CASE("reduction: every share's result is combined once and collected from the sink") {
  ThreeShares lab;
  auto& [clock, f, r] = lab;
  r.addLeaf(3, "c", 100);  // a reissued share: c combines its two first
  r.start();
  CHECK(r.sink() == "a");
  CHECK(r.scheduleName() == "optimal");
  drive(r, f);
  CHECK_FALSE(r.failure());
  CHECK(finalShares(r) == Shares{0, 1, 2, 3});
  CHECK(f.recomputes.empty());
  CHECK(f.drops == 6);  // three combines, two inputs each
  CHECK(r.replans() == 0);
}

TEST_CASE("reduction: an agent lost before its step - its share is recomputed elsewhere, then reduced") {
  ThreeShares lab;
  auto& [clock, f, r] = lab;
  r.agentLost("c");
  r.start();
  REQUIRE(f.recomputes == std::vector<Shares>{{2}});
  CHECK(r.waitingForRecompute());
  CHECK(f.pending.empty());
  r.addLeaf(2, "b", 100);
  r.start();
  drive(r, f);
  CHECK(finalShares(r) == Shares{0, 1, 2});
}

TEST_CASE("reduction: a sender lost during its move - the move is abandoned, its share recomputed, the rest re-planned") {
  ThreeShares lab;
  auto& [clock, f, r] = lab;
  r.start();
  auto move = std::find_if(f.pending.begin(), f.pending.end(), [](const Call& c) { return c.from == "c"; });
  REQUIRE(move != f.pending.end());
  const Call stale = *move;
  r.agentLost("c");
  CHECK(f.recomputes == std::vector<Shares>{{2}});
  r.moved(stale.step, {});  // its late answer no longer counts
  f.pending.clear();
  r.addLeaf(2, "a", 100);
  r.start();
  CHECK(r.replans() == 1);
  drive(r, f);
  CHECK_FALSE(r.failure());
  CHECK(finalShares(r) == Shares{0, 1, 2});
}

TEST_CASE("reduction: a sender lost after its partial was combined upstream - nothing is recomputed") {
  ManualClock clock;
  Fake f;
  JobReduction r(clock, f, costsOf);
  r.addLeaf(0, "a", 100);
  r.addLeaf(1, "b", 100);
  r.start();
  REQUIRE(f.pending.size() == 1);
  CHECK(f.pending[0].kind == "move");
  CHECK(f.pending[0].from == "b");
  answerOne(r, f);  // b -> a
  REQUIRE(f.pending.size() == 1);
  CHECK(f.pending[0].kind == "combine");
  answerOne(r, f);  // a combines
  r.agentLost("b");
  CHECK(f.recomputes.empty());
  CHECK(r.replans() == 0);  // a's collect goes on
  drive(r, f);
  CHECK(finalShares(r) == Shares{0, 1});
}

TEST_CASE("reduction: the receiver lost after combining - only its own share is recomputed, the sender's copy is fetched again") {
  ThreeShares lab;
  auto& [clock, f, r] = lab;
  r.start();
  // Let the first move land and be combined, then lose its receiver.
  auto first = std::find_if(f.pending.begin(), f.pending.end(), [](const Call& c) { return c.kind == "move"; });
  REQUIRE(first != f.pending.end());
  const Call landed = *first;
  f.pending.erase(first);
  const std::string receiver = landed.agent, sender = landed.from;
  r.moved(landed.step, {});
  auto combine = std::find_if(f.pending.begin(), f.pending.end(), [&](const Call& c) { return c.kind == "combine"; });
  REQUIRE(combine != f.pending.end());
  const Call merge = *combine;
  f.pending.erase(combine);
  CHECK(merge.agent == receiver);
  r.combined(merge.step, CombinedFile{200});
  const int receiverShare = receiver == "a" ? 0 : receiver == "b" ? 1 : 2;
  r.agentLost(receiver);
  REQUIRE(f.recomputes == std::vector<Shares>{{receiverShare}});
  f.pending.clear();
  r.addLeaf(receiverShare, sender, 100);
  r.start();
  drive(r, f);
  CHECK_FALSE(r.failure());
  CHECK(finalShares(r) == Shares{0, 1, 2});
}

TEST_CASE("reduction: the sink lost while hnowd collects - the reduction is redone over the survivors") {
  ThreeShares lab;
  auto& [clock, f, r] = lab;
  r.start();
  while (!f.pending.empty() && f.pending.front().kind != "collect") answerOne(r, f);
  REQUIRE(f.pending.size() == 1);
  r.agentLost("a");
  REQUIRE(f.recomputes == std::vector<Shares>{{0}});
  f.pending.clear();
  r.addLeaf(0, "b", 100);
  r.start();
  CHECK(r.sink() == "b");
  drive(r, f);
  CHECK(finalShares(r) == Shares{0, 1, 2});
}

TEST_CASE("reduction: a step past its deadline drops its agent from the job, its late answer is ignored") {
  ManualClock clock;
  Fake f;
  ReductionOptions options;
  options.slack = 2.0;
  options.grace = 1s;
  JobReduction r(clock, f, costsOf, options);
  r.addLeaf(0, "a", 100);
  r.addLeaf(1, "b", 100);
  r.start();
  REQUIRE(f.pending.size() == 1);  // b -> a: 100 B at 300 B/s, deadline 2 x 0.33 + 1 s
  const Call slow = f.pending.front();
  f.pending.clear();
  clock.advance(1500ms);
  r.tick();
  CHECK(f.recomputes.empty());
  clock.advance(500ms);
  r.tick();  // a (the receiver, running the fetch) is dropped: share 0 again
  CHECK(r.lost().count("a") == 1);
  REQUIRE(f.recomputes == std::vector<Shares>{{0}});
  r.moved(slow.step, {});
  r.addLeaf(0, "b", 100);
  r.start();
  drive(r, f);
  CHECK(finalShares(r) == Shares{0, 1});
}

TEST_CASE("reduction: a reduce command that fails fails the reduction with its reason") {
  ManualClock clock;
  Fake f;
  JobReduction r(clock, f, costsOf);
  r.addLeaf(0, "a", 100);
  r.addLeaf(1, "a", 100);
  r.start();
  REQUIRE(f.pending.size() == 1);
  r.combined(f.pending[0].step, Error{"exit status 2: awk: syntax error"});
  REQUIRE(r.failure());
  CHECK(r.failure()->message.find("awk: syntax error") != std::string::npos);
  CHECK(r.finished());
}

TEST_CASE("reduction: an agent lost while lost shares are computed again - its own are asked for at the next start") {
  ThreeShares lab;
  auto& [clock, f, r] = lab;
  r.agentLost("a");
  r.start();
  REQUIRE(f.recomputes == std::vector<Shares>{{0}});
  r.agentLost("b");  // meanwhile: nothing is under way, nothing to abandon
  CHECK(f.pending.empty());
  r.addLeaf(0, "c", 100);
  r.start();
  REQUIRE(f.recomputes.size() == 2);
  CHECK(f.recomputes[1] == Shares{1});
  r.addLeaf(1, "c", 100);
  r.start();
  CHECK(r.sink() == "c");
  drive(r, f);
  CHECK(finalShares(r) == Shares{0, 1, 2});
  CHECK(r.lost() == std::set<std::string>{"a", "b"});
}

// As ThreeShares, each leaf named by a token ("t0".."t2"), and lost agents
// awaited for 5 s (a restarted agent logs in again within it).
struct ReturningThree {
  ManualClock clock;
  Fake f;
  JobReduction r{clock, f, costsOf, ReductionOptions{2.0, 2s, 8, 5s}};
  ReturningThree() {
    r.addLeaf(0, "a", 100, "t0");
    r.addLeaf(1, "b", 100, "t1");
    r.addLeaf(2, "c", 100, "t2");
  }
};

TEST_CASE("reduction: an agent restarted during its move gives back its share result - re-planned with it, nothing computed again") {
  ReturningThree lab;
  auto& [clock, f, r] = lab;
  r.start();
  REQUIRE(std::any_of(f.pending.begin(), f.pending.end(), [](const Call& c) { return c.from == "c"; }));
  r.agentLost("c");
  CHECK(f.recomputes.empty());  // it may come back with t2
  CHECK(r.waitingForRecompute());
  f.pending.clear();  // abandoned
  clock.advance(1s);
  r.tick();
  CHECK(f.recomputes.empty());
  CHECK(r.agentBack("c", {"t2", "unrelated"}) == std::set<std::string>{"t2"});
  CHECK(r.lost().empty());
  CHECK_FALSE(r.waitingForRecompute());
  drive(r, f);
  CHECK_FALSE(r.failure());
  CHECK(f.recomputes.empty());
  CHECK(finalShares(r) == Shares{0, 1, 2});
}

TEST_CASE("reduction: an agent restarted after it combined gives back the combined partial - its two shares are not computed again") {
  ManualClock clock;
  Fake f;
  JobReduction r{clock, f, costsOf, ReductionOptions{2.0, 2s, 8, 5s}};
  r.addLeaf(0, "a", 100, "t0");
  r.addLeaf(1, "c", 100, "t1");
  r.addLeaf(2, "c", 100, "t2");
  r.start();
  auto combine = std::find_if(f.pending.begin(), f.pending.end(), [](const Call& c) { return c.kind == "combine"; });
  REQUIRE(combine != f.pending.end());
  REQUIRE(combine->agent == "c");
  const Call c = *combine;
  f.pending.erase(combine);
  r.combined(c.step, CombinedFile{200, "t12", "d"});  // c drops t1 and t2: its partial alone holds them
  r.agentLost("c");
  CHECK(f.recomputes.empty());
  f.pending.clear();
  CHECK(r.agentBack("c", {"t12"}) == std::set<std::string>{"t12"});
  drive(r, f);
  CHECK_FALSE(r.failure());
  CHECK(f.recomputes.empty());
  CHECK(finalShares(r) == Shares{0, 1, 2});
}

TEST_CASE("reduction: an agent back without its share result, or not back within the grace - its share is computed again then") {
  SUBCASE("back holding nothing: at once") {
    ReturningThree lab;
    auto& [clock, f, r] = lab;
    r.start();
    r.agentLost("c");
    f.pending.clear();
    CHECK(r.agentBack("c", {}).empty());
    CHECK(f.recomputes == std::vector<Shares>{{2}});
  }
  SUBCASE("not back: once the grace is over") {
    ReturningThree lab;
    auto& [clock, f, r] = lab;
    r.start();
    r.agentLost("c");
    f.pending.clear();
    clock.advance(4s);
    r.tick();
    CHECK(f.recomputes.empty());
    clock.advance(1s);
    r.tick();
    CHECK(f.recomputes == std::vector<Shares>{{2}});
    r.addLeaf(2, "b", 100, "t2b");
    r.start();
    drive(r, f);
    CHECK(finalShares(r) == Shares{0, 1, 2});
  }
}

TEST_CASE("reduction: an agent dropped for a late step is not waited for - its share is computed again at once") {
  ReturningThree lab;
  auto& [clock, f, r] = lab;
  r.start();
  REQUIRE_FALSE(f.pending.empty());
  clock.advance(60s);
  r.tick();  // every step late: its agent is dropped for good
  REQUIRE_FALSE(r.lost().empty());
  REQUIRE(f.recomputes.size() == 1);  // asked for in this tick, not after the grace
  CHECK_FALSE(f.recomputes[0].empty());
}
