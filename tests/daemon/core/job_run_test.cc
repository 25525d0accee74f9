// One job's state machine (daemon/core/jobs/job_run.h), driven by hand with a
// manual clock: one serve and one return at a time, deadlines, reissue,
// the first result accepted and duplicates dropped, lost agents.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/jobs/job_run.h"
#include "daemon/core/job_recorder.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;

namespace {

// A result that agrees with every other (digests matter only with --replicas).
const Result<std::string> kDigest = std::string("same");

using Recorder = hnow::testing::JobRecorder;

std::vector<JobShare> threeShares() {
  std::vector<JobShare> shares(3);
  const char* agents[] = {"a", "b", "c"};
  for (int k = 0; k < 3; ++k) {
    shares[k].firstUnit = 10u * k;
    shares[k].units = 10;
    shares[k].agent = agents[k];
    shares[k].plannedServeStart = k;
    shares[k].plannedComputeEnd = k + 5;
  }
  return shares;
}

using Log = std::vector<std::string>;

}  // namespace

TEST_CASE("shares are served one at a time and collected one at a time in return order") {
  ManualClock clock;
  Recorder actions;
  JobRun run(clock, actions, threeShares(), {2, 0, 1}, {"a", "b", "c"});
  run.start();
  CHECK(actions.take() == Log{"serve 0"});
  run.served(0, {});
  CHECK(actions.take() == Log{"compute 0", "serve 1"});
  run.served(1, {});
  run.served(2, {});
  CHECK(actions.take() == Log{"compute 1", "serve 2", "compute 2"});
  run.computed(0, 1.0, kDigest);  // share 0 is second to return: nothing yet
  run.computed(1, 1.0, kDigest);
  CHECK(actions.take().empty());
  run.computed(2, 1.0, kDigest);
  CHECK(actions.take() == Log{"collect 2"});
  run.collected(2, {});
  CHECK(actions.take() == Log{"collect 0"});
  CHECK_FALSE(run.finished());
  run.collected(0, {});
  run.collected(1, {});
  CHECK(run.finished());
  CHECK_FALSE(run.failure());
  CHECK(run.reissued() == 0);
}

TEST_CASE("a share past its deadline is reissued to an idle agent - the first result counts, the other is dropped") {
  ManualClock clock;
  Recorder actions;
  JobRunOptions options;
  options.slack = 2.0;
  options.grace = 1s;
  JobRun run(clock, actions, threeShares(), {0, 1, 2}, {"a", "b", "c"}, options);
  run.start();
  run.served(0, {});
  run.served(1, {});
  run.served(2, {});
  run.computed(1, 1, kDigest);
  run.computed(2, 1, kDigest);
  actions.take();
  clock.advance(10s);  // share 0 predicted 5 s: deadline 2 x 5 + 1 = 11 s
  run.tick();
  CHECK(actions.take().empty());
  clock.advance(2s);
  run.tick();
  REQUIRE(run.attempts().size() == 4);
  CHECK(run.attempts()[3].share == 0);
  CHECK(run.attempts()[3].agent == "b");  // b and c are idle; the pool's order decides
  CHECK(run.reissued() == 1);
  // Share 0 no longer holds the return port: share 1 is collected meanwhile.
  CHECK(actions.take() == Log{"serve 3", "collect 1"});
  run.served(3, {});
  run.computed(3, 1, kDigest);  // the reissue wins: the late original is dropped
  run.computed(0, 9, kDigest);  // and its result, when it comes, ignored
  CHECK(actions.take() == Log{"compute 3", "drop 0"});
  run.collected(1, {});
  CHECK(actions.take() == Log{"collect 3"});  // share 0 is first in return order again
  run.collected(3, {});
  CHECK(actions.take() == Log{"collect 2"});
  run.collected(2, {});
  CHECK(run.finished());
  CHECK_FALSE(run.failure());
  CHECK(run.shares()[0].accepted == 3);
  CHECK(run.attempts()[0].state == JobAttempt::State::kDropped);
}

TEST_CASE("a duplicate result after acceptance is dropped") {
  ManualClock clock;
  Recorder actions;
  JobRunOptions options;
  options.grace = 0s;
  std::vector<JobShare> one(1);
  one[0].units = 5;
  one[0].agent = "a";
  one[0].plannedComputeEnd = 1;
  JobRun run(clock, actions, one, {0}, {"a", "b"}, options);
  run.start();
  run.served(0, {});
  clock.advance(3s);
  run.tick();
  run.served(1, {});
  actions.take();
  run.computed(0, 1, kDigest);  // the original comes first after all
  CHECK(actions.take() == Log{"drop 1", "collect 0"});
  run.computed(1, 1, kDigest);  // ignored: already dropped
  CHECK(actions.take().empty());
  run.collected(0, {});
  CHECK(run.finished());
  CHECK(run.shares()[0].accepted == 0);
}

TEST_CASE("a failing command is reissued elsewhere, and fails the job with its stderr when it fails everywhere") {
  ManualClock clock;
  Recorder actions;
  std::vector<JobShare> one(1);
  one[0].units = 5;
  one[0].agent = "a";
  one[0].plannedComputeEnd = 1;
  JobRunOptions options;
  options.maxAttempts = 2;
  JobRun run(clock, actions, one, {0}, {"a", "b", "c"}, options);
  run.start();
  run.served(0, {});
  run.computed(0, 0, Error{"'x' exited with status 1: boom"});
  CHECK(run.reissued() == 1);
  CHECK(run.attempts()[1].agent == "b");
  run.served(1, {});
  CHECK_FALSE(run.finished());
  run.computed(1, 0, Error{"'x' exited with status 1: boom again"});
  REQUIRE(run.finished());
  REQUIRE(run.failure());
  CHECK(run.failure()->message.find("boom again") != std::string::npos);
  CHECK(run.failure()->message.find("share 1 of 1") != std::string::npos);
}

TEST_CASE("a command that fails once but succeeds elsewhere does not fail the job") {
  ManualClock clock;
  Recorder actions;
  std::vector<JobShare> one(1);
  one[0].units = 5;
  one[0].agent = "a";
  JobRun run(clock, actions, one, {0}, {"a", "b"});
  run.start();
  run.served(0, {});
  run.computed(0, 0, Error{"killed by signal 9"});
  run.served(1, {});
  run.computed(1, 1, kDigest);
  run.collected(1, {});
  CHECK(run.finished());
  CHECK_FALSE(run.failure());
}

TEST_CASE("a lost agent's shares go to the others, including a result not yet collected") {
  ManualClock clock;
  Recorder actions;
  JobRun run(clock, actions, threeShares(), {0, 1, 2}, {"a", "b", "c"});
  run.start();
  run.served(0, {});
  run.served(1, {});
  run.served(2, {});
  run.computed(1, 1, kDigest);  // b holds a result, waiting behind share 0
  actions.take();
  run.agentLost("b");
  run.agentLost("b");  // reported twice: no second reissue
  CHECK(run.reissued() == 1);
  REQUIRE(run.attempts().size() == 4);
  CHECK(run.attempts()[3].share == 1);
  CHECK(run.attempts()[3].agent != "b");
  CHECK(actions.take() == Log{"serve 3"});
  run.computed(0, 1, kDigest);
  run.computed(2, 1, kDigest);
  run.served(3, {});
  run.computed(3, 1, kDigest);
  for (int id : {0, 3, 2}) run.collected(id, {});
  CHECK(run.finished());
  CHECK_FALSE(run.failure());
}

TEST_CASE("without collection (--reduce) the run ends when every share is computed - a loss reopens a share") {
  ManualClock clock;
  Recorder actions;
  JobRunOptions options;
  options.collectResults = false;
  JobRun run(clock, actions, threeShares(), {0, 1, 2}, {"a", "b", "c"}, options);
  run.start();
  for (int id : {0, 1, 2}) run.served(id, {});
  for (int id : {0, 1}) run.computed(id, 1, kDigest);
  run.agentLost("a");  // its partial result is gone with it
  run.computed(2, 1, kDigest);
  CHECK_FALSE(run.finished());
  run.served(3, {});
  run.computed(3, 1, kDigest);
  CHECK(run.finished());
  CHECK_FALSE(run.failure());
  for (const auto& line : actions.log) CHECK(line.rfind("collect", 0) != 0);
}

TEST_CASE("with every agent lost the job fails with a reason") {
  ManualClock clock;
  Recorder actions;
  JobRun run(clock, actions, threeShares(), {0, 1, 2}, {"a", "b", "c"});
  run.start();
  for (const char* agent : {"a", "b", "c"}) run.agentLost(agent);
  REQUIRE(run.failure());
  CHECK(run.failure()->message.find("lost") != std::string::npos);
}

TEST_CASE("self-scheduling (the GNU parallel --pipe baseline): each block goes to the next idle agent, results as ready") {
  ManualClock clock;
  Recorder actions;
  std::vector<JobShare> blocks(4);
  for (int k = 0; k < 4; ++k) blocks[k].units = 1, blocks[k].firstUnit = k, blocks[k].plannedComputeEnd = 1;
  JobRunOptions options;
  options.selfScheduling = true;
  JobRun run(clock, actions, blocks, {0, 1, 2, 3}, {"a", "b"}, options);
  run.start();
  CHECK(actions.take() == Log{"serve 0"});
  run.served(0, {});
  CHECK(actions.take() == Log{"compute 0", "serve 1"});
  run.served(1, {});
  CHECK(actions.take() == Log{"compute 1"});  // both busy: nothing more goes out
  run.computed(1, 1, kDigest);                      // b first: its result comes back, b gets block 2
  CHECK(actions.take() == Log{"collect 1", "serve 2"});
  CHECK(run.attempts()[2].agent == "b");
  run.served(2, {});
  run.computed(0, 1, kDigest);
  run.collected(1, {});
  auto log = actions.take();
  CHECK(log == Log{"compute 2", "serve 3", "collect 0"});
  CHECK(run.attempts()[3].agent == "a");
  run.served(3, {});
  run.computed(2, 1, kDigest);
  run.computed(3, 1, kDigest);
  for (int id : {0, 2, 3}) run.collected(id, {});
  CHECK(run.finished());
  CHECK_FALSE(run.failure());
}

TEST_CASE("--replicas 2: a share counts once two agents agree - a disagreement runs it on a third") {
  ManualClock clock;
  Recorder actions;
  std::vector<JobShare> one(1);
  one[0].units = 5;
  one[0].agent = "a";
  one[0].plannedComputeEnd = 1;
  JobRunOptions options;
  options.replicas = 2;
  options.maxAttempts = 4;
  JobRun run(clock, actions, one, {0}, {"a", "b", "c"}, options);
  run.start();
  run.served(0, {});
  run.served(1, {});
  REQUIRE(run.attempts().size() == 2);
  CHECK(run.attempts()[1].agent == "b");
  actions.take();
  run.computed(0, 1, std::string("digest-x"));
  CHECK(actions.take().empty());           // one result is not enough
  run.computed(1, 1, std::string("digest-y"));      // a lying (or broken) volunteer
  CHECK(run.reissued() == 1);
  REQUIRE(run.attempts().size() == 3);
  CHECK(run.attempts()[2].agent == "c");
  run.served(2, {});
  actions.take();
  run.computed(2, 1, std::string("digest-x"));      // agrees with a
  CHECK(run.shares()[0].accepted == 2);
  auto log = actions.take();
  CHECK(std::find(log.begin(), log.end(), "collect 2") != log.end());
  CHECK(std::find(log.begin(), log.end(), "drop 0") != log.end());  // the agreeing copy is not needed
  CHECK(std::find(log.begin(), log.end(), "drop 1") != log.end());  // nor the disagreeing one
  run.collected(2, {});
  CHECK(run.finished());
  CHECK_FALSE(run.failure());
}

TEST_CASE("rounds: more shares join a running job, an agent computes one share at a time, the run ends after the last round") {
  ManualClock clock;
  Recorder actions;
  std::vector<JobShare> first(1);
  first[0].units = 5;
  first[0].agent = "a";
  JobRun run(clock, actions, first, {0}, {"a", "b"});
  run.setMoreComing(true);
  run.start();
  run.served(0, {});
  CHECK(run.servesIdle());
  std::vector<JobShare> second(2);
  second[0].units = 3, second[0].firstUnit = 5, second[0].agent = "a";
  second[1].units = 2, second[1].firstUnit = 8, second[1].agent = "b";
  run.setMoreComing(false);
  run.addShares(second, {1, 0});
  CHECK(actions.take() == Log{"serve 0", "compute 0", "serve 1"});
  run.served(1, {});  // a is still computing share 0: share 1 waits for it
  CHECK(actions.take() == Log{"serve 2"});
  CHECK(run.attempts()[1].state == JobAttempt::State::kReceived);
  CHECK_FALSE(run.attempts()[1].computeStart);
  clock.advance(3s);
  run.computed(0, 1, kDigest);
  CHECK(actions.take() == Log{"compute 1", "collect 0"});
  // Its compute starts when the agent is free, not when it arrived: the ready time of rounds.
  REQUIRE(run.attempts()[1].computeStart);
  CHECK(*run.attempts()[1].computeStart == clock.now());
  CHECK(*run.attempts()[0].computeStart < clock.now());
  run.served(2, {});
  run.collected(0, {});
  run.computed(2, 1, kDigest);
  run.computed(1, 1, kDigest);
  CHECK(actions.take() == Log{"compute 2", "collect 2"});  // round 2 returns b's share first
  run.collected(2, {});
  CHECK_FALSE(run.finished());
  run.collected(1, {});
  CHECK(run.finished());
  CHECK(run.shares().size() == 3);
}

TEST_CASE("a share waiting behind its agent's previous share is not late: its deadline counts from its compute start") {
  ManualClock clock;
  Recorder actions;
  std::vector<JobShare> two(2);
  for (auto& s : two) s.units = 1, s.agent = "a", s.plannedComputeEnd = 5;  // predicted 5 s each
  JobRunOptions options;
  options.slack = 2.0;
  options.grace = 1s;
  JobRun run(clock, actions, two, {0, 1}, {"a", "b"}, options);
  run.start();
  run.served(0, {});
  run.served(1, {});  // waits for share 0 on a
  clock.advance(9s);
  run.computed(0, 9, kDigest);  // share 1 starts computing at 9 s
  clock.advance(9s);       // 18 s since its serve, 9 s since its compute started: within 2 x 5 + 1
  run.tick();
  CHECK(run.reissued() == 0);
  clock.advance(3s);
  run.tick();
  CHECK(run.reissued() == 1);
}

TEST_CASE("--reduce: handed-over results stay put when their agent is lost, redo computes lost shares elsewhere") {
  ManualClock clock;
  Recorder actions;
  JobRunOptions options;
  options.collectResults = false;
  JobRun run(clock, actions, threeShares(), {0, 1, 2}, {"a", "b", "c"}, options);
  run.start();
  for (int k = 0; k < 3; ++k) run.served(k, {});
  for (int k = 0; k < 3; ++k) run.computed(k, 1.0, kDigest);
  REQUIRE(run.finished());
  run.handOver();
  actions.take();
  run.agentLost("a");  // the reduction decides what is lost (core/jobs/job_reduction.h)
  CHECK(actions.take().empty());
  CHECK(run.finished());
  CHECK(run.reissued() == 0);
  run.redo({0}, {"a", "c"});  // c dropped by the reduction too: b takes it
  CHECK_FALSE(run.finished());
  CHECK(actions.take() == Log{"serve 3"});
  CHECK(run.attempts()[3].agent == "b");
  run.served(3, {});
  CHECK(actions.take() == Log{"compute 3"});
  run.computed(3, 1.0, kDigest);
  CHECK(run.finished());
  CHECK(run.shares()[0].accepted == 3);
  CHECK(run.reissued() == 1);
}

TEST_CASE("rounds with --replicas 2: a later round's shares are replicated on the next agent too") {
  ManualClock clock;
  Recorder actions;
  std::vector<JobShare> first(1);
  first[0].units = 5, first[0].agent = "a";
  JobRunOptions options;
  options.replicas = 2;
  JobRun run(clock, actions, first, {0}, {"a", "b"}, options);
  run.setMoreComing(true);
  run.start();
  run.served(0, {});
  run.served(1, {});
  CHECK(run.attempts().size() == 2);
  CHECK(run.attempts()[1].agent == "b");
  std::vector<JobShare> second(1);
  second[0].units = 3, second[0].firstUnit = 5, second[0].agent = "b";
  run.setMoreComing(false);
  run.addShares(second, {0});
  REQUIRE(run.attempts().size() == 4);
  CHECK(run.attempts()[2].share == 1);
  CHECK(run.attempts()[2].agent == "b");
  CHECK(run.attempts()[3].share == 1);
  CHECK(run.attempts()[3].agent == "a");  // its replica, on the next agent of the pool
}

TEST_CASE("a share an agent has not started can move to another agent, one it computes cannot") {
  ManualClock clock;
  Recorder actions;
  std::vector<JobShare> shares(2);
  for (auto& s : shares) s.units = 4, s.agent = "a";
  shares[1].firstUnit = 4;
  JobRun run(clock, actions, shares, {0, 1}, {"a", "b"});
  run.start();
  run.served(0, {});
  run.served(1, {});  // a computes share 0; share 1 waits on a
  CHECK(actions.take() == Log{"serve 0", "compute 0", "serve 1"});
  CHECK_FALSE(run.moveTo(0, "b"));  // computing
  CHECK_FALSE(run.moveTo(1, "a"));  // a has it already
  REQUIRE(run.moveTo(1, "b"));
  CHECK(actions.take() == Log{"drop 1", "serve 2"});
  CHECK(run.attempts()[1].state == JobAttempt::State::kDropped);
  CHECK(run.attempts()[2].agent == "b");
  CHECK(run.reissued() == 1);
  run.served(2, {});
  CHECK(actions.take() == Log{"compute 2"});
  run.computed(2, 1, kDigest);
  CHECK(actions.take() == Log{});  // share 0 returns first, and it is still computing
  run.computed(0, 1, kDigest);
  CHECK(actions.take() == Log{"collect 0"});
  run.collected(0, {});
  CHECK(actions.take() == Log{"collect 2"});
  run.collected(2, {});
  CHECK(run.finished());
  CHECK_FALSE(run.failure());
}

TEST_CASE("a share accepted from its reissue frees the late agent: its next received share starts computing") {
  // Seen in a rounds job: the slowed agent's late share was reissued and
  // accepted elsewhere; its dropped attempt left the agent "busy", so its
  // next share never started and held the return order forever.
  ManualClock clock;
  Recorder actions;
  std::vector<JobShare> two(2);
  for (auto& s : two) s.units = 1, s.agent = "a", s.plannedComputeEnd = 5;
  JobRunOptions options;
  options.slack = 2.0;
  options.grace = 1s;
  JobRun run(clock, actions, two, {0, 1}, {"a", "b"}, options);
  run.start();
  run.served(0, {});
  run.served(1, {});  // waits behind share 0 on a
  CHECK(actions.take() == Log{"serve 0", "compute 0", "serve 1"});
  clock.advance(12s);  // past share 0's deadline (2 x 5 + 1 s)
  run.tick();
  CHECK(run.reissued() == 1);
  CHECK(actions.take() == Log{"serve 2"});  // share 0 again, on the idle b
  run.served(2, {});
  run.computed(2, 1, kDigest);
  const Log log = actions.take();
  CHECK(std::find(log.begin(), log.end(), "drop 0") != log.end());
  CHECK(std::find(log.begin(), log.end(), "compute 1") != log.end());
  CHECK(run.attempts()[1].state == JobAttempt::State::kComputing);
}

TEST_CASE("a serve still running at its deadline is given up: the serve port goes to the reissue and the shares behind it") {
  ManualClock clock;
  Recorder actions;
  JobRunOptions options;
  options.slack = 2.0;
  options.grace = 1s;
  JobRun run(clock, actions, threeShares(), {0, 1, 2}, {"a", "b", "c"}, options);
  run.start();
  CHECK(actions.take() == Log{"serve 0"});  // a takes its share and never finishes reading it
  clock.advance(10s);                       // predicted 5 s: deadline 2 x 5 + 1 = 11 s
  run.tick();
  CHECK(actions.take().empty());
  clock.advance(2s);
  run.tick();
  REQUIRE(run.attempts().size() == 4);
  CHECK(run.attempts()[0].state == JobAttempt::State::kDropped);
  CHECK(run.attempts()[0].overdue);
  CHECK(run.attempts()[3].share == 0);
  CHECK(run.attempts()[3].agent != "a");
  CHECK(run.reissued() == 1);
  // The port is free: the next share is served at once (the reissue queues
  // behind the shares already waiting), and a late answer from the
  // abandoned serve changes nothing.
  CHECK(actions.take() == Log{"drop 0", "serve 1"});
  run.served(0, {});
  CHECK(actions.take().empty());
  run.served(1, {});
  CHECK(actions.take() == Log{"compute 1", "serve 2"});
  run.served(2, {});
  CHECK(actions.take() == Log{"compute 2", "serve 3"});
  run.served(3, {});
  CHECK(actions.take().empty());  // its agent computes its own share first
  run.computed(1, 1, kDigest);
  // Share 0 no longer holds the return order: share 1 comes back meanwhile.
  CHECK(actions.take() == Log{"compute 3", "collect 1"});
  run.computed(2, 1, kDigest);
  run.computed(3, 1, kDigest);
  CHECK(actions.take().empty());  // the return port is busy
  run.collected(1, {});
  CHECK(actions.take() == Log{"collect 3"});  // share 0, first in return order
  run.collected(3, {});
  CHECK(actions.take() == Log{"collect 2"});
  run.collected(2, {});
  CHECK(run.finished());
  CHECK_FALSE(run.failure());
  CHECK(run.shares()[0].accepted == 3);
}
