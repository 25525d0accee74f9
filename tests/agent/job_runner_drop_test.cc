// A job task dropped while its worker runs: hnowd dropping a
// replica's result, or the agent dropping every job file when it loses
// hnowd. The command is killed and no file stays in .hnow-jobs/, even when
// the drop comes before the worker created its files (found by the fault
// matrix: a stopped hnowd's last reissued share left its result behind).
#include "agent/job_runner.h"
#include "base/hex.h"

#include <doctest/doctest.h>
#include <kj/async-io.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "agent/receiver.h"
#include "cli/run_process.h"
#include "support/why.h"

using hnow::testing::TempDir;
using hnow::testing::why;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST_CASE("a job task dropped before or while its command runs is killed and leaves no file") {
  TempDir dir;
  auto io = kj::setupAsyncIo();
  hnow::SteadyClock clock;
  hnow::agent::Receiver receiver({dir.path.string()}, clock, {});
  hnow::conf::JobsConfig allowAll;
  allowAll.allow = {"*"};
  hnow::agent::JobRunner jobs(receiver, dir.path.string(), hnow::agent::JobPolicy::ofThisHost(allowAll), "hnowd");
  const fs::path jobDir = dir.path / ".hnow-jobs";
  for (bool running : {false, true}) {
    CAPTURE(running);
    const std::string token(32, running ? 'r' : 'b');
    const auto begin = std::chrono::steady_clock::now();
    auto task = jobs.run({}, {"sleep", "5"}, token, 1.0);
    if (running) {  // the worker has created its result file: the command runs
      while (!fs::exists(jobDir / hnow::hexOf(reinterpret_cast<const unsigned char*>(token.data()),
                                                                 token.size())) &&
             std::chrono::steady_clock::now() - begin < 3s)
        std::this_thread::sleep_for(5ms);
      std::this_thread::sleep_for(100ms);
    }
    jobs.drop({token});
    auto outcome = task.wait(io.waitScope);
    REQUIRE(*outcome);
    CHECK(why((*outcome)->ended) == "the task was dropped");
    CHECK(std::chrono::steady_clock::now() - begin < 3s);  // not the 5 s of sleep
    CHECK(fs::is_empty(jobDir));
  }
}
