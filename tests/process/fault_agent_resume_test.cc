// The fault matrix, a receiving agent's row: an agent SIGKILLed (a crash)
// or SIGTERMed (a stop, as systemd does it) in the middle of a send, and
// started again. Its partial copy outlives it (agent/receive_records.h):
// the next send of the same file into the same path resumes it, after the
// bytes that still match the source's digests, so the bytes the agent
// receives then are at most 1.1x what it lacked, and the copy is
// byte-identical.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include "process/fault_lab.h"

using hnow::testing::eventually;
using hnow::testing::FaultLab;
using hnow::testing::partialOf;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::writeRandomFile;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

constexpr const char* kLabOptions = "--uplink-mbps 40 --source-uplink-mbps 40";

// Every number after `marker` in `log`, summed (a striped file logs one per range); -1 none.
long long sumAfter(const std::string& log, const std::string& marker) {
  long long sum = -1;
  for (auto at = log.find(marker); at != std::string::npos; at = log.find(marker, at + 1))
    sum = std::max(sum, 0LL) + std::stoll(log.substr(at + marker.size()));
  return sum;
}

void agentStoppedMidSend(int signal, const std::string& options) {
  FaultLab lab(2, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  constexpr std::size_t kSize = 16 << 20;
  const fs::path source = lab.dir.path / "source.bin";
  const std::string bytes = writeRandomFile(source, kSize);
  const std::string send = "send " + source.string() + " --dest in/big.bin " + options;
  auto first = lab.startClient(send, "first");
  REQUIRE(eventually([&] { return lab.progress("in/big.bin", kSize) >= 0.3; }, 20s));
  REQUIRE(lab.kill("agent-1", signal));
  const std::uintmax_t held = partialOf(lab.root(1) / "in", "big.bin");
  REQUIRE(first->waitExit(60s).has_value());
  CHECK(readWhole(lab.root(2) / "in" / "big.bin") == bytes);
  REQUIRE(eventually([&] { return lab.stateOf("agent-1") == "lost"; }, 10s));
  CHECK(held > 0);
  CHECK(held < kSize);

  lab.restart("agent-1");
  REQUIRE(lab.allReady());
  // The start kept the partial copy for the next send of it.
  CHECK(partialOf(lab.root(1) / "in", "big.bin") == held);
  auto again = runCommand(lab.hnow() + " " + send + " --json");
  REQUIRE_MESSAGE(again.status == 0, again.err);
  CHECK(readWhole(lab.root(1) / "in" / "big.bin") == bytes);

  const std::string log = readWhole(lab.dir.path / "logs" / "agent-1.log");
  const long long kept = sumAfter(log, " resumes after the ");
  const long long moved = sumAfter(log, "big.bin is whole, resumed from the part received before; this agent's data plane "
                                        "has received ");
  INFO("held " << held << " bytes on disk, " << kept << " matched the source's, then received " << moved);
  MESSAGE("fault matrix: agent stopped by signal " << signal << " mid-send " << options << ": " << kSize - held
                                                   << " bytes missing, " << moved << " moved after its restart");
  // Each chunk written before the stop was whole and is kept (at most the
  // chunk being written when it stopped is not).
  CHECK(kept >= static_cast<long long>(held) - (128 << 10));
  REQUIRE(moved >= 0);
  CHECK(moved <= static_cast<long long>(kSize - held) * 11 / 10);
  CHECK(eventually([&] { return lab.leftovers() == 0; }, 5s));
  CHECK(lab.followUpSend("in/after.bin", 2));
}

}  // namespace

TEST_CASE("fault matrix: an agent killed mid-send of a file resumes its partial copy at the next send of it, after the bytes that match the source's: byte-identical, at most 1.1x the missing bytes moved") {
  agentStoppedMidSend(SIGKILL, "--compress none --algo flat");
}

TEST_CASE("fault matrix: an agent stopped mid-send of a striped file keeps its partial copy too, and the next send resumes each stripe from its own bytes") {
  agentStoppedMidSend(SIGTERM, "--compress none --algo striped");
}
