#include <doctest/doctest.h>

#include "core/jobs/job_output.h"
#include "support/memory_env.h"

using hnow::daemon::OutputPlace;
using hnow::daemon::placeFinal;
using hnow::daemon::writeConcatenation;
using hnow::testing::MemoryEnv;

TEST_CASE("a concatenated output holds the results in the order given, under its name, and no temp file") {
  MemoryEnv jobs("/var/lib/hnow/jobs"), out("/data");
  jobs.files = {{"result-2", "c\n"}, {"result-0", "a\n"}, {"result-1", "b\n"}};
  out.files["counts.txt"] = "old";
  auto written = writeConcatenation(jobs, {"result-0", "result-1", "result-2"}, {out, "counts.txt", ".counts.txt.part"});
  REQUIRE(written.ok());
  CHECK(*written == 6);
  CHECK(out.files.at("counts.txt") == "a\nb\nc\n");
  CHECK(out.files.size() == 1);
}

TEST_CASE("an output that cannot be written leaves the old one as it was, removes its temp and says where") {
  MemoryEnv jobs, out("/data");
  jobs.files = {{"result-0", "a"}, {"result-1", "b"}};
  out.files["counts.txt"] = "old";

  SUBCASE("the disk fills while writing") {
    out.failing.insert(".counts.txt.part");
    auto written = writeConcatenation(jobs, {"result-0", "result-1"}, {out, "counts.txt", ".counts.txt.part"});
    REQUIRE_FALSE(written.ok());
    CHECK(written.error().message == "cannot write /data/.counts.txt.part: No space left on device");
  }
  SUBCASE("a result cannot be read") {
    jobs.failing.insert("result-1");
    auto written = writeConcatenation(jobs, {"result-0", "result-1"}, {out, "counts.txt", ".counts.txt.part"});
    REQUIRE_FALSE(written.ok());
    CHECK(written.error().message == "cannot read /mem/result-1: Input/output error");
  }
  SUBCASE("the rename into place fails") {
    out.failing.insert("counts.txt");
    auto written = writeConcatenation(jobs, {"result-0", "result-1"}, {out, "counts.txt", ".counts.txt.part"});
    REQUIRE_FALSE(written.ok());
    CHECK(written.error().message == "cannot write /data/counts.txt: rename failed");
  }
  CHECK(out.files.size() == 1);
  CHECK(out.files.at("counts.txt") == "old");
}

TEST_CASE("the temp file is marked before it is made and unmarked once the output is in place") {
  MemoryEnv jobs, out;
  jobs.files = {{"result-0", "a"}};
  int marks = 0;
  std::weak_ptr<void> held;
  OutputPlace place{out, "o", ".o.part", [&]() {
                      ++marks;
                      auto mark = std::make_shared<int>(0);
                      held = mark;
                      return std::shared_ptr<void>(mark);
                    }};
  REQUIRE(writeConcatenation(jobs, {"result-0"}, place).ok());
  CHECK(marks == 1);
  CHECK(held.expired());  // released once the output is in place

  SUBCASE("a final partial on the same file system is renamed: no temp, no mark") {
    out.files["final-3"] = "sum";
    auto placed = placeFinal(out, "final-3", place);
    REQUIRE(placed.ok());
    CHECK(*placed == 3);
    CHECK(marks == 1);
    CHECK(out.files.at("o") == "sum");
    CHECK_FALSE(out.files.count("final-3"));
  }
  SUBCASE("a final partial on another file system is copied through a marked temp") {
    jobs.files["final-3"] = "total";
    auto placed = placeFinal(jobs, "final-3", place);
    REQUIRE(placed.ok());
    CHECK(*placed == 5);
    CHECK(marks == 2);
    CHECK(out.files.at("o") == "total");
    CHECK_FALSE(out.files.count(".o.part"));
  }
}
