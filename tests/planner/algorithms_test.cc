// The one table of algorithms: what the command line, the request readers
// and the services take from it holds for every row.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "planner/algorithms.h"
#include "planner/schedule_check.h"

using namespace hnow::planner;

TEST_CASE("every use has algorithms and no name twice within a use") {
  for (unsigned use : {kSendUse, kManifestUse, kBroadcastUse, kReduceUse, kClusterBroadcastUse, kClusterMulticastUse,
                       kMulticastUse, kWorksharingUse}) {
    const auto names = algorithmNames(use);
    CHECK_FALSE(names.empty());
    CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  }
  for (const Algorithm& a : algorithms()) {
    CHECK_FALSE(a.help.empty());
    CHECK(a.uses != 0);
  }
}

TEST_CASE("a send's broadcast algorithm is found by its name and named back") {
  for (const Algorithm& a : algorithms()) {
    if (!a.broadcast) continue;
    CAPTURE(a.name);
    CHECK((a.uses & kSendUse) != 0);
    CHECK(broadcastAlgorithmFromName(a.name) == a.broadcast);
    CHECK(std::string(broadcastAlgorithmName(*a.broadcast)) == a.name);
  }
  CHECK(broadcastAlgorithmFromName("pipelined") == BroadcastAlgorithm::kMaxBottleneck);
  CHECK_FALSE(broadcastAlgorithmFromName("auto"));  // a choice among trees, not one tree
  CHECK(findAlgorithm(kSendUse, "striped") != nullptr);
  CHECK(findAlgorithm(kSendUse, "fef") == nullptr);  // a manifest's, not a file's
}

TEST_CASE("every broadcast of hnow plan has an entry whose schedule is a valid broadcast") {
  const std::vector<double> t{1.0, 3.0, 2.0, 5.0, 1.5};
  for (const std::string& name : algorithmNames(kBroadcastUse)) {
    CAPTURE(name);
    const Algorithm* a = findAlgorithm(kBroadcastUse, name);
    REQUIRE(static_cast<bool>(a->sendTimes));
    const SendTimeBroadcast planned = a->sendTimes(t, 0, {});
    CHECK(planned.schedule.size() == t.size() - 1);
    CHECK(checkBroadcast(t, 0, planned.schedule).ok());
    CHECK(planned.provenOptimal.has_value() == (name == "optimal"));
  }
}

TEST_CASE("every multicast heuristic names its algorithm, and only FEF has no preemptive form") {
  int preemptive = 0;
  for (const std::string& name : algorithmNames(kMulticastUse)) {
    const Algorithm* a = findAlgorithm(kMulticastUse, name);
    REQUIRE(a->multicast);
    CHECK((a->uses & kManifestUse) != 0);
    preemptive += a->preemptive;
    if (a->preemptive) CHECK(*a->multicast != MulticastAlgorithm::kFastestEdgeFirst);
  }
  CHECK(preemptive == 5);
}

TEST_CASE("the baselines are the trees other tools build: binomial, chain and flat") {
  std::vector<std::string> baselines;
  for (const Algorithm& a : algorithms())
    if (a.baseline) baselines.emplace_back(a.name);
  CHECK(baselines == std::vector<std::string>{"binomial", "chain", "flat"});
}
