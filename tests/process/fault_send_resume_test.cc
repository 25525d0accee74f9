// The fault matrix, a send's row under the coordinator: hnowd SIGKILLed (or
// SIGTERMed) in the middle of a send of a path on its host - a file, a
// striped file, a compressed file, a tree - and started again with the
// same data directory and key. The client fails at once saying hnowd keeps
// the send; the agents park their partial receives when they log in to the
// restarted hnowd; it runs the send again under the same record, each
// agent resuming after the bytes it held, so every copy is whole and
// byte-identical, the record ends "done", and the bytes moved after the
// restart (the agents' data plane counters) are at most 1.1x what was
// missing.
#include <doctest/doctest.h>

#include <fstream>
#include <random>

#include "process/send_resume_checks.h"

using hnow::testing::eventually;
using hnow::testing::FaultLab;
using hnow::testing::readWhole;
using hnow::testing::writeRandomFile;
using namespace hnow::testing::send_resume;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// `size` bytes of random hex digits: zstd halves them.
std::string writeHexFile(const fs::path& path, std::size_t size) {
  std::mt19937_64 random(size);
  std::string text(size, '0');
  for (char& c : text) c = "0123456789abcdef"[random() % 16];
  std::ofstream(path, std::ios::binary) << text;
  return text;
}

// A tree of `count` random files part-0, part-1, ... of `size` bytes: their bytes.
std::vector<std::string> writeParts(const fs::path& tree, int count, std::size_t size) {
  std::vector<std::string> files;
  for (int i = 0; i < count; ++i) files.push_back(writeRandomFile(tree / ("part-" + std::to_string(i)), size, i));
  return files;
}

// Every agent's in/tree holds `files` as part-0, part-1, ...
void checkParts(const FaultLab& lab, const std::vector<std::string>& files) {
  for (int k = 1; k <= 3; ++k)
    for (std::size_t i = 0; i < files.size(); ++i)
      CHECK(readWhole(lab.root(k) / "in" / "tree" / ("part-" + std::to_string(i))) == files[i]);
}

// SIGKILL (a crash) or SIGTERM (a stop, as systemd does it): the same;
// `options` of hnow send (--algo striped, --compress zstd: then the file
// is text, and what moves its compressed frame).
void killMidSend(int signal, const std::string& options = "--compress none") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  constexpr std::size_t kSize = 16 << 20;
  const bool compressed = options.find("zstd") != std::string::npos;
  const fs::path source = lab.dir.path / "source.bin";
  const std::string bytes = compressed ? writeHexFile(source, kSize) : writeRandomFile(source, kSize);
  auto send = lab.startClient("send " + source.string() + " --dest in/big.bin " + options, "send");
  // A compressed frame is about half the file.
  REQUIRE(eventually([&] { return lab.progress("in/big.bin", kSize) >= (compressed ? 0.2 : 0.4); }, 20s));
  const std::int64_t record = stopHnowd(lab, *send, signal);
  restartUntilDone(lab, record);
  for (int k = 1; k <= 3; ++k) CHECK(readWhole(lab.root(k) / "in" / "big.bin") == bytes);
  long long total = kSize;
  if (compressed)
    for (const auto& op : lab.ops())
      if (op["id"].get<std::int64_t>() == record) total = op["summary"]["sent_size"].get<long long>();

  const Accounted a = accountFor(lab, "big.bin", total);
  MESSAGE("fault matrix: hnowd stopped by signal " << signal << " mid-send " << options << ": " << a.missing
                                                   << " bytes missing at the restart, " << a.moved
                                                   << " moved after it; bytes held:" << a.held);
  CHECK(a.moved <= a.missing * 11 / 10);
  CHECK(lab.followUpSend("in/after.bin", 3));
}

}  // namespace

TEST_CASE("fault matrix: hnowd killed mid-send of a file - the restarted hnowd runs it again under its record, each agent resuming from its partial copy: every copy whole, at most 1.1x the missing bytes moved") {
  killMidSend(SIGKILL);
}

TEST_CASE("fault matrix: hnowd stopped mid-send of a file - the same as killed: resumed under its record from the agents' partial copies") {
  killMidSend(SIGTERM);
}

// A tree's files are published once its bundle's digest matched
// (docs/tree-send.md), so a tree cut midway holds none of them; its
// bundle is parked, and the restarted hnowd packs the same bundle again
// (every agent lacks the same files), which resumes it.
TEST_CASE("fault matrix: hnowd killed mid-send of a tree - the restarted hnowd sends it again under its record, each agent resuming its bundle: every tree whole, at most 1.1x the missing bytes moved") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  const fs::path tree = lab.dir.path / "tree";
  std::vector<std::string> files = writeParts(tree, 8, 2 << 20);
  auto send = lab.startClient("send " + tree.string() + " --dest in/tree --compress none", "send");
  REQUIRE(eventually([&] { return lab.leftovers() > 0; }, 20s));  // the bundle is arriving
  std::this_thread::sleep_for(1s);
  const std::int64_t record = stopHnowd(lab, *send, SIGKILL);
  restartUntilDone(lab, record);
  checkParts(lab, files);
  nlohmann::json summary;
  for (const auto& op : lab.ops())
    if (op["id"].get<std::int64_t>() == record) summary = op["summary"];
  REQUIRE(summary.contains("size"));
  CHECK_FALSE(summary.contains("groups"));
  const Accounted a = accountFor(lab, "tree", summary["size"].get<long long>());
  MESSAGE("fault matrix: hnowd killed (SIGKILL) mid-send of a tree: " << a.missing << " bytes of its bundle missing at "
                                                                      << "the restart, " << a.moved
                                                                      << " moved after it; bytes held:" << a.held);
  CHECK(a.moved <= a.missing * 11 / 10);
}

// A tree whose agents lack different files goes as a bundle per group, all
// under one record (docs/tree-send.md): a group that lands first must not
// end that record, or the restarted hnowd would not send the tree again
// to the group still receiving.
TEST_CASE("fault matrix: hnowd killed mid-send of a tree sent as a bundle per group, after one group landed - the restarted hnowd sends it again under its one record to the agent still receiving, which resumes its bundle") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  const fs::path tree = lab.dir.path / "tree";
  std::vector<std::string> files = writeParts(tree, 8, 4 << 20);
  // Last week's tree reached agent-1 and agent-2 only; this week a small file joined it.
  auto before = hnow::testing::runCommand(lab.hnow() + " send " + tree.string() +
                                          " --dest in/tree --compress none --to agent-1,agent-2");
  REQUIRE_MESSAGE(before.status == 0, before.err);
  files.push_back(writeRandomFile(tree / "part-8", 64 << 10, 8));
  auto send = lab.startClient("send " + tree.string() + " --dest in/tree --compress none", "send");
  // agent-1 and agent-2 take their small bundle; agent-3's 32 MiB is still arriving.
  const fs::path added1 = lab.root(1) / "in" / "tree" / "part-8", added2 = lab.root(2) / "in" / "tree" / "part-8";
  REQUIRE(eventually([&] { return fs::exists(added1) && fs::exists(added2); }, 20s));
  const std::string hnowdLog = readWhole(lab.dir.path / "logs" / "hnowd.log");
  REQUIRE_MESSAGE(hnowdLog.find("2 groups of agents by the files they lack") != std::string::npos, hnowdLog);
  // (Its group may start a moment later: its bundle is hashed first.)
  REQUIRE(eventually([&] { return lab.leftoversUnder(lab.root(3)) > 0; }, 10s));
  std::this_thread::sleep_for(1s);
  const std::int64_t record = stopHnowd(lab, *send, SIGKILL);
  restartUntilDone(lab, record);
  checkParts(lab, files);
  const Resumed r = resumedOf(lab, 3, (lab.root(3) / "in" / "tree").string());
  INFO("agent-3: parked at " << r.parkedAt << ", received " << r.before << " then " << r.after);
  REQUIRE(r.parkedAt > 0);
  REQUIRE(r.after >= r.before);
  // Run again, the send goes to agent-3 alone (the others hold the tree):
  // the same bundle it was receiving, whose size the record gives.
  nlohmann::json summary;
  for (const auto& op : lab.ops())
    if (op["id"].get<std::int64_t>() == record) summary = op["summary"];
  REQUIRE(summary.contains("size"));
  const long long bundle = summary["size"].get<long long>();
  MESSAGE("fault matrix: hnowd killed mid-send of a tree in two groups: agent-3 missed "
          << bundle - r.parkedAt << " bytes of about " << bundle << " at the restart, " << r.after - r.before
          << " moved to it after");
  CHECK(r.after - r.before <= (bundle - r.parkedAt) * 11 / 10);
}

// A compressed file's frame is received into a scratch file beside it and
// expanded once whole: parked and resumed as a file is.
TEST_CASE("fault matrix: hnowd killed mid-send of a compressed file - resumed under its record, each agent resuming its compressed frame: every copy whole, at most 1.1x the missing bytes moved") {
  killMidSend(SIGKILL, "--compress zstd");
}

// A striped file's stripes are byte ranges of one temp file, each with
// its bytes in order and its digest: parked and resumed together when the
// restarted hnowd cuts the same stripes (the same agents and rates).
TEST_CASE("fault matrix: hnowd killed mid-send of a striped file - resumed under its record, each agent resuming its stripes: every copy whole, at most 1.1x the missing bytes moved") {
  killMidSend(SIGKILL, "--compress none --algo striped");
}

TEST_CASE("fault matrix: hnowd killed mid-send with an agent gone too - while the restarted hnowd waits for it, hnow status and hnow ops show the send, whom it waits for and how long more") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  constexpr std::size_t kSize = 16 << 20;
  const fs::path source = lab.dir.path / "source.bin";
  writeRandomFile(source, kSize);
  auto send = lab.startClient("send " + source.string() + " --dest in/big.bin --compress none", "send");
  REQUIRE(eventually([&] { return lab.progress("in/big.bin", kSize) >= 0.4; }, 20s));
  const std::int64_t record = stopHnowd(lab, *send, SIGKILL);
  REQUIRE(lab.kill("agent-3"));
  lab.restart("hnowd");
  // agent-1 and agent-2 log in again; agent-3 does not, so the send waits for it (10 s at most).
  nlohmann::json waiting;
  REQUIRE(eventually(
      [&] {
        auto status = lab.status();
        if (!status.contains("waiting_sends") || status["waiting_sends"].empty()) return false;
        waiting = status["waiting_sends"][0];
        return waiting["waiting_for"] == nlohmann::json::array({"agent-3"});
      },
      10s));
  CHECK(waiting["record"] == record);
  CHECK(waiting["path"] == source.string());
  CHECK(waiting["dest"] == "in/big.bin");
  CHECK(waiting["agents"] == nlohmann::json::array({"agent-1", "agent-2", "agent-3"}));
  CHECK(waiting["seconds_left"].get<double>() > 0);
  CHECK(waiting["seconds_left"].get<double>() <= 10);
  std::string progress;
  for (const auto& op : lab.ops())
    if (op["id"].get<std::int64_t>() == record) {
      CHECK(op["status"] == "running");
      progress = op.value("progress", "");
    }
  CHECK_MESSAGE(progress.rfind("waiting for agent-3 after hnowd's restart (at most ", 0) == 0, progress);
  const std::string table = hnow::testing::runCommand(lab.hnow() + " status").out;
  CHECK(table.find("runs again after hnowd's restart (send record " + std::to_string(record) + "): " +
                   source.string() + " -> in/big.bin to 3 agent(s), waiting for agent-3 at most ") != std::string::npos);
  // Then it runs for the two back, and is no longer listed.
  REQUIRE(eventually([&] { return statusOf(lab, record) != "running"; }, 60s));
  CHECK(lab.status()["waiting_sends"].empty());
  lab.restart("agent-3");
  REQUIRE(lab.allReady());
}
