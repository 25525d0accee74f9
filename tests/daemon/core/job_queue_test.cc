// The rule that shares agents between queued jobs (core/jobs/job_queue.h):
// an agent runs one job at a time; higher --priority, then earlier, first;
// no job starts ahead of an earlier-ranked one that wants its agents.
#include <doctest/doctest.h>

#include "core/jobs/job_queue.h"

using namespace hnow::daemon;

namespace {

QueuedJob job(std::uint64_t id, std::vector<std::string> alive, int priority = 0, std::size_t needs = 1) {
  return {id, priority, std::move(alive), needs, "the agents that run jobs"};
}

}  // namespace

TEST_CASE("a job starts on free agents, and one that wants an agent another job runs on waits, naming that job") {
  auto a = admitJobs({job(1, {"a1", "a2"}), job(2, {"a1", "a2"})}, {});
  CHECK(a.start == std::vector<std::uint64_t>{1});
  REQUIRE(a.waiting.count(2));
  CHECK(a.waiting[2] == "its agents run run 1");

  auto busy = admitJobs({job(3, {"a1", "a2", "a3"})}, {{"a2", 1}, {"a3", 2}});
  CHECK(busy.start.empty());
  CHECK(busy.waiting[3] == "its agents run runs 1, 2");
}

TEST_CASE("jobs on disjoint agents start together") {
  auto a = admitJobs({job(1, {"a1"}), job(2, {"a2", "a3"})}, {{"a4", 7}});
  CHECK(a.start == std::vector<std::uint64_t>{1, 2});
  CHECK(a.waiting.empty());
}

TEST_CASE("a higher --priority goes first, equal priorities in the order they were submitted") {
  auto a = admitJobs({job(1, {"a1"}), job(2, {"a1"}, 5), job(3, {"a1"}, 5)}, {});
  CHECK(a.start == std::vector<std::uint64_t>{2});
  CHECK(a.waiting[1] == "its agents run run 2");
  CHECK(a.waiting[3] == "its agents run run 2");

  // Given out of order, the earlier id still goes first among equals.
  auto b = admitJobs({job(9, {"a1"}), job(4, {"a1"})}, {});
  CHECK(b.start == std::vector<std::uint64_t>{4});
}

TEST_CASE("a later job does not take an agent an earlier waiting job wants, but may start on agents nobody ahead wants") {
  // Run 1 waits for a1 (run 9 holds it); run 2 wants a2, which run 1 also
  // wants: it would delay run 1, so it waits behind it.
  auto a = admitJobs({job(1, {"a1", "a2"}), job(2, {"a2"}), job(3, {"a3"})}, {{"a1", 9}});
  CHECK(a.waiting[1] == "its agents run run 9");
  CHECK(a.waiting[2] == "behind run 1, queued ahead of it for the same agents");
  CHECK(a.start == std::vector<std::uint64_t>{3});
}

TEST_CASE("a job with no alive agent waits, saying so, and claims nothing from the jobs behind it") {
  auto a = admitJobs({job(1, {}), job(2, {"a1"})}, {});
  CHECK(a.waiting[1] == "no alive agent among the agents that run jobs");
  CHECK(a.start == std::vector<std::uint64_t>{2});

  auto replicas = admitJobs({job(3, {"a1"}, 0, 2)}, {});
  CHECK(replicas.start.empty());
  CHECK(replicas.waiting[3] == "--replicas needs 2 alive agents among the agents that run jobs; 1 is");
}
