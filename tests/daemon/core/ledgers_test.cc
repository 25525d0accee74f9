// The ledgers hnowd keeps per agent across runs outlive hnowd itself
// (state.db's `ledgers`): a relay caught altering bytes stays a suspect,
// and agents trusted by --replicas adaptive stay trusted, after a restart.
#include <doctest/doctest.h>

#include "core/coordinator.h"
#include "core/trust/host_trust.h"
#include "daemon/core/job_lab.h"
#include "daemon/core/memory_state_store.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::jobtest;

TEST_CASE("a relay suspect stays one after hnowd restarts, and forgetting the agent clears its line in state.db") {
  ManualClock clock;
  MemoryStateStore store;
  {
    Coordinator before(clock, RateTableOptions{}, store);
    for (std::uint64_t send = 1; send <= static_cast<std::uint64_t>(kSuspectFaults); ++send)
      before.relayFaultsCaught("send", send, {RelayFault{"n1", "n2", 262144, "the chunk differs"}});
    CHECK(before.relays().suspects().suspect("n1"));
  }
  Coordinator after(clock, RateTableOptions{}, store);
  REQUIRE(after.restore().ok());
  CHECK(after.relays().suspects().suspect("n1"));
  CHECK(after.relays().suspects().faults("n1") == kSuspectFaults);
  CHECK_FALSE(after.relays().suspects().suspect("n2"));

  REQUIRE(store.forgetAgent("n1").ok());
  CHECK(store.loadLedger("relay-faults").value().empty());
}

TEST_CASE("the host-trust ledger written out and read back trusts the same agents") {
  HostTrust trust({2, 0.1}, [] { return 0.5; });
  trust.agreed("a");
  trust.agreed("a");
  trust.agreed("b");
  trust.overruled("c");
  HostTrust back({2, 0.1}, [] { return 0.5; });
  back.restore(trust.ledger());
  CHECK(back.trusted("a"));
  CHECK_FALSE(back.trusted("b"));
  CHECK(back.streak("b") == 1);
  CHECK(back.overrulings("c") == 1);
}

TEST_CASE("agents trusted by earlier adaptive runs are trusted by the next hnowd: their shares mostly run once") {
  // The control: with no ledger, every share of an adaptive run is checked.
  Lab fresh;
  RunRequest request = fresh.count();
  request.adaptiveReplicas = true;
  request.replicas = 2;
  auto untrusted = fresh.runToEnd(request);
  CHECK(untrusted.phase == "done");
  CHECK(untrusted.checked > 0);
  // What that run learnt is in state.db.
  auto learnt = fresh.store.loadLedger(kHostTrustLedger).value();
  CHECK(learnt.size() == 3);
  for (const auto& line : learnt) CHECK(line.first > 0);

  // A restarted hnowd whose ledger trusts every agent: few shares checked.
  Lab restarted;
  restarted.store.saveLedger(kHostTrustLedger, {{"a1", 50, 0}, {"a2", 50, 0}, {"a3", 50, 0}});
  JobService jobs(restarted.coordinator, restarted.plane, restarted.files, "hnowd:7000", restarted.clock,
                  [&restarted](std::function<void()> f) { restarted.turns.push_back(std::move(f)); },
                  [&restarted] { return std::string(24, 'v') + std::to_string(10000000 + restarted.tokens++); }, 12.5e6);
  auto started = jobs.start(request);
  REQUIRE(started.ok());
  for (int i = 0; i < 1000 && !jobs.status(*started)->finished; ++i) {
    while (!restarted.turns.empty()) {
      auto f = std::move(restarted.turns.front());
      restarted.turns.pop_front();
      f();
    }
    jobs.tick();
  }
  auto trusted = jobs.status(*started);
  CHECK(trusted->phase == "done");
  CHECK(trusted->checked < untrusted.checked);
  CHECK(totalOf(restarted.files.outputs.files.at("run-" + std::to_string(*started) + ".out")) == 3000);
}

TEST_CASE("what an adaptive run learns reaches state.db as it learns it, before the run ends") {
  Lab lab;
  RunRequest request = lab.count();
  request.adaptiveReplicas = true;
  request.replicas = 2;
  request.rounds = 6;
  auto started = lab.jobs.start(request);
  REQUIRE(started.ok());
  auto done = [&] {
    const RunStatus status = lab.jobs.status(*started).value();
    std::uint64_t units = 0;
    for (const auto& a : status.agents) units += a.units;
    return units;
  };
  stepUntil(lab, [&] { return done() >= 500; });
  REQUIRE_FALSE(lab.jobs.status(*started)->finished);
  // hnowd could die now: the agreements so far are kept.
  auto kept = lab.store.loadLedger(kHostTrustLedger).value();
  CHECK_FALSE(kept.empty());
  std::int64_t agreements = 0;
  for (const auto& line : kept) agreements += line.first;
  CHECK(agreements > 0);
}
