// A job's input in JobService (job_lab.h): opened, cut into units by a
// scan, and served to the agents as byte ranges of it, never held whole.
#include <doctest/doctest.h>

#include <sstream>

#include "daemon/core/job_lab.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace hnow::daemon::jobtest;

namespace {

// The shares' ranges (every range but the calibration sample's, the first)
// in input order: they must cover the input from its start to its end.
void checkSharesCover(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ranges, const std::string& input) {
  REQUIRE(ranges.size() >= 2);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> shares(ranges.begin() + 1, ranges.end());
  std::sort(shares.begin(), shares.end());
  std::uint64_t at = 0;
  for (const auto& [offset, length] : shares) {
    CHECK(offset == at);
    CHECK(length > 0);
    at = offset + length;
    CHECK(input[at - 1] == '\n');  // every share ends with a whole line
  }
  CHECK(at == input.size());
}

}  // namespace

TEST_CASE("the calibration sample and each share are served as byte ranges of the input, covering it once") {
  Lab lab;
  const RunStatus status = lab.runToEnd(lab.count());
  CHECK(status.error.empty());
  const std::string& input = lab.files.inputs.at("/data/lines.txt");
  REQUIRE_FALSE(lab.plane.ranges.empty());
  CHECK(lab.plane.ranges[0].first == 0);  // the sample: the input's first bytes, whole lines
  CHECK(input[lab.plane.ranges[0].second - 1] == '\n');
  checkSharesCover(lab.plane.ranges, input);
  CHECK(totalOf(lab.files.outputs.files.at("run-1.out")) == 3000);
}

TEST_CASE("an input over many index marks, in self-scheduled blocks, runs every unit once") {
  Lab lab;
  std::string input;
  for (int i = 0; i < 40000; ++i) input += "a line of the input, number " + std::to_string(i) + "\n";
  REQUIRE(input.size() > 16 * conf::UnitIndex::kMarkStrideBytes);
  lab.files.inputs["/data/big.txt"] = input;
  RunRequest request = lab.count();
  request.input = "/data/big.txt";
  request.strategy = "self";
  request.blockBytes = 100000;  // blocks that end between marks
  const RunStatus status = lab.runToEnd(request);
  CHECK(status.error.empty());
  CHECK(status.units == 40000);
  checkSharesCover(lab.plane.ranges, input);
  CHECK(lab.plane.ranges.size() > 10);
  CHECK(totalOf(lab.files.outputs.files.at("run-1.out")) == 40000);
  CHECK(lab.plane.served.empty());  // every range released at the end
}

TEST_CASE("a range of the input that cannot be served fails the job, saying so, and an empty input is refused") {
  Lab lab;
  lab.plane.refuseRanges = true;
  const RunStatus status = lab.runToEnd(lab.count());
  CHECK(status.error.find("cannot serve the calibration sample: cannot read the input") == 0);
  CHECK(lab.plane.hashing.empty());

  lab.files.inputs["/data/empty.txt"] = "";
  RunRequest empty = lab.count();
  empty.input = "/data/empty.txt";
  auto refused = lab.jobs.start(empty);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == "--input /data/empty.txt is empty: there is no work unit");
}
