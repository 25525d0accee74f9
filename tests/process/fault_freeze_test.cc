// The fault matrix, an overloaded hnowd's row: hnowd frozen (SIGSTOP) in the
// middle of a send for longer than the agents' heartbeat timeout (20 s). Every
// agent drops its connection and logs in again once hnowd runs (the same
// instance): the copies hnowd counted lost report again and resume from the
// bytes they hold (docs/reachability.md, "Lost while flowing"); the send
// lands on every agent, byte-identical. Before, each agent dropped its
// transfers with the connection and the send ended with no copy.
#include <doctest/doctest.h>
#include <signal.h>

#include "process/fault_lab.h"

using hnow::testing::eventually;
using hnow::testing::FaultLab;
using hnow::testing::readWhole;
using hnow::testing::writeRandomFile;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST_CASE("fault matrix: hnowd frozen mid-send for 22 s - every agent logs back in, its copy resumes, the send lands everywhere") {
  // Paced so that 6 MiB to 3 agents lasts about 3 s.
  FaultLab lab(3, "--uplink-mbps 40 --source-uplink-mbps 40");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  const fs::path source = lab.dir.path / "source.bin";
  const std::string bytes = writeRandomFile(source, 6 << 20);
  auto send = lab.startClient("send " + source.string() + " --dest in/frozen.bin --json", "send");
  REQUIRE(eventually([&] { return lab.progress("in/frozen.bin", 6 << 20) >= 0.2; }, 20s));
  const pid_t hnowd = lab.pidOf("hnowd");
  REQUIRE(::kill(hnowd, SIGSTOP) == 0);
  std::this_thread::sleep_for(22s);  // past the agents' 20 s heartbeat timeout
  REQUIRE(::kill(hnowd, SIGCONT) == 0);

  auto status = send->waitExit(60s);
  REQUIRE(status.has_value());
  CHECK_MESSAGE(*status == 0, readWhole(lab.errPath("send")));
  for (int k = 1; k <= 3; ++k) CHECK(readWhole(lab.root(k) / "in" / "frozen.bin") == bytes);
  int backAtHnowd = 0;
  for (int k = 1; k <= 3; ++k)
    backAtHnowd += readWhole(lab.dir.path / "logs" / (FaultLab::name(k) + ".log")).find("back at hnowd") !=
                   std::string::npos;
  CHECK(backAtHnowd >= 1);
  const std::string log = readWhole(lab.dir.path / "logs" / "hnowd.log");
  CHECK(log.find("late (this machine is overloaded?)") != std::string::npos);
  MESSAGE("hnowd frozen 22 s mid-send: " << backAtHnowd << " agent(s) reported their transfers again; "
                                        << readWhole(lab.outPath("send")).substr(0, 200));
  CHECK(lab.leftovers() == 0);
}
