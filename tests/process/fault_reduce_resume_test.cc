// The fault matrix, the coordinator's row during a reduction: hnowd
// SIGKILLed while a `--reduce` job combines its partials, after a combine
// ended and dropped its inputs on its agent. The partial it made is in
// state.db from before that drop; the next hnowd finds it on its agent and
// reduces it with the rest: no share is computed again, and the result is
// the uninterrupted one.
#include <doctest/doctest.h>

#include "process/fault_lab.h"

using hnow::testing::eventually;
using hnow::testing::FaultLab;
using hnow::testing::logLineHas;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

std::size_t filesIn(const fs::path& dir) {
  std::size_t n = 0;
  std::error_code error;
  for (auto it = fs::directory_iterator(dir, error); !error && it != fs::directory_iterator(); it.increment(error)) ++n;
  return n;
}

}  // namespace

TEST_CASE("fault matrix: hnowd killed during --reduce's reduction after a combine - the next hnowd reduces the partial its agent holds, no share is computed again, the output is the uninterrupted one") {
  FaultLab lab(3, "--uplink-mbps 40 --source-uplink-mbps 40");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  const fs::path input = lab.dir.path / "numbers.txt", output = lab.dir.path / "sum.txt";
  const fs::path shares = lab.dir.path / "shares", combines = lab.dir.path / "combines", ended = lab.dir.path / "ended";
  for (const auto& d : {shares, combines, ended}) fs::create_directories(d);
  std::string lines;
  long long sum = 0;
  for (int i = 1; i <= 30000; ++i) lines += std::to_string(i * 7 % 1000) + "\n", sum += i * 7 % 1000;
  std::ofstream(input) << lines;
  // Every command run leaves a marker: a share's (calibration included) in
  // one directory, a combine's in another as it starts and in a third once
  // it has written its sum. Three agents reduce in two combines, the second
  // started only once the first was acknowledged; it takes 1 s.
  const std::string sumCmd = "awk '{s+=\\$1} END {print s+0}'";
  auto started = runCommand(lab.hnow() + " run --input " + input.string() + " --shell --rounds 1 --cmd \"touch " +
                            shares.string() + "/\\$\\$; " + sumCmd + "\" --reduce \"touch " + combines.string() +
                            "/\\$\\$; sleep 1; " + sumCmd + "; touch " + ended.string() + "/\\$\\$\" --output " +
                            output.string() + " --detach");
  REQUIRE_MESSAGE(started.status == 0, started.err);
  const std::int64_t record = std::stoll(started.out);
  REQUIRE(eventually([&] { return filesIn(ended) >= 1 && filesIn(combines) >= 2; }, 40s));
  const std::size_t sharesAtKill = filesIn(shares), combinesAtKill = filesIn(combines);
  REQUIRE(filesIn(ended) < combinesAtKill);  // the second combine is under way
  REQUIRE(lab.kill("hnowd"));
  lab.restart("hnowd");
  REQUIRE(lab.allReady(15s));

  auto waited = runCommand(lab.hnow() + " ops wait " + std::to_string(record));
  CHECK_MESSAGE(waited.status == 0, waited.err);
  CHECK(readWhole(output) == std::to_string(sum) + "\n");
  CHECK(filesIn(shares) == sharesAtKill);  // no share's command ran after the kill
  const std::string log = readWhole(lab.dir.path / "logs" / "hnowd.log");
  CHECK(logLineHas(log, "run " + std::to_string(record) + ": ", "resumed: "));
  CHECK(log.find("share(s) are reduced, not computed again") != std::string::npos);
  MESSAGE("fault matrix: hnowd killed (SIGKILL) during --reduce's second combine: "
          << filesIn(shares) - sharesAtKill << " share command runs after the kill, "
          << filesIn(combines) - combinesAtKill << " combine runs after it (" << filesIn(combines) << " in all)");
  CHECK_MESSAGE(eventually([&] { return lab.leftovers() == 0; }, 5s), "job files left on the agents");
}
