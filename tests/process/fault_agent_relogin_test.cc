// The fault matrix, a receiving agent's row: an agent frozen (SIGSTOP) in
// the middle of a send, a second process of it started with the same
// config (name, key, data root) while hnowd still holds the frozen one's
// session (its connection stays open), then the frozen one killed. hnowd
// takes the new process's login as the agent lost and back at once: the
// send orders its copy again on the new session, which takes over the temp
// file the frozen process wrote and pulls only what it lacked, in the same
// send: every copy byte-identical, client exit 0. A manifest's item does
// the same for a destination killed and started again at once.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>

#include "process/fault_lab.h"

using hnow::testing::eventually;
using hnow::testing::FaultLab;
using hnow::testing::partialOf;
using hnow::testing::processRunning;
using hnow::testing::readWhole;
using hnow::testing::writeRandomFile;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// The number after the last `marker` in `log`; -1 none.
long long lastNumberAfter(const std::string& log, const std::string& marker) {
  const auto at = log.rfind(marker);
  return at == std::string::npos ? -1 : std::stoll(log.substr(at + marker.size()));
}

bool logged(const fs::path& log, const std::string& line) { return readWhole(log).find(line) != std::string::npos; }

}  // namespace

TEST_CASE("fault matrix: an agent frozen mid-send and a new process of it logged in before its old session ended - the send orders its copy again at once and it resumes from the bytes the frozen one wrote: byte-identical, at most 1.1x the missing bytes moved") {
  FaultLab lab(3, "--uplink-mbps 40 --source-uplink-mbps 40");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  constexpr std::size_t kSize = 16 << 20;
  const fs::path source = lab.dir.path / "source.bin";
  const std::string bytes = writeRandomFile(source, kSize);
  const fs::path hnowdLog = lab.dir.path / "logs" / "hnowd.log", agentLog = lab.dir.path / "logs" / "agent-1.log";
  auto send = lab.startClient("send " + source.string() + " --dest in/big.bin --compress none", "send");
  REQUIRE(eventually([&] { return partialOf(lab.root(1) / "in", "big.bin") >= kSize / 4; }, 20s));
  const pid_t frozen = lab.pidOf("agent-1");
  REQUIRE(::kill(frozen, SIGSTOP) == 0);
  const std::uintmax_t held = partialOf(lab.root(1) / "in", "big.bin");
  REQUIRE(held < kSize);

  const auto again = std::chrono::steady_clock::now();
  lab.restart("agent-1");  // the same config: its name, key and data root
  // Its connection open, the frozen process still held a session when the new one logged in.
  REQUIRE(eventually([&] { return logged(hnowdLog, "agent agent-1 logged in again, keeping nothing"); }, 15s));
  REQUIRE(eventually([&] { return logged(hnowdLog, "agent-1 took it again into "); }, 5s));
  const double reordered = std::chrono::duration<double>(std::chrono::steady_clock::now() - again).count();
  ::kill(frozen, SIGKILL);
  CHECK(eventually([frozen] { return !processRunning(frozen); }, 5s));

  auto status = send->waitExit(60s);
  REQUIRE(status.has_value());
  CHECK_MESSAGE(*status == 0, readWhole(lab.errPath("send")));
  const double done = std::chrono::duration<double>(std::chrono::steady_clock::now() - again).count();
  for (int k = 1; k <= 3; ++k) CHECK(readWhole(lab.root(k) / "in" / "big.bin") == bytes);
  CHECK(logged(hnowdLog, "agent-1 logged in afresh while the send waits for its copy: ordered again"));

  // The new process's data plane moved only what the frozen one lacked.
  const std::string log = readWhole(agentLog);
  const long long kept = lastNumberAfter(log, " resumes after the ");
  const long long moved =
      lastNumberAfter(log, "big.bin is whole, resumed from the part received before; this agent's data plane has received ");
  INFO("held " << held << " bytes on disk when frozen, " << kept << " matched the source's, then received " << moved);
  MESSAGE("fault matrix: agent-1 frozen at " << held << " of " << kSize << " bytes, a new process logged in: copy "
                                             << "ordered again " << reordered << " s after it started, send done "
                                             << done << " s after; " << kSize - held << " bytes missing, " << moved
                                             << " moved by the new process");
  CHECK(kept >= static_cast<long long>(held) - (128 << 10));
  REQUIRE(moved >= 0);
  CHECK(moved <= static_cast<long long>(kSize - held) * 11 / 10);
  REQUIRE(lab.allReady());
  CHECK(eventually([&] { return lab.leftovers() == 0; }, 5s));
  CHECK(lab.followUpSend("in/after.bin", 3));
}

TEST_CASE("fault matrix: a manifest's destination killed mid-copy and started again at once - its item orders the copy again on the new process, which resumes from the bytes it kept: byte-identical, at most 1.1x the missing bytes moved") {
  FaultLab lab(3, "--uplink-mbps 40 --source-uplink-mbps 40");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  constexpr std::size_t kSize = 16 << 20;
  const std::string bytes = writeRandomFile(lab.root(2) / "big.bin", kSize);
  const fs::path manifest = lab.dir.path / "m.toml";
  std::ofstream(manifest) << "[[item]]\nsource = \"agent-2\"\nfile = \"big.bin\"\ndest = \"in/big.bin\"\n"
                             "to = [\"agent-1\", \"agent-3\"]\n";
  const fs::path hnowdLog = lab.dir.path / "logs" / "hnowd.log", agentLog = lab.dir.path / "logs" / "agent-1.log";
  auto send = lab.startClient("send --manifest " + manifest.string(), "manifest");
  REQUIRE(eventually([&] { return partialOf(lab.root(1) / "in", "big.bin") >= kSize / 4; }, 20s));
  REQUIRE(lab.kill("agent-1"));
  const std::uintmax_t held = partialOf(lab.root(1) / "in", "big.bin");
  REQUIRE(held < kSize);
  const auto again = std::chrono::steady_clock::now();
  lab.restart("agent-1");

  REQUIRE(eventually([&] { return logged(hnowdLog, "agent-1 took it again into "); }, 10s));
  const double reordered = std::chrono::duration<double>(std::chrono::steady_clock::now() - again).count();
  auto status = send->waitExit(60s);
  REQUIRE(status.has_value());
  CHECK_MESSAGE(*status == 0, readWhole(lab.errPath("manifest")));
  for (int k : {1, 3}) CHECK(readWhole(lab.root(k) / "in" / "big.bin") == bytes);
  CHECK(logged(hnowdLog, "agent-1 logged in afresh while the send waits for its copy: ordered again"));
  const std::string log = readWhole(agentLog);
  const long long moved =
      lastNumberAfter(log, "big.bin is whole, resumed from the part received before; this agent's data plane has received ");
  MESSAGE("fault matrix: agent-1 killed at " << held << " of " << kSize << " bytes of a manifest's item and started "
                                             << "again: ordered again " << reordered << " s after; " << kSize - held
                                             << " bytes missing, " << moved << " moved by the new process");
  REQUIRE(moved >= 0);
  CHECK(moved <= static_cast<long long>(kSize - held) * 11 / 10);
  REQUIRE(lab.allReady());
  CHECK(eventually([&] { return lab.leftovers() == 0; }, 5s));
}
