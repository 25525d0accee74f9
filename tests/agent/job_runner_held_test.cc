// A task outlives the call that started it: hnowd's connection may end
// while the command runs (hnowd killed or restarted). The agent follows
// the task's end itself, keeps its outcome, answers a later ask for it
// (awaitJobTask) and, told which files a restarted hnowd still counts on
// (keepJobFiles), drops the others.
#include "agent/job_runner.h"

#include <doctest/doctest.h>
#include <kj/async-io.h>

#include <filesystem>
#include <fstream>

#include "agent/receiver.h"
#include "agent/startup_sweep.h"
#include "cli/run_process.h"
#include "support/why.h"

using hnow::testing::TempDir;
using hnow::testing::why;
namespace fs = std::filesystem;

namespace {

struct Runner {
  TempDir dir;
  kj::AsyncIoContext io = kj::setupAsyncIo();
  hnow::SteadyClock clock;
  hnow::agent::Receiver receiver{{dir.path.string()}, clock, {}};
  hnow::conf::JobsConfig allowAll = [] {
    hnow::conf::JobsConfig c;
    c.allow = {"*"};
    return c;
  }();
  hnow::agent::JobRunner jobs{receiver, dir.path.string(), hnow::agent::JobPolicy::ofThisHost(allowAll), "hnowd"};
};

}  // namespace

TEST_CASE("a task whose caller went away still ends, and its outcome is asked for later") {
  Runner r;
  const std::string token(32, 't');
  {
    // The call dies with hnowd's connection while the command runs.
    auto abandoned = r.jobs.run({}, {"sleep", "0.3"}, token, 1.0, false, 7);
  }
  auto later = r.jobs.outcome(token).wait(r.io.waitScope);
  REQUIRE(*later);
  CHECK((*later)->ended.ok());
  CHECK((*later)->size == 0);  // sleep writes nothing
  CHECK((*later)->runS >= 0.25);
  // Asked again (another restart): at once, the same outcome.
  auto again = r.jobs.outcome(token).wait(r.io.waitScope);
  REQUIRE(*again);
  CHECK((*again)->sha256 == (*later)->sha256);
}

TEST_CASE("an agent asked for a task it never ran says so") {
  Runner r;
  auto none = r.jobs.outcome(std::string(32, 'x')).wait(r.io.waitScope);
  REQUIRE_FALSE(*none);
  CHECK(why(*none).find("runs no task under that token") != std::string::npos);
}

TEST_CASE("keepJobFiles keeps the tasks a restarted hnowd names and drops the others, killing their commands") {
  Runner r;
  const std::string kept(32, 'k'), other(32, 'o');
  auto first = r.jobs.run({}, {"echo", "kept"}, kept, 1.0);
  REQUIRE(*first.wait(r.io.waitScope));
  auto second = r.jobs.run({}, {"sleep", "30"}, other, 1.0);
  const auto held = r.jobs.keepOnly({kept, std::string(32, 'n')});
  REQUIRE(held.size() == 1);
  CHECK(held[0].token == kept);
  CHECK(held[0].task);
  CHECK(held[0].ended);
  auto dropped = second.wait(r.io.waitScope);  // not the 30 s of sleep: killed
  REQUIRE(*dropped);
  CHECK(why((*dropped)->ended) == "the task was dropped");
  CHECK(*r.jobs.outcome(kept).wait(r.io.waitScope));
  CHECK_FALSE(*r.jobs.outcome(other).wait(r.io.waitScope));
  CHECK(r.jobs.keepOnly({}).empty());
  CHECK_FALSE(r.jobs.holdsAny());
  CHECK(fs::is_empty(r.dir.path / ".hnow-jobs"));
}

TEST_CASE("a result outlives the agent's process: kept beside its outcome, swept around, and given back by the next one") {
  Runner r;
  const std::string token(32, 'g');
  {
    hnow::agent::JobRunner first{r.receiver, r.dir.path.string(), hnow::agent::JobPolicy::ofThisHost(r.allowAll), "hnowd"};
    first.setHolder("ed25519:the-hnowd-key");
    auto ran = first.run({}, {"echo", "given back"}, token, 1.0).wait(r.io.waitScope);
    REQUIRE(*ran);
    REQUIRE((*ran)->ended.ok());
    auto other = first.run({}, {"sleep", "30"}, std::string(32, 'x'), 1.0);  // killed with the agent
  }
  // The start-up sweep of the next process keeps the result and its outcome only.
  std::ofstream(r.dir.path / ".hnow-jobs" / "stale-input") << "left over";
  const auto swept = hnow::agent::sweepLeftovers({r.dir.path.string()});
  CHECK(swept.resultsKept == 2);
  CHECK_FALSE(fs::exists(r.dir.path / ".hnow-jobs" / "stale-input"));
  hnow::agent::JobRunner next{r.receiver, r.dir.path.string(), hnow::agent::JobPolicy::ofThisHost(r.allowAll), "hnowd"};
  CHECK(next.restoreHeld() == "ed25519:the-hnowd-key");
  const auto ended = next.endedTasks();
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].token == token);
  auto back = next.outcome(token).wait(r.io.waitScope);
  REQUIRE(*back);
  CHECK((*back)->size == 11);  // "given back\n"
  next.drop({token});
  CHECK(fs::is_empty(r.dir.path / ".hnow-jobs"));
}
