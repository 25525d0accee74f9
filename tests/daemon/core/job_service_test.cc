// JobService in memory: agents that run a line-counting command when told,
// a source plane and run files kept in maps, a manual clock and a queue of
// turns; a whole job from calibration to its output, without a socket or a
// process.
#include <doctest/doctest.h>

#include <deque>
#include <map>
#include <numeric>
#include <sstream>

#include "core/coordinator.h"
#include "core/job_service.h"
#include "daemon/core/memory_state_store.h"
#include "support/memory_env.h"

using namespace hnow;
using namespace hnow::daemon;

namespace {

using Turns = std::deque<std::function<void()>>;

// hnowd's data plane: what it serves (by token) and where agents' files land.
struct MapPlane;

// An agent holding files by token; its command counts the lines of its inputs.
struct CountingAgent final : AgentLink {
  CountingAgent(std::string n, MapPlane& p, Turns& t) : name(std::move(n)), plane(p), turns(t) {}
  void setEmulatedRates(const EmulatedRates&, Done done) override { done({}); }
  void probeNow() override {}
  void fetchJobFile(const JobFile& file, Done done) override;
  void runJobTask(const JobTask& task, TaskDone done) override {
    std::string input;
    for (const auto& t : task.inputs) input += files[t];
    const long lines = std::count(input.begin(), input.end(), '\n');
    ++runs;
    if (hangs) return hung.push_back(done);  // never answers, as a command that never ends
    if (failing || (failsOnEmpty && input.empty())) return turns.push_back([done] {
      AgentLink::JobTaskResult r;
      r.exitCode = 1;
      r.commandError = "'count' exited with status 1";
      done(r);
    });
    files[task.resultToken] = std::to_string(lines) + "\n";
    AgentLink::JobTaskResult r;
    r.exitCode = 0;
    r.size = files[task.resultToken].size();
    r.sha256 = std::string(32, 's');
    r.computeS = 0.01 + 0.001 * static_cast<double>(lines);
    turns.push_back([done, r] { done(r); });
  }
  void dropJobFiles(const std::vector<std::string>& tokens) override {
    for (const auto& t : tokens) files.erase(t), dropped.push_back(t);
  }
  std::string name;
  MapPlane& plane;
  Turns& turns;
  std::map<std::string, std::string> files;
  int runs = 0;
  bool failing = false;
  bool failsOnEmpty = false;  // as `grep -c`: exits 1 when it finds nothing
  bool hangs = false;
  std::vector<TaskDone> hung;
  std::vector<std::string> dropped;
};

struct MapPlane final : SourcePlane {
  void serveFile(const std::string&, const std::string&, Served done) override { done(Error{"not in jobs"}); }
  Result<SourceFile> serveBytes(const std::string& token, const std::string& path, std::string_view bytes) override {
    served[token] = std::string(bytes);
    work->files[path] = std::string(bytes);
    return SourceFile{bytes.size(), std::string(32, 'x'), std::string(64, '7'), {}, {}};
  }
  void receiveFile(const std::string& token, std::uint64_t, const std::string&, const std::string& path,
                   const std::string& from, Received done) override {
    CountingAgent* agent = agents.at(from);
    work->files[path] = agent->files.at(token);
    turns->push_back([done, path] { done(path); });
  }
  void release(const std::string& token) override { served.erase(token); }
  void pace(double up, double down) override { paced.emplace_back(up, down); }
  std::vector<std::pair<double, double>> paced;  // hnowd's uplink and downlink, each time
  std::map<std::string, std::string> served;
  std::map<std::string, CountingAgent*> agents;  // by data address
  testing::MemoryEnv* work = nullptr;
  Turns* turns = nullptr;
};

void CountingAgent::fetchJobFile(const JobFile& file, Done done) {
  files[file.token] = plane.served.at(file.token);
  turns.push_back([done] { done({}); });
}

// An Env that stands for one kept elsewhere (RunFiles hands out owned Envs).
struct EnvRef final : Env {
  explicit EnvRef(Env& e) : env(e) {}
  std::string pathOf(const std::string& name) const override { return env.pathOf(name); }
  Result<std::unique_ptr<SequentialFile>> openSequential(const std::string& n) override { return env.openSequential(n); }
  Result<std::unique_ptr<WritableFile>> createWritable(const std::string& n) override { return env.createWritable(n); }
  Result<void> rename(const std::string& a, const std::string& b) override { return env.rename(a, b); }
  Result<bool> renameFrom(Env& o, const std::string& a, const std::string& b) override { return env.renameFrom(o, a, b); }
  Result<void> remove(const std::string& n) override { return env.remove(n); }
  Result<std::uint64_t> fileSize(const std::string& n) override { return env.fileSize(n); }
  Env& env;
};

struct MapRunFiles final : RunFiles {
  Result<std::string> readInput(const std::string& input) override {
    auto it = inputs.find(input);
    if (it == inputs.end()) return Error{"cannot open --input " + input + ": No such file or directory"};
    return it->second;
  }
  Result<OutputDir> outputDir(std::uint64_t job, const std::string& output) override {
    OutputDir out;
    out.dir = std::make_unique<EnvRef>(outputs);
    out.name = output.empty() ? "run-" + std::to_string(job) + ".out" : output;
    out.temp = "." + out.name + ".part";
    out.path = outputs.pathOf(out.name);
    return out;
  }
  Result<std::string> makeWorkDir(std::uint64_t job) override { return "/jobs/job-" + std::to_string(job); }
  void removeWorkDir(const std::string& dir) override {
    for (auto it = work.files.begin(); it != work.files.end();)
      it = it->first.rfind(dir + "/", 0) == 0 ? work.files.erase(it) : std::next(it);
  }
  Env& workFiles() override { return work; }
  void forgetOutput(const std::string&) override {}
  Result<std::string> readOutput(const std::string& path, std::uint64_t offset, std::size_t limit) override {
    const std::string name = path.substr(path.rfind('/') + 1);
    auto bytes = outputs.files.at(name);
    return bytes.substr(std::min<std::size_t>(offset, bytes.size()), limit);
  }
  std::map<std::string, std::string> inputs;
  testing::MemoryEnv work{""}, outputs{"/var/lib/hnow/jobs"};
};

struct Lab {
  ManualClock clock;
  MemoryStateStore store;
  Coordinator coordinator{clock, RateTableOptions{}, store};
  Turns turns;
  MapPlane plane;
  MapRunFiles files;
  std::map<std::string, CountingAgent*> agents;
  int tokens = 0;
  JobService jobs{coordinator, plane, files, "hnowd:7000", clock,
                  [this](std::function<void()> f) { turns.push_back(std::move(f)); },
                  [this] { return std::string(24, 't') + std::to_string(10000000 + tokens++); }, 12.5e6};

  Lab() {
    plane.work = &files.work;
    plane.turns = &turns;
    for (const char* name : {"a1", "a2", "a3"}) {
      AgentRegistration r{name, "room", {"jobs"}, std::string(name) + ":9000", {"/srv"}};
      auto link = std::make_unique<CountingAgent>(name, plane, turns);
      agents[name] = link.get();
      plane.agents[r.dataAddress] = link.get();
      SessionId s = coordinator.attach(r, std::move(link));
      planner::NodeRates rates;
      rates.sendOverheadSeconds = rates.receiveOverheadSeconds = 1e-4;
      rates.computeSecondsPerUnit = 1e-3;
      coordinator.reportRates(s, rates, {1e7, 1e7});
    }
    std::string input;
    for (int i = 0; i < 3000; ++i) input += "line " + std::to_string(i) + "\n";
    files.inputs["/data/lines.txt"] = input;
  }
  // Runs every turn queued, and the ticks between, until nothing is left to do.
  void settle() {
    for (int rounds = 0; rounds < 1000 && (!turns.empty() || jobs.running()); ++rounds) {
      while (!turns.empty()) {
        auto f = std::move(turns.front());
        turns.pop_front();
        f();
      }
      jobs.tick();
    }
  }
  // The same, the clock moving a tick (250 ms) at a time, for at most `limit`.
  void settleFor(Duration limit) {
    const TimePoint end = clock.now() + limit;
    while (clock.now() < end && (!turns.empty() || jobs.running())) {
      while (!turns.empty()) {
        auto f = std::move(turns.front());
        turns.pop_front();
        f();
      }
      jobs.tick();
      clock.advance(std::chrono::milliseconds(250));
    }
  }
  RunRequest count() const {
    RunRequest r;
    r.input = "/data/lines.txt";
    r.argv = {"count"};
    r.command = "count";
    return r;
  }
};

}  // namespace

TEST_CASE("a job calibrates on every agent, runs its shares and concatenates the results in input order") {
  Lab lab;
  auto started = lab.jobs.start(lab.count());
  REQUIRE_MESSAGE(started.ok(), (started.ok() ? "" : started.error().message));
  lab.settle();
  auto status = lab.jobs.status(*started);
  REQUIRE(status);
  CHECK(status->finished);
  CHECK(status->error.empty());
  CHECK(status->units == 3000);
  for (const auto& [name, agent] : lab.agents) CHECK(agent->runs >= 2);  // the empty run and the sample
  // The output: one count per share, in input order, adding up to every line.
  const std::string output = lab.files.outputs.files.at("run-1.out");
  std::istringstream lines(output);
  long total = 0;
  for (long n; lines >> n;) total += n;
  CHECK(total == 3000);
  CHECK(status->outputSize == output.size());
  auto read = lab.jobs.output(*started, 0, 1 << 20);
  REQUIRE(read);
  CHECK(*read == output);
  CHECK(lab.plane.served.empty());                           // hnowd serves nothing once it ended
  CHECK(lab.files.work.files.empty());                       // its work directory is gone
  for (const auto& [name, agent] : lab.agents) CHECK(agent->files.empty());  // agents dropped every file
  auto ops = lab.coordinator.operations(1).value();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].kind == "run");
  CHECK(ops[0].status == "done");
}

TEST_CASE("a command that fails on the sample fails the job, naming the agent, and a missing input is refused") {
  Lab lab;
  lab.agents["a2"]->failing = true;
  auto started = lab.jobs.start(lab.count());
  REQUIRE(started.ok());
  lab.settle();
  auto status = lab.jobs.status(*started);
  REQUIRE(status);
  CHECK(status->finished);
  // Which run, on which agent, and what to do.
  CHECK(status->error.find("calibrating on a2: the run on a sample of ") == 0);
  CHECK(status->error.find(" bytes (the input's first ") != std::string::npos);
  CHECK(status->error.find(" units) failed: 'count' exited with status 1. Every share runs the command on a part of "
                           "the input like this one, so the run stops: to see why, run it on those bytes: head -c ") !=
        std::string::npos);
  CHECK(status->error.find(" '/data/lines.txt' | sh -c 'count'") != std::string::npos);
  CHECK_FALSE(lab.jobs.output(*started, 0, 10).ok());

  RunRequest missing = lab.count();
  missing.input = "/data/none.txt";
  auto refused = lab.jobs.start(missing);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message == "cannot open --input /data/none.txt: No such file or directory");
}

TEST_CASE("a run under --max-rate paces hnowd's uplink and downlink at most at it and plans its shares so") {
  Lab free;
  auto unlimited = free.jobs.start(free.count());
  REQUIRE(unlimited.ok());
  free.settle();
  const auto freeStatus = free.jobs.status(*unlimited);
  REQUIRE(freeStatus);
  CHECK(freeStatus->maxRateBytesPerSecond == 0);
  REQUIRE_FALSE(free.plane.paced.empty());
  CHECK(free.plane.paced.back().first == doctest::Approx(12.5e6).epsilon(0.1));  // hnowd's own uplink

  Lab lab;
  RunRequest request = lab.count();
  request.maxRateBytesPerSecond = 2e4;  // 160 kbit/s: the 27 kB input takes 1.4 s to serve
  auto started = lab.jobs.start(request);
  REQUIRE(started.ok());
  lab.settle();
  const auto status = lab.jobs.status(*started);
  REQUIRE(status);
  CHECK(status->finished);
  CHECK(status->error.empty());
  CHECK(status->maxRateBytesPerSecond == 2e4);
  REQUIRE_FALSE(lab.plane.paced.empty());
  for (const auto& [up, down] : lab.plane.paced) {
    CHECK(up > 0);
    CHECK(up <= 2e4);
    CHECK(down > 0);
    CHECK(down <= 2e4);
  }
  // The plan knows: serving the shares at 20 kB/s takes a second longer than at hnowd's 12.5 MB/s.
  CHECK(status->predictedS > freeStatus->predictedS + 0.5);
}

TEST_CASE("a command that exits non-zero on empty input (grep -c finding nothing) is calibrated on the sample and the job lands") {
  Lab lab;
  for (auto& [name, agent] : lab.agents) agent->failsOnEmpty = true;
  auto started = lab.jobs.start(lab.count());
  REQUIRE(started.ok());
  lab.settle();
  auto status = lab.jobs.status(*started);
  REQUIRE(status);
  CHECK(status->finished);
  CHECK_MESSAGE(status->error.empty(), status->error);
  for (const auto& a : status->agents) {
    CHECK(a.secondsPerUnit > 0);
    CHECK(a.failures.empty());
  }
  std::istringstream lines(lab.files.outputs.files.at("run-1.out"));
  long total = 0;
  for (long n; lines >> n;) total += n;
  CHECK(total == 3000);
}

TEST_CASE("an agent whose command hangs in calibration is left out at the deadline, its command killed, and the run lands on the others") {
  Lab lab;
  lab.agents["a3"]->hangs = true;
  const TimePoint start = lab.clock.now();
  auto started = lab.jobs.start(lab.count());
  REQUIRE(started.ok());
  lab.settleFor(std::chrono::seconds(60));
  auto status = lab.jobs.status(*started);
  REQUIRE(status);
  CHECK(status->finished);
  CHECK_MESSAGE(status->error.empty(), status->error);
  // The others calibrate at once: the deadline is the 10 s floor, not calibration_max_s.
  CHECK(seconds(lab.clock.now() - start) < 12);
  for (const auto& a : status->agents) {
    if (a.name != "a3") {
      CHECK(a.units > 0);
      continue;
    }
    CHECK(a.units == 0);
    REQUIRE(a.failures.size() == 1);
    CHECK(a.failures[0].rfind("left out: the run on empty input did not finish within 10 s, the calibration deadline "
                              "(10 x the longest other agent's calibration, ", 0) == 0);
    CHECK(a.failures[0].find("at most [run] calibration_max_s = 120): left out of the run, its command killed. Check "
                             "that the command ends on its own there (it must read stdin to its end and exit), or raise "
                             "[run] calibration_max_s in hnowd's config for a slow agent") != std::string::npos);
  }
  // Its job files were dropped at the deadline: that kills the command running on them.
  CHECK(lab.agents["a3"]->dropped.size() >= 3);
  // A late answer changes nothing.
  for (auto& done : lab.agents["a3"]->hung) done(hnow::Error{"the task was dropped"});
  lab.settle();
  CHECK(lab.jobs.status(*started)->error.empty());
}

TEST_CASE("when every agent's calibration hangs the run fails at calibration_max_s with each agent's reason") {
  Lab lab;
  for (auto& [name, agent] : lab.agents) agent->hangs = true;
  const TimePoint start = lab.clock.now();
  auto started = lab.jobs.start(lab.count());
  REQUIRE(started.ok());
  lab.settleFor(std::chrono::seconds(100));
  REQUIRE_FALSE(lab.jobs.status(*started)->finished);  // 120 s: nobody finished to bound it
  lab.settleFor(std::chrono::seconds(60));
  auto status = lab.jobs.status(*started);
  REQUIRE(status);
  CHECK(status->finished);
  CHECK(seconds(lab.clock.now() - start) < 121);
  CHECK(status->error.rfind("no agent finished its calibration in time: a1: the run on empty input did not finish "
                            "within 120 s, the calibration deadline ([run] calibration_max_s = 120 in hnowd's config)",
                            0) == 0);
  CHECK(status->error.find("; a3: the run on empty input did not finish within 120 s") != std::string::npos);
  CHECK(status->error.find("its command killed. Check that the command ends on its own there") != std::string::npos);
  CHECK(status->error.find("Check that") == status->error.rfind("Check that"));  // said once
  for (const auto& [name, agent] : lab.agents) CHECK(agent->dropped.size() >= 3);
}
