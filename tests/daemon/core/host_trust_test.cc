// Adaptive replication (--replicas adaptive), as BOINC's: the ledger, and a
// JobRun that checks only what it must.
#include <doctest/doctest.h>

#include <algorithm>

#include "core/trust/host_trust.h"
#include "core/jobs/job_run.h"
#include "daemon/core/job_recorder.h"

using namespace hnow;
using namespace hnow::daemon;

namespace {

using Recorder = hnow::testing::JobRecorder;

std::vector<JobShare> sharesOn(const std::vector<std::string>& agents) {
  std::vector<JobShare> shares(agents.size());
  for (std::size_t k = 0; k < agents.size(); ++k) {
    shares[k].firstUnit = 10 * k;
    shares[k].units = 10;
    shares[k].agent = agents[k];
    shares[k].plannedComputeEnd = 1.0 + static_cast<double>(k);
  }
  return shares;
}

// Serves and computes every attempt as it comes, each agent answering `digestOf(agent)`.
template <class Digest>
void runAll(JobRun& run, Digest digestOf) {
  for (std::size_t done = 0; done < run.attempts().size();) {
    const std::size_t n = run.attempts().size();
    for (std::size_t id = done; id < n; ++id) run.served(static_cast<int>(id), {});
    for (std::size_t id = done; id < n; ++id)
      run.computed(static_cast<int>(id), 1.0, digestOf(run.attempts()[id].agent));
    done = n;
  }
  for (std::size_t id = 0; id < run.attempts().size(); ++id) run.collected(static_cast<int>(id), {});
}

}  // namespace

TEST_CASE("an agent is trusted after enough agreeing results, checked at random after that, and an overruled result takes its trust away") {
  double draw = 0.5;
  HostTrust trust({3, 0.1}, [&] { return draw; });
  CHECK_FALSE(trust.trusted("a"));
  CHECK(trust.needsCheck("a"));
  for (int i = 0; i < 3; ++i) trust.agreed("a");
  CHECK(trust.trusted("a"));
  CHECK_FALSE(trust.needsCheck("a"));  // 0.5 is not under the recheck fraction
  draw = 0.05;
  CHECK(trust.needsCheck("a"));        // the random tenth
  trust.overruled("a");
  CHECK_FALSE(trust.trusted("a"));
  CHECK(trust.streak("a") == 0);
  CHECK(trust.overrulings("a") == 1);
}

TEST_CASE("--replicas adaptive: untrusted agents' shares are checked, trusted ones run once, and the ledger learns who agreed") {
  ManualClock clock;
  Recorder actions;
  double draw = 0.9;
  HostTrust trust({2, 0.1}, [&] { return draw; });
  JobRunOptions options;
  options.replicas = 2;
  options.maxAttempts = 4;
  options.adaptive = &trust;
  // First run: nobody is trusted, so every share runs on a second agent.
  JobRun first(clock, actions, sharesOn({"a", "b", "c"}), {0, 1, 2}, {"a", "b", "c"}, options);
  first.start();
  runAll(first, [](const std::string&) { return Result<std::string>(std::string("right")); });
  CHECK(first.finished());
  CHECK_FALSE(first.failure());
  CHECK(first.checked() == 3);
  CHECK(first.attempts().size() == 6);
  // Each agent computed two shares and agreed twice: trusted now.
  CHECK(trust.trusted("a"));
  CHECK(trust.trusted("b"));
  CHECK(trust.trusted("c"));

  // Second run: trusted agents' shares run once (no draw under the fraction).
  JobRun second(clock, actions, sharesOn({"a", "b", "c"}), {0, 1, 2}, {"a", "b", "c"}, options);
  second.start();
  runAll(second, [](const std::string&) { return Result<std::string>(std::string("right")); });
  CHECK(second.finished());
  CHECK(second.checked() == 0);
  CHECK(second.attempts().size() == 3);

  // Third run: every share drawn for a check; c has turned bad. Its wrong
  // results are overruled by the majority and its trust is gone.
  draw = 0.01;
  JobRun third(clock, actions, sharesOn({"a", "b", "c"}), {0, 1, 2}, {"a", "b", "c"}, options);
  third.start();
  runAll(third, [](const std::string& agent) {
    return Result<std::string>(std::string(agent == "c" ? "wrong" : "right"));
  });
  CHECK(third.finished());
  CHECK_FALSE(third.failure());
  CHECK(third.checked() == 3);
  CHECK_FALSE(trust.trusted("c"));
  CHECK(trust.overrulings("c") >= 1);
  CHECK(trust.trusted("a"));
  // No result of c's counted.
  for (const JobShare& s : third.shares()) {
    REQUIRE(s.accepted);
    CHECK(third.attempts()[static_cast<std::size_t>(*s.accepted)].agent != "c");
  }
}
