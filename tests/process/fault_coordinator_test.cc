// The fault matrix, the coordinator's row: hnowd SIGTERMed (a stop) or
// SIGKILLed (a crash) in the middle of a job, and an agent SIGKILLed
// mid-job. The client fails at once with a clear message and a non-zero
// exit; the agents keep their shares running for the hnowd started again,
// which resumes the job and collects them; the agents register again by
// themselves and the next request succeeds. An agent killed mid-job leaves
// .hnow-jobs/ files, swept when it starts again. A send killed midway:
// fault_send_resume_test.cc.
#include <doctest/doctest.h>

#include <random>
#include <sstream>
#include <thread>

#include "process/fault_lab.h"

using hnow::testing::eventually;
using hnow::testing::FaultLab;
using hnow::testing::logLineHas;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// Paced so a 3 MiB send to 3 agents lasts about 1.5 s; compute factor 1.
constexpr const char* kLabOptions = "--uplink-mbps 40 --source-uplink-mbps 40";

std::string words(std::size_t lines) {
  std::mt19937 random(static_cast<unsigned>(lines));
  std::string text;
  for (std::size_t i = 0; i < lines; ++i)
    for (int w = 0; w < 6; ++w) {
      for (int c = 0; c < 5; ++c) text += static_cast<char>('a' + random() % 26);
      text += w == 5 ? '\n' : ' ';
    }
  return text;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::size_t countIn(const fs::path& dir) {
  std::size_t n = 0;
  std::error_code error;
  for (auto it = fs::directory_iterator(dir, error); !error && it != fs::directory_iterator(); it.increment(error)) ++n;
  return n;
}

// Files under every agent's .hnow-jobs/.
int jobFiles(const FaultLab& lab) {
  int n = 0;
  for (int k = 1; k <= lab.agents(); ++k) n += static_cast<int>(countIn(lab.root(k) / ".hnow-jobs"));
  return n;
}

// Their names, for a failure's message.
std::string jobFileList(const FaultLab& lab) {
  std::string list;
  for (int k = 1; k <= lab.agents(); ++k) {
    std::error_code error;
    for (const auto& e : fs::directory_iterator(lab.root(k) / ".hnow-jobs", error))
      list += " " + FaultLab::name(k) + ":" + e.path().filename().string();
  }
  return list;
}

// A job whose every command run leaves a marker and then sleeps, so a test
// can act while shares are on the agents.
struct SlowJob {
  fs::path input, output, markers;
  std::string text;
  SlowJob(const FaultLab& lab, double sleepS) {
    input = lab.dir.path / "words.txt";
    output = lab.dir.path / "words.out";
    markers = lab.dir.path / "markers";
    fs::remove_all(markers);
    fs::create_directories(markers);
    text = words(3000);
    std::ofstream(input) << text;
    args = "run --input " + input.string() + " --shell --cmd 'touch " + markers.string() + "/$$; sleep " +
           std::to_string(sleepS) + "; tr a-z A-Z' --concat --output " + output.string();
  }
  std::string args;
  std::size_t runs() const { return countIn(markers); }
};

// hnowd SIGKILLed and started again; the job `record` it resumes is
// followed to its end, which must be "done".
void killAndResume(FaultLab& lab, std::int64_t record) {
  REQUIRE(lab.kill("hnowd"));
  lab.restart("hnowd");
  REQUIRE(lab.allReady(15s));
  auto waited = runCommand(lab.hnow() + " ops wait " + std::to_string(record));
  CHECK_MESSAGE(waited.status == 0, waited.err);
}

}  // namespace

// SIGTERM here (a stop, as systemd does it), SIGKILL in the tests below (a crash).
TEST_CASE("fault matrix: hnowd stopped mid-job - the client says hnowd keeps it, agents keep their shares, the restarted hnowd resumes it and collects them, the next run works") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  SlowJob job(lab, 1.0);
  auto run = lab.startClient(job.args, "run");
  // Calibration runs the command twice per agent; the 7th run is a share.
  REQUIRE(eventually([&] { return job.runs() >= 7; }, 20s));
  const int held = jobFiles(lab);
  CHECK(held > 0);  // shares are on the agents
  REQUIRE(lab.kill("hnowd", SIGTERM));
  const std::string log = readWhole(lab.dir.path / "logs" / "hnowd.log");
  CHECK(log.find("stopping on signal 15") != std::string::npos);
  CHECK(log.find("marked interrupted") == std::string::npos);  // a --concat job is kept to resume

  auto status = run->waitExit(10s);
  REQUIRE(status.has_value());
  CHECK(*status == 1);
  CHECK(readWhole(lab.errPath("run")).find("lost hnowd while running") != std::string::npos);
  CHECK(readWhole(lab.errPath("run")).find("when it is back it resumes it") != std::string::npos);
  // The agents go on with their shares and keep them for the restarted hnowd.
  std::this_thread::sleep_for(1500ms);
  CHECK(jobFiles(lab) > 0);
  CHECK_FALSE(fs::exists(job.output));
  MESSAGE("fault matrix: hnowd stopped (SIGTERM) mid-job: client exit " << *status << ", " << held
                                                              << " job files on the agents, kept for the next hnowd");

  // What a crash while writing the --output leaves (the stop above came
  // earlier): the temp file beside it and its marker in jobs/
  // (daemon/server/output_temps.h). The restart removes the temp file.
  const fs::path half = job.output.parent_path() / ("." + job.output.filename().string() + ".hnow-1.part");
  std::ofstream(half) << "half a result";
  fs::create_directories(lab.dir.path / "hnowd" / "jobs");
  std::ofstream(lab.dir.path / "hnowd" / "jobs" / "output-1.temp")
      << job.output.parent_path().string() << "\n" << half.filename().string() << "\n";
  lab.restart("hnowd");
  // The agents retried every 5 s at most meanwhile; under load a login takes longer.
  REQUIRE(lab.allReady(20s));
  CHECK_FALSE(fs::exists(lab.dir.path / "hnowd" / "jobs" / "output-1.temp"));  // swept at start
  CHECK_FALSE(fs::exists(half));
  CHECK(readWhole(lab.dir.path / "logs" / "hnowd.log").find("removed " + half.string() + ", the half-written --output") !=
        std::string::npos);
  // The stopped job resumed, and its output is whole.
  auto ops = lab.ops();
  REQUIRE(!ops.empty());
  auto resumed = runCommand(lab.hnow() + " ops wait " + std::to_string(ops[0]["id"].get<std::int64_t>()));
  CHECK_MESSAGE(resumed.status == 0, resumed.err);
  CHECK(readWhole(job.output) == upper(job.text));
  // The shares the agents computed while hnowd was away were collected.
  CHECK(readWhole(lab.dir.path / "logs" / "hnowd.log").find("collected, not computed again") != std::string::npos);
  auto again = runCommand(lab.hnow() + " run --input " + job.input.string() + " --cmd 'tr a-z A-Z' --concat");
  REQUIRE_MESSAGE(again.status == 0, again.err);
  CHECK(again.out == upper(job.text));
  CHECK_MESSAGE(eventually([&] { return jobFiles(lab) == 0; }, 3s), jobFileList(lab));
}

TEST_CASE("fault matrix: an agent killed mid-job leaves .hnow-jobs files, swept when it starts again") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  SlowJob job(lab, 0.5);
  auto run = lab.startClient(job.args, "run");
  REQUIRE(eventually([&] { return job.runs() >= 7; }, 20s));
  REQUIRE(eventually([&] { return countIn(lab.root(1) / ".hnow-jobs") > 0; }, 5s));
  lab.kill("agent-1");
  CHECK(countIn(lab.root(1) / ".hnow-jobs") > 0);  // what the crash left

  auto status = run->waitExit(30s);
  REQUIRE(status.has_value());
  CHECK_MESSAGE(*status == 0, readWhole(lab.errPath("run")));  // its share was redone elsewhere
  CHECK(readWhole(job.output) == upper(job.text));
  lab.restart("agent-1");
  CHECK(eventually([&] { return countIn(lab.root(1) / ".hnow-jobs") == 0; }, 5s));
  // Logged just after the sweep, so maybe a moment after the files went.
  CHECK(eventually(
      [&] { return readWhole(lab.dir.path / "logs" / "agent-1.log").find("left by an earlier run") != std::string::npos; },
      2s));
  REQUIRE(lab.allReady());
  CHECK(lab.followUpSend("after.bin", 3));
}

TEST_CASE("fault matrix: hnowd killed with a job queued - the next hnowd queues it again under its record and runs it once its agents are back") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  SlowJob job(lab, 1.0);
  auto first = runCommand(lab.hnow() + " " + job.args + " --detach");
  REQUIRE_MESSAGE(first.status == 0, first.err);
  auto second = runCommand(lab.hnow() + " run --input " + job.input.string() + " --cmd 'wc -w' --shell --concat --detach");
  REQUIRE_MESSAGE(second.status == 0, second.err);
  const std::int64_t running = std::stoll(first.out), queued = std::stoll(second.out);
  REQUIRE(eventually([&] { return job.runs() >= 1; }, 20s));
  auto statusOf = [&](std::int64_t id) {
    for (const auto& op : lab.ops())
      if (op["id"].get<std::int64_t>() == id) return op["status"].get<std::string>();
    return std::string();
  };
  CHECK(statusOf(queued) == "queued");

  REQUIRE(lab.kill("hnowd"));
  lab.restart("hnowd");
  REQUIRE(lab.allReady(15s));
  // The running one is resumed (ahead of the queued one, which waits for the same agents).
  auto resumed = runCommand(lab.hnow() + " ops wait " + std::to_string(running));
  CHECK_MESSAGE(resumed.status == 0, resumed.err);
  CHECK(readWhole(job.output) == upper(job.text));
  auto waited = runCommand(lab.hnow() + " ops wait " + std::to_string(queued));
  CHECK_MESSAGE(waited.status == 0, waited.err);
  CHECK(statusOf(queued) == "done");
  auto output = runCommand(lab.hnow() + " ops output " + std::to_string(queued));
  REQUIRE_MESSAGE(output.status == 0, output.err);
  long words = 0;
  std::istringstream counts(output.out);
  for (long n; counts >> n;) words += n;
  CHECK(words == 18000);  // 3000 lines of 6 words
  CHECK(logLineHas(readWhole(lab.dir.path / "logs" / "hnowd.log"), "run " + std::to_string(queued) + ": ",
                   "queued again, as the last hnowd left it"));
}

TEST_CASE("fault matrix: hnowd killed at 10%, 50% and 90% of a job - the next hnowd resumes it: shares accepted before are kept, the output is the uninterrupted one") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  SlowJob job(lab, 0.4);
  for (const long percent : {10L, 50L, 90L}) {
    std::error_code ignored;
    fs::remove(job.output, ignored);
    auto started = runCommand(lab.hnow() + " " + job.args + " --rounds 20 --detach");  // 90% leaves two rounds
    REQUIRE_MESSAGE(started.status == 0, started.err);
    const std::int64_t record = std::stoll(started.out);
    // Until that share of the units is accepted ("running, N of 3000 units").
    auto unitsDone = [&]() -> long {
      for (const auto& op : lab.ops())
        if (op["id"].get<std::int64_t>() == record && op.contains("progress")) {
          const std::string p = op["progress"];
          if (p.rfind("running, ", 0) == 0) return std::stol(p.substr(9));
        }
      return 0;
    };
    REQUIRE(eventually([&] { return unitsDone() >= 30 * percent; }, 60s));
    const long acceptedBefore = unitsDone();
    const std::size_t runsAtKill = job.runs();
    killAndResume(lab, record);
    CHECK(readWhole(job.output) == upper(job.text));
    const std::string log = readWhole(lab.dir.path / "logs" / "hnowd.log");
    CHECK(logLineHas(log, "run " + std::to_string(record) + ": ", "resumed: "));
    MESSAGE("fault matrix: hnowd killed (SIGKILL) at " << percent << "%: " << acceptedBefore
                                                       << " of 3000 units accepted, kept; " << job.runs() - runsAtKill
                                                       << " command runs after the kill");
  }
}

TEST_CASE("fault matrix: hnowd killed mid-job, one-shot and --reduce - the next hnowd resumes each and collects the shares its agents went on computing, the output is the uninterrupted one") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  SlowJob job(lab, 1.0);
  const std::string reduce = "run --input " + job.input.string() + " --shell --cmd 'touch " + job.markers.string() +
                             "/$$; sleep 1; wc -w' --reduce \"awk '{s+=\\$1} END {print s+0}'\" --output " +
                             job.output.string();
  const std::pair<std::string, std::string> cases[] = {{job.args, upper(job.text)}, {reduce, "18000\n"}};
  const std::string kPlannedNone = "0 units in 0 shares by none: every unit was kept or is held by an agent";
  std::size_t resumedCases = 0;
  for (const auto& [args, expected] : cases) {
    CAPTURE(args);
    std::error_code ignored;
    fs::remove(job.output, ignored);
    auto started = runCommand(lab.hnow() + " " + args + " --rounds 1 --detach");
    REQUIRE_MESSAGE(started.status == 0, started.err);
    const std::int64_t record = std::stoll(started.out);
    auto phase = [&]() -> std::string {
      for (const auto& op : lab.ops())
        if (op["id"].get<std::int64_t>() == record && op.contains("progress")) return op["progress"];
      return "";
    };
    // Every agent computing its one share, none finished.
    REQUIRE(eventually([&] { return phase().rfind("running", 0) == 0; }, 30s));
    std::this_thread::sleep_for(400ms);
    const std::size_t runsAtKill = job.runs();
    killAndResume(lab, record);
    CHECK(readWhole(job.output) == expected);
    const std::string log = readWhole(lab.dir.path / "logs" / "hnowd.log");
    CHECK(logLineHas(log, "run " + std::to_string(record) + ": ", "resumed: "));
    CHECK(log.find("collected, not computed again") != std::string::npos);
    // Each agent was computing its one share: the new hnowd plans no unit.
    ++resumedCases;
    std::size_t plannedNone = 0;
    for (auto at = log.find(kPlannedNone); at != std::string::npos; at = log.find(kPlannedNone, at + 1)) ++plannedNone;
    CHECK(plannedNone == resumedCases);
    MESSAGE("fault matrix: hnowd killed (SIGKILL) mid-job (" << std::string(args == reduce ? "--reduce" : "one-shot --concat")
                                                              << "): " << job.runs() - runsAtKill
                                                              << " command runs after the kill");
  }
}

TEST_CASE("fault matrix: hnowd killed mid-job with --replicas 2 - the next hnowd adopts the replicas its agents went on computing: each share runs twice in all, the output is the uninterrupted one") {
  FaultLab lab(3, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  SlowJob job(lab, 1.0);
  // Each run writes how many lines it got: a share has 1000, a calibration run (sample or empty) far fewer.
  const std::string in = (lab.dir.path / "in.").string() + "$$";
  const std::string args = "run --input " + job.input.string() + " --shell --cmd 'cat > " + in + "; wc -l < " + in +
                           " > " + job.markers.string() + "/$$; sleep 1; tr a-z A-Z < " + in + "; rm -f " + in +
                           "' --concat --output " + job.output.string() + " --replicas 2 --rounds 1 --detach";
  auto shareRuns = [&] {
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(job.markers)) {
      long lines = 0;
      std::ifstream(e.path()) >> lines;
      n += lines >= 500;
    }
    return n;
  };
  auto started = runCommand(lab.hnow() + " " + args);
  REQUIRE_MESSAGE(started.status == 0, started.err);
  const std::int64_t record = std::stoll(started.out);
  auto phase = [&]() -> std::string {
    for (const auto& op : lab.ops())
      if (op["id"].get<std::int64_t>() == record && op.contains("progress")) return op["progress"];
    return "";
  };
  // Every agent computing its share, its peer's replica waiting behind it.
  REQUIRE(eventually([&] { return phase().rfind("running", 0) == 0 && shareRuns() >= 3; }, 30s));
  const std::size_t runsAtKill = shareRuns();
  killAndResume(lab, record);
  CHECK(readWhole(job.output) == upper(job.text));
  const std::string log = readWhole(lab.dir.path / "logs" / "hnowd.log");
  CHECK(logLineHas(log, "run " + std::to_string(record) + ": ", "resumed: "));
  CHECK(log.find("collected, not computed again") != std::string::npos);
  CHECK(shareRuns() == 3 * 2);  // no replica ran twice
  MESSAGE("fault matrix: hnowd killed (SIGKILL) mid-job with --replicas 2: " << runsAtKill << " share runs at the kill, "
                                                                              << shareRuns() - runsAtKill
                                                                              << " after (the replicas not started)");
}
