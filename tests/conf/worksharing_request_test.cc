#include <doctest/doctest.h>

#include <string>

#include "conf/plan_request.h"

using hnow::conf::parsePlanRequest;
using hnow::conf::WorksharingRequest;

namespace {

std::string errorOf(const std::string& text) {
  auto loaded = parsePlanRequest(text, "ws.toml");
  return loaded ? "" : loaded.error().text();
}

const std::string kHead = "op = \"worksharing\"\nalgo = \"fifo\"\nresult_ratio = 0.5\nlifespan = 60\n";
const std::string kWorkers =
    "[[worker]]\nname = \"a\"\nlink_time = 0.1\ncompute_time = 1\n"
    "[[worker]]\nname = \"b\"\nlink_time = 0.3\ncompute_time = 2\n";

}  // namespace

TEST_CASE("a worksharing request loads with per-worker times and defaults") {
  auto loaded = parsePlanRequest(kHead + kWorkers, "ws.toml");
  REQUIRE(loaded.ok());
  const auto& r = std::get<WorksharingRequest>(loaded.value());
  CHECK(r.algo == "fifo");
  CHECK(r.master == "master");
  CHECK(r.resultRatio == 0.5);
  CHECK(r.lifespan == 60.0);
  CHECK_FALSE(r.work.has_value());
  CHECK(r.selectWorkers);
  REQUIRE(r.workers.size() == 2);
  CHECK(r.workers[1].name == "b");
  CHECK(r.workers[1].linkTime == 0.3);
  CHECK(r.workers[1].computeTime == 2.0);
}

TEST_CASE("a shared compute_time applies to workers that do not set their own") {
  auto loaded = parsePlanRequest(
      "op = \"worksharing\"\nalgo = \"best\"\nresult_ratio = 0\nwork = 100\ncompute_time = 3\n"
      "select_workers = false\nmaster = \"srv\"\n"
      "[[worker]]\nname = \"a\"\nlink_time = 1\n[[worker]]\nname = \"b\"\nlink_time = 2\ncompute_time = 5\n",
      "ws.toml");
  REQUIRE(loaded.ok());
  const auto& r = std::get<WorksharingRequest>(loaded.value());
  CHECK(r.workers[0].computeTime == 3.0);
  CHECK(r.workers[1].computeTime == 5.0);
  CHECK(r.work == 100.0);
  CHECK_FALSE(r.selectWorkers);
  CHECK(r.master == "srv");
}

TEST_CASE("bad worksharing requests are rejected with file:line:column and the fix") {
  CHECK(errorOf("op = \"worksharing\"\nalgo = \"greedy\"\n") ==
        "ws.toml:2:8: unknown algo 'greedy' in the request (expected one of: fifo, lifo, "
        "small-results, best)");
  CHECK(errorOf(kHead + "speed = 2\n" + kWorkers) ==
        "ws.toml:5:9: unknown key 'speed' in the request (expected one of: algo, compute_time, "
        "lifespan, master, op, result_ratio, select_workers, work, worker)");
  CHECK(errorOf("op = \"worksharing\"\nalgo = \"fifo\"\nresult_ratio = 1.5\nlifespan = 1\n" + kWorkers) ==
        "ws.toml:3:16: result_ratio must be between 0 and 1 (seed 002 assumes results no larger than "
        "the work that produced them)");
  CHECK(errorOf(kHead + "work = 5\n" + kWorkers) ==
        "ws.toml:5:8: give either lifespan (the most work in that many seconds) or work (the shortest "
        "time for that many units), not both");
  CHECK(errorOf("op = \"worksharing\"\nalgo = \"fifo\"\nresult_ratio = 0.5\n" + kWorkers)
            .find("missing key 'lifespan' or 'work'") != std::string::npos);
  CHECK(errorOf("op = \"worksharing\"\nalgo = \"fifo\"\nresult_ratio = 0.5\nlifespan = -3\n" + kWorkers) ==
        "ws.toml:4:12: lifespan (seconds) must be greater than 0");
  CHECK(errorOf(kHead + "[[worker]]\nname = \"a\"\nlink_time = 0\ncompute_time = 1\n") ==
        "ws.toml:7:13: link_time of worker 'a' (seconds per work unit between master and worker) must "
        "be greater than 0");
  CHECK(errorOf(kHead + "[[worker]]\nname = \"a\"\nlink_time = 1\n")
            .find("worker 'a' has no compute_time; set it here or once for all workers") != std::string::npos);
  CHECK(errorOf(kHead + "[[worker]]\nname = \"a\"\nlink_time = 1\ncompute_time = 1\n[[worker]]\nname = "
                        "\"a\"\nlink_time = 1\ncompute_time = 1\n") ==
        "ws.toml:10:8: duplicate worker name 'a' (first defined in [[worker]] #1)");
  CHECK(errorOf(kHead + "[[worker]]\nname = \"master\"\nlink_time = 1\ncompute_time = 1\n") ==
        "ws.toml:6:8: worker 'master' has the master's name; rename one of them");
  CHECK(errorOf(kHead + "[[worker]]\nname = \"a\"\nlink = 1\ncompute_time = 1\n")
            .find("unknown key 'link' in [[worker]] #1") != std::string::npos);
  CHECK(errorOf(kHead + "select_workers = \"yes\"\n" + kWorkers)
            .find("'select_workers' in the request must be true or false") != std::string::npos);
  CHECK(errorOf(kHead).find("no [[worker]] tables") != std::string::npos);
}

TEST_CASE("algo best is refused for more than eight workers, at the algo key") {
  std::string text = "op = \"worksharing\"\nalgo = \"best\"\nresult_ratio = 0.5\nlifespan = 1\ncompute_time = 1\n";
  for (int i = 0; i < 9; ++i)
    text += "[[worker]]\nname = \"w" + std::to_string(i) + "\"\nlink_time = 1\n";
  CHECK(errorOf(text) ==
        "ws.toml:2:8: algo 'best' is an exhaustive search over at most 8 workers and this request has "
        "9; use fifo, lifo or small-results");
}
