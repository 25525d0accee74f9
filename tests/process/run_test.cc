// `hnow run` on a local cluster: real hnowd and agents on
// 127.0.0.1; distributed results equal the command run locally on the
// whole input; a killed agent's share is redone elsewhere; clear errors.
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "cli/run_process.h"
#include "process/child_process.h"

using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TempDir;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

const std::string kHnow = HNOW_BINARY;

// Three agents of the default three-class lab (400/100/25 Mbit/s, compute x1/x2/x4).
struct RunCluster {
  TempDir dir;
  hnow::testing::ProcessResult up;
  explicit RunCluster(const std::string& options = "") {
    up = runCommand(kHnow + " local up --dir " + dir.path.string() + " --agents 3 " + options);
  }
  ~RunCluster() {
    std::vector<pid_t> pids;
    std::error_code error;
    for (const auto& e : fs::directory_iterator(dir.path / "pids", error))
      pids.push_back(static_cast<pid_t>(std::stol("0" + readWhole(e.path()))));
    runCommand(kHnow + " local down --dir " + dir.path.string());
    for (pid_t pid : pids) ::kill(pid, SIGKILL);
  }
  std::string run(const std::string& args) const {
    return kHnow + " --config " + (dir.path / "client.toml").string() + " run " + args;
  }
  pid_t pidOf(int agent) const {
    return static_cast<pid_t>(std::stol("0" + readWhole(dir.path / "pids" / ("agent-" + std::to_string(agent) + ".pid"))));
  }
  nlohmann::json ops() const {
    auto r = runCommand(kHnow + " --config " + (dir.path / "client.toml").string() + " ops --json");
    return r.status == 0 ? nlohmann::json::parse(r.out)["operations"] : nlohmann::json::array();
  }
};

std::string words(std::size_t lines, unsigned seed) {
  std::mt19937 random(seed);
  std::string text;
  for (std::size_t i = 0; i < lines; ++i) {
    for (int w = 0; w < 6; ++w) {
      for (int c = 0; c < 5; ++c) text += static_cast<char>('a' + random() % 26);
      text += w == 5 ? '\n' : ' ';
    }
  }
  return text;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

TEST_CASE("hnow run: tr, an awk sum and sort -n give what the command gives on the whole input") {
  RunCluster cluster;
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path input = cluster.dir.path / "words.txt";
  const std::string text = words(20000, 1);
  std::ofstream(input) << text;

  {  // tr a-z A-Z with --concat to stdout
    auto r = runCommand(cluster.run("--input " + input.string() + " --cmd 'tr a-z A-Z' --concat"));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(r.out == upper(text));
    CHECK(r.err.find("predicted") != std::string::npos);
  }
  {  // bytes:N split, --output written whole, --json report, operation recorded
    const fs::path output = cluster.dir.path / "out.txt";
    auto r = runCommand(cluster.run("--input " + input.string() + " --split bytes:1000 --cmd 'tr a-z A-Z' --concat --order fifo --json --output " +
                                    output.string()));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(readWhole(output) == upper(text));
    auto report = nlohmann::json::parse(r.out);
    CHECK(report["predicted_s"].get<double>() > 0);
    CHECK(report["actual_s"].get<double>() > 0);
    CHECK(report["reissued"] == 0);
    CHECK(report["plan"] == "fifo");
    std::uint64_t units = 0;
    REQUIRE(report["agents"].size() == 3);
    for (const auto& a : report["agents"]) {
      units += a["units"].get<std::uint64_t>();
      CHECK(a["idle_s"].get<double>() >= 0);
    }
    CHECK(units == (text.size() + 999) / 1000);
    for (const auto& e : fs::directory_iterator(cluster.dir.path))
      CHECK(e.path().filename().string().find(".part") == std::string::npos);
    auto ops = cluster.ops();
    REQUIRE(ops.size() >= 1);
    CHECK(ops[0]["kind"] == "run");
    CHECK(ops[0]["status"] == "done");
    CHECK(ops[0]["summary"]["plan"] == "fifo");
  }
  {  // --replicas 2: every share on two agents, results compared
    auto r = runCommand(cluster.run("--input " + input.string() + " --cmd 'tr a-z A-Z' --concat --replicas 2"));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(r.out == upper(text));
    auto four = runCommand(cluster.run("--input " + input.string() + " --cmd cat --concat --replicas 4"));
    CHECK(four.status == 2);  // CLI11's range check: at most 3
  }
  {  // --max-rate: the report and the JSON say it; a bare number is refused before anything runs
    auto r = runCommand(cluster.run("--input " + input.string() + " --cmd 'tr a-z A-Z' --concat --max-rate 40M --json"));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(nlohmann::json::parse(r.out)["max_rate_bps"].get<double>() == 40e6);
    auto table = runCommand(cluster.run("--input " + input.string() + " --cmd 'tr a-z A-Z' --concat --max-rate 40M"));
    REQUIRE_MESSAGE(table.status == 0, table.err);
    CHECK(table.out == upper(text));
    CHECK(table.err.find("hnowd's links at most 40.0 Mbit/s for this run (--max-rate)") != std::string::npos);
    auto bare = runCommand(cluster.run("--input " + input.string() + " --cmd cat --concat --max-rate 40"));
    CHECK(bare.status == 2);
    CHECK(bare.err.find("--max-rate") != std::string::npos);
  }
  {  // --rounds 3: shares in three rounds, each planned on what the last measured
    auto r = runCommand(cluster.run("--input " + input.string() + " --cmd 'tr a-z A-Z' --concat --rounds 3 --order lifo"));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(r.out == upper(text));
  }
  {  // a sum with an awk reduce
    const fs::path numbers = cluster.dir.path / "numbers.txt";
    std::string lines;
    long long sum = 0;
    for (int i = 1; i <= 30000; ++i) lines += std::to_string(i * 7 % 1000) + "\n", sum += i * 7 % 1000;
    std::ofstream(numbers) << lines;
    auto r = runCommand(cluster.run("--input " + numbers.string() +
                                    " --cmd \"awk '{s+=\\$1} END {print s+0}'\" --reduce \"awk '{s+=\\$1} END {print s+0}'\""));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(r.out == std::to_string(sum) + "\n");
    CHECK(r.err.find("reduced along") != std::string::npos);
  }
  {  // sort -n with a sort -n reduce
    const fs::path numbers = cluster.dir.path / "shuffled.txt";
    std::vector<int> values(20000);
    for (int i = 0; i < 20000; ++i) values[i] = i * 3;
    std::shuffle(values.begin(), values.end(), std::mt19937(7));
    std::string lines, sorted;
    for (int v : values) lines += std::to_string(v) + "\n";
    std::sort(values.begin(), values.end());
    for (int v : values) sorted += std::to_string(v) + "\n";
    std::ofstream(numbers) << lines;
    auto r = runCommand(cluster.run("--input " + numbers.string() + " --cmd 'sort -n' --reduce 'sort -n'"));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(r.out == sorted);
  }
}

TEST_CASE("hnow run: an agent killed mid-job has its share redone elsewhere - the result is still right") {
  RunCluster cluster;
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path input = cluster.dir.path / "words.txt";
  const std::string text = words(3000, 2);
  std::ofstream(input) << text;
  const fs::path output = cluster.dir.path / "out.txt";
  const fs::path markers = cluster.dir.path / "markers";
  fs::create_directories(markers);
  // Each run of the command leaves a marker, then takes 0.15 s (x the agent's
  // compute factor). Calibration runs it twice per agent (6 markers); the 7th
  // marker is the first share, served first to agent-1 (the fastest link):
  // agent-1 is killed while it computes.
  const std::string command = "--shell --cmd 'touch " + markers.string() +
                              "/$$; sleep 0.15; tr a-z A-Z' --concat --json --output " + output.string();
  hnow::testing::ChildProcess run({"/bin/sh", "-c", cluster.run("--input " + input.string() + " " + command) + " > " +
                                                         (cluster.dir.path / "report.json").string()},
                                  {}, (cluster.dir.path / "run.err").string());
  auto count = [&] {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(markers)) ++n;
    return n;
  };
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (count() < 7 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  REQUIRE(count() >= 7);
  ::kill(cluster.pidOf(1), SIGKILL);
  auto status = run.waitExit(30s);
  REQUIRE(status.has_value());
  REQUIRE_MESSAGE(*status == 0, readWhole(cluster.dir.path / "run.err"));
  CHECK(readWhole(output) == upper(text));
  auto report = nlohmann::json::parse(readWhole(cluster.dir.path / "report.json"));
  CHECK(report["reissued"].get<int>() >= 1);
}

TEST_CASE("hnow run in rounds: an agent slowed mid-job (set-rate --compute-factor) gets smaller later shares") {
  // A drift event needs the agent's probe (requested by set-rate) to stay
  // off for the dwell time; a short dwell lets it reach the job's rounds.
  RunCluster cluster("--drift-dwell-s 0.2");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path markers = cluster.dir.path / "markers";
  fs::create_directories(markers);
  // 0.2 ms per line (x the compute factor), as bench/run_job.sh: time, not CPU.
  const std::string command = "--shell --cmd 'touch " + markers.string() +
                              "/$$; perl -ne \"select(undef, undef, undef, 0.0002); print uc\"' --concat";
  {  // calibrates the command (kept 5 minutes): the timed job plans at once
    const fs::path small = cluster.dir.path / "small.txt";
    std::ofstream(small) << words(1000, 4);
    auto r = runCommand(cluster.run("--input " + small.string() + " " + command + " --rounds 1"));
    REQUIRE_MESSAGE(r.status == 0, r.err);
  }
  std::size_t before = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(markers)) ++before;
  const fs::path input = cluster.dir.path / "words.txt";
  const std::string text = words(24000, 5);
  std::ofstream(input) << text;
  const fs::path output = cluster.dir.path / "out.txt";
  hnow::testing::ChildProcess run(
      {"/bin/sh", "-c", cluster.run("--input " + input.string() + " " + command + " --rounds 3 --json --output " +
                                    output.string()) + " > " + (cluster.dir.path / "report.json").string()},
      {}, (cluster.dir.path / "run.err").string());
  auto count = [&] {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(markers)) ++n;
    return n;
  };
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (count() < before + 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  REQUIRE(count() >= before + 3);  // round 1 computes on all three agents
  auto slowed = runCommand(kHnow + " --config " + (cluster.dir.path / "client.toml").string() +
                           " agent set-rate agent-1 --compute-factor 6");
  REQUIRE_MESSAGE(slowed.status == 0, slowed.err);
  // 15-25 s here; under the whole suite's load the emulated compute factors
  // (x2, x4, x6 of real time) stretch it past 60 s at times: wait longer.
  auto status = run.waitExit(150s);
  if (!status) {  // say what the client and hnowd saw, and keep the lab
    std::error_code ignored;
    fs::copy(cluster.dir.path / "logs", "/tmp/hnow-rounds-test-logs", fs::copy_options::overwrite_existing | fs::copy_options::recursive, ignored);
    MESSAGE("client: ", readWhole(cluster.dir.path / "run.err"));
    MESSAGE("hnowd: ", readWhole(cluster.dir.path / "logs" / "hnowd.log"));
  }
  REQUIRE_MESSAGE(status.has_value(), "hnow run still running after 150 s");
  REQUIRE_MESSAGE(*status == 0, readWhole(cluster.dir.path / "run.err"));
  CHECK(readWhole(output) == upper(text));
  auto report = nlohmann::json::parse(readWhole(cluster.dir.path / "report.json"));
  CHECK(report["rounds"] == 3);
  CHECK(report["plan"] == "rounds");
  for (const auto& a : report["agents"]) {
    const auto shares = a["share_units"].get<std::vector<std::uint64_t>>();
    REQUIRE(shares.size() == 3);
    MESSAGE(a["name"].get<std::string>(), " shares ", a["share_units"].dump());
    if (a["name"] != "agent-1") continue;
    // Units per round. Round 1 was planned on its calibration (x1, the
    // fastest: about 57% of a round); rounds 2 and 3 on x6: about 18% of a
    // round each; or, under the whole suite's load, nothing in one while it
    // is still busy with its last share and more in the next (seen:
    // [4917, 0, 3237]). Together the later rounds give it well under round
    // 1's share per round; a slowdown ignored would give it about as much.
    REQUIRE(shares.size() == 3);
    const double later = (static_cast<double>(shares[1]) + static_cast<double>(shares[2])) / 2;
    CHECK(later < 0.6 * static_cast<double>(shares[0]));
  }
}

TEST_CASE("hnow run: an agent killed during --reduce's reduction - its share is computed again, the sum is right") {
  RunCluster cluster;
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path numbers = cluster.dir.path / "numbers.txt";
  std::string lines;
  long long sum = 0;
  for (int i = 1; i <= 30000; ++i) lines += std::to_string(i * 7 % 1000) + "\n", sum += i * 7 % 1000;
  std::ofstream(numbers) << lines;
  const fs::path output = cluster.dir.path / "sum.txt";
  const fs::path markers = cluster.dir.path / "markers";
  fs::create_directories(markers);
  // Only the reduce command leaves a marker (calibration runs the map one),
  // then takes 0.3 s (x the agent's compute factor): at the first marker a
  // combine is under way, and agent-1 (the fastest uplink: the sink, whose
  // partial nobody else holds) is killed. Its share must be computed again
  // elsewhere and the reduction re-planned over the two others.
  const std::string sumCmd = "awk '{s+=\\$1} END {print s+0}'";
  const std::string args = "--input " + numbers.string() + " --shell --cmd \"" + sumCmd + "\" --reduce \"touch " +
                           markers.string() + "/\\$\\$; sleep 0.3; " + sumCmd + "\" --json --output " +
                           output.string();
  hnow::testing::ChildProcess run(
      {"/bin/sh", "-c", cluster.run(args) + " > " + (cluster.dir.path / "report.json").string()}, {},
      (cluster.dir.path / "run.err").string());
  auto count = [&] {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(markers)) ++n;
    return n;
  };
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (count() < 1 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  REQUIRE(count() >= 1);
  ::kill(cluster.pidOf(1), SIGKILL);
  auto status = run.waitExit(30s);
  REQUIRE(status.has_value());
  REQUIRE_MESSAGE(*status == 0, readWhole(cluster.dir.path / "run.err"));
  CHECK(readWhole(output) == std::to_string(sum) + "\n");
  auto report = nlohmann::json::parse(readWhole(cluster.dir.path / "report.json"));
  CHECK(report["reissued"].get<int>() >= 1);
}

TEST_CASE("hnow run: a command that cannot start, a failing command and a bad split are clear errors") {
  RunCluster cluster;
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path input = cluster.dir.path / "in.txt";
  std::ofstream(input) << "a\nb\nc\n";
  const fs::path output = cluster.dir.path / "out.txt";

  auto missing = runCommand(cluster.run("--input " + input.string() + " --cmd 'no-such-command-hnow' --concat --output " + output.string()));
  CHECK(missing.status == 1);
  // Each agent resolves argv[0] in its own PATH ([jobs], docs/jobs.md): one without it is left out.
  CHECK(missing.err.find("no agent would run the command: agent-1: 'no-such-command-hnow' is not found in the "
                         "agent's PATH") != std::string::npos);
  CHECK_FALSE(fs::exists(output));

  auto failing = runCommand(cluster.run("--input " + input.string() + " --shell --cmd 'echo broken >&2; exit 3' --concat"));
  CHECK(failing.status == 1);
  CHECK(failing.err.find("exited with status 3") != std::string::npos);
  CHECK(failing.err.find("broken") != std::string::npos);

  auto split = runCommand(cluster.run("--input " + input.string() + " --split bytes:0 --cmd cat --concat"));
  CHECK(split.status == 2);
  CHECK(split.err.find("--split bytes:0") != std::string::npos);

  auto shell = runCommand(cluster.run("--input " + input.string() + " --cmd 'sort | uniq' --concat"));
  CHECK(shell.status == 2);
  CHECK(shell.err.find("--shell") != std::string::npos);

  auto noInput = runCommand(cluster.run("--input " + (cluster.dir.path / "nope").string() + " --cmd cat --concat"));
  CHECK(noInput.status == 1);
  CHECK(noInput.err.find("cannot open --input") != std::string::npos);

  auto both = runCommand(cluster.run("--input " + input.string() + " --cmd cat --concat --reduce cat"));
  CHECK(both.status == 2);
}

// hnowd reads --input and writes --output with its own permissions: only
// inside its [run] roots (`local up` lists the lab's directory and the one
// it ran in), never by '..' or through a symlink (docs/security-tests.md).
TEST_CASE("hnow run: --input or --output outside hnowd's run roots, with '..' or through a symlink is refused and logged, and the next run is served") {
  RunCluster cluster;
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  TempDir outside;  // a sibling of the lab: not a root
  // `local up` lists the directory it ran in: that must not hold `outside`.
  const fs::path fromHere = outside.path.lexically_relative(fs::current_path());
  const std::string why = "run this test from a directory that does not hold " + outside.path.string();
  REQUIRE_MESSAGE((fromHere.empty() || *fromHere.begin() == ".."), why);
  const fs::path secret = outside.path / "secret.txt";
  std::ofstream(secret) << "not for clients\n";
  const fs::path lab = cluster.dir.path;
  const fs::path input = lab / "words.txt";
  const std::string text = words(300, 4);
  std::ofstream(input) << text;
  fs::create_directories(lab / "inside");
  fs::create_directory_symlink(outside.path, lab / "escape");
  fs::create_symlink(secret, lab / "leak.txt");
  const std::string job = " --cmd 'tr a-z A-Z' --concat";
  struct Refused {
    std::string args, says;
  };
  const std::vector<Refused> cases = {
      {"--input " + secret.string() + job, secret.string() + " is outside hnowd's roots"},
      {"--input " + input.string() + job + " --output " + (outside.path / "out.txt").string(), "is outside hnowd's roots"},
      {"--input " + (lab / "inside" / ".." / "words.txt").string() + job, "'..' is not allowed in a --input path"},
      {"--input " + input.string() + job + " --output " + (lab / "inside" / ".." / "out.txt").string(),
       "'..' is not allowed in a --output path"},
      {"--input " + (lab / "escape" / "secret.txt").string() + job, "/escape is a symlink or not a directory: refused"},
      {"--input " + input.string() + job + " --output " + (lab / "escape" / "out.txt").string(),
       "/escape is a symlink or not a directory: refused"},
      {"--input " + (lab / "leak.txt").string() + job, "/leak.txt is a symlink"},
  };
  for (const auto& c : cases) {
    auto r = runCommand(cluster.run(c.args));
    CHECK(r.status == 1);
    const std::string shown = c.args + "\n" + r.err;
    CHECK_MESSAGE(r.err.find(c.says) != std::string::npos, shown);
    CHECK_MESSAGE(r.err.find("add the directory to [run] roots in hnowd.toml") != std::string::npos, r.err);
    CHECK(r.out.find("NOT FOR CLIENTS") == std::string::npos);
  }
  CHECK_FALSE(fs::exists(outside.path / "out.txt"));
  CHECK(readWhole(secret) == "not for clients\n");
  // Each refusal is logged with the client's address, before any work.
  const std::string log = readWhole(lab / "logs" / "hnowd.log");
  std::size_t logged = 0;
  for (auto at = log.find("refused a run from 127.0.0.1:"); at != std::string::npos;
       at = log.find("refused a run from 127.0.0.1:", at + 1))
    ++logged;
  CHECK(logged == cases.size());
  CHECK(log.find("run 1: ") == std::string::npos);  // no job was started

  // hnowd still serves a run inside its roots.
  const fs::path output = lab / "inside" / "out.txt";
  auto ok = runCommand(cluster.run("--input " + input.string() + job + " --output " + output.string()));
  REQUIRE_MESSAGE(ok.status == 0, ok.err);
  CHECK(readWhole(output) == upper(text));
}
