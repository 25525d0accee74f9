#pragma once
// JobService in memory (job_service_test.cc, job_unreachable_test.cc):
// agents that run a line-counting command when told, a source plane and
// run files kept in maps, a manual clock and a queue of turns; a whole job
// from calibration to its output, without a socket or a process.
#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "core/coordinator.h"
#include "core/jobs/job_service.h"
#include "daemon/core/memory_state_store.h"
#include "support/memory_env.h"

namespace hnow::daemon::jobtest {


using Turns = std::deque<std::function<void()>>;

// The counts of a finished --concat job's output (one per share), added up.
inline long totalOf(const std::string& output) {
  std::istringstream lines(output);
  long total = 0;
  for (long n; lines >> n;) total += n;
  return total;
}

// hnowd's data plane: what it serves (by token) and where agents' files land.
struct MapPlane;

// An agent holding files by token; its command counts the lines of its inputs.
struct CountingAgent final : AgentLink {
  CountingAgent(std::string n, MapPlane& p, Turns& t) : name(std::move(n)), plane(p), turns(t) {}
  void setEmulatedRates(const EmulatedRates&, Done done) override { done({}); }
  void probeNow() override {}
  void fetchJobFile(const JobFileOrder& file, Done done) override;
  void runJobTask(const JobTaskOrder& task, TaskDone done) override {
    std::string input;
    for (const auto& t : task.inputs) input += files[t];
    const long lines = std::count(input.begin(), input.end(), '\n');
    ++runs;
    if (task.inputs.size() == 1) unitsRun += lines;  // a share or a calibration, not a combine
    if (hangs) {  // never answers, as a command that never ends; or as one whose hnowd died
      running[task.resultToken] = lines;
      return hung.push_back(done);
    }
    if (failing || (failsOnEmpty && input.empty())) return turns.push_back([done] {
      AgentLink::JobTaskAnswer r;
      r.exitCode = 1;
      r.ended = Error{"'count' exited with status 1"};
      done(r);
    });
    files[task.resultToken] = std::to_string(lines) + "\n";
    results.insert(task.resultToken);
    AgentLink::JobTaskAnswer r;
    r.exitCode = 0;
    r.size = files[task.resultToken].size();
    r.sha256 = std::string(32, 's');
    r.computeS = 0.01 + 0.001 * static_cast<double>(lines);
    turns.push_back([done, r] { done(r); });
  }
  void dropJobFiles(const std::vector<std::string>& tokens) override {
    for (const auto& t : tokens) files.erase(t), running.erase(t), results.erase(t), dropped.push_back(t);
  }
  // A restarted hnowd asks for a task that ran on while it was away: it
  // ends now (unless the agent still hangs).
  void awaitJobTask(const std::string& token, TaskDone done) override {
    ++awaited;
    auto it = running.find(token);
    const bool ended = results.count(token) && files.count(token);
    if (it == running.end() && !ended)
      return turns.push_back([done] { done(Error{"this agent runs no task under that token"}); });
    if (hangs && !ended) return hung.push_back(done);
    if (!ended) {
      files[token] = std::to_string(it->second) + "\n";
      results.insert(token);
      running.erase(it);
    }
    AgentLink::JobTaskAnswer r;
    r.exitCode = 0;
    r.size = files[token].size();
    r.sha256 = std::string(32, 's');
    turns.push_back([done, r] { done(r); });
  }
  // Restarted: the results an earlier process of it computed (`results`).
  void heldJobTasks(HeldJobsDone done) override {
    std::vector<HeldJobFile> held;
    for (const auto& token : results)
      if (files.count(token)) held.push_back({token, true, true});
    turns.push_back([done, held] { done(held); });
  }
  void keepJobFiles(const std::vector<std::string>& tokens, HeldJobsDone done) override {
    const std::set<std::string> keep(tokens.begin(), tokens.end());
    std::vector<HeldJobFile> held;
    std::erase_if(files, [&](const auto& f) { return !keep.count(f.first); });
    std::erase_if(running, [&](const auto& r) { return !keep.count(r.first); });
    std::erase_if(results, [&](const auto& r) { return !keep.count(r); });
    for (const auto& [token, lines] : running) held.push_back({token, true, false});
    for (const auto& [token, file] : files) held.push_back({token, results.count(token) > 0, results.count(token) > 0});
    turns.push_back([done, held] { done(held); });
  }
  // hnowd cannot connect to it: it dials hnowd's data port (`address`) and
  // hands the file over there (MapPlane::receiveOffered), unless
  // `dialFails` (hnowd's port is closed to it too) or, while
  // `dropsConnections` > 0, that connection ends mid-way.
  void offerFile(const std::string& token, const std::string& ticket, const std::string& address,
                 Done done) override;
  std::string name;
  MapPlane& plane;
  Turns& turns;
  std::map<std::string, std::string> files;
  int runs = 0;
  long unitsRun = 0;  // lines given to its command, calibration samples included
  int awaited = 0;    // tasks a restarted hnowd asked for
  std::map<std::string, long> running;  // hung tasks: their lines
  std::set<std::string> results;        // tokens of results its tasks wrote
  bool failing = false;
  bool failsOnEmpty = false;  // as `grep -c`: exits 1 when it finds nothing
  bool hangs = false;
  std::vector<TaskDone> hung;
  std::vector<std::string> dropped;
  bool unreachable = false;  // pulls from its data plane fail, as behind NAT
  bool dialFails = false;
  int dropsConnections = 0;
  std::vector<std::string> offeredTo;  // the address of each offerFile
};

struct MapPlane final : SourcePlane {
  void serveFile(const std::string&, const std::string&, Served done) override { done(Error{"not in jobs"}); }
  // A range of the input served as hnowd's data plane would: its digest
  // comes on a later turn (off the control thread there).
  void serveRange(const std::string& token, std::shared_ptr<const RunInput> input, std::uint64_t offset,
                  std::uint64_t length, Served done) override {
    ranges.push_back({offset, length});
    auto bytes = input->read(offset, static_cast<std::size_t>(length));
    if (!bytes || refuseRanges) return turns->push_back([done] { done(Error{"cannot read the input"}); });
    // Served from when its digest is taken: an agent fetching it before then finds nothing.
    hashing.insert(token);
    turns->push_back([this, token, done, bytes = *bytes] {
      if (!hashing.erase(token)) return;  // released meanwhile
      served[token] = bytes;
      done(SourceFile{bytes.size(), std::string(32, 'x'), std::string(64, '7'), {}, {}});
    });
  }
  std::set<std::string> hashing;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // each range served: offset, length
  bool refuseRanges = false;
  void receiveFile(const std::string& token, std::uint64_t, const std::string&, const std::string& path,
                   const std::string& from, Received done) override {
    CountingAgent* agent = agents.at(from);
    pulledFrom.push_back(agent->name);
    if (agent->unreachable)
      return turns->push_back([done, from] { done(Error{"cannot connect to the agent's data plane at " + from}); });
    work->files[path] = agent->files.at(token);
    turns->push_back([done, path] { done(path); });
  }
  struct Awaited {
    std::string token, path;
    Lost lost;
    Received done;
  };
  void receiveOffered(const std::string& token, const std::string& ticket, std::uint64_t, const std::string&,
                      const std::string& path, Lost lost, Received done) override {
    awaited[ticket] = {token, path, std::move(lost), std::move(done)};
  }
  // An agent dialed in presenting `ticket` and serves `bytes`; its
  // connection ends before the end when `drop`.
  void offered(const std::string& ticket, const std::string& bytes, bool drop) {
    auto it = awaited.find(ticket);
    if (it == awaited.end()) return;
    if (drop) {
      Lost lost = it->second.lost;  // a copy: it may release the receive
      return lost("closed by the peer");
    }
    Awaited a = std::move(it->second);
    awaited.erase(it);
    work->files[a.path] = bytes;
    a.done(a.path);
  }
  void release(const std::string& token) override {
    served.erase(token);
    hashing.erase(token);
    for (auto it = awaited.begin(); it != awaited.end();)
      it = it->second.token == token ? awaited.erase(it) : std::next(it);
  }
  std::map<std::string, Awaited> awaited;  // by ticket
  std::vector<std::string> pulledFrom;     // each result pulled, by agent
  void pace(double up, double down) override { paced.emplace_back(up, down); }
  std::vector<std::pair<double, double>> paced;  // hnowd's uplink and downlink, each time
  std::map<std::string, std::string> served;
  std::map<std::string, CountingAgent*> agents;  // by data address
  testing::MemoryEnv* work = nullptr;
  Turns* turns = nullptr;
};

inline void CountingAgent::offerFile(const std::string& token, const std::string& ticket,
                                     const std::string& address, Done done) {
  offeredTo.push_back(address);
  if (dialFails)
    return turns.push_back([done, address] {
      done(Error{"cannot hand the file over to " + address + ": no answer to the connection within 3 s"});
    });
  const bool drop = dropsConnections > 0 && dropsConnections--;
  turns.push_back([this, token, ticket, drop, done] {
    done({});  // the connection opened and hnowd said HELLO
    plane.offered(ticket, files.at(token), drop);
  });
}

inline void CountingAgent::fetchJobFile(const JobFileOrder& file, Done done) {
  // A share from hnowd, or a partial result of another agent (--reduce).
  auto from = plane.agents.find(file.source);
  files[file.token] = from == plane.agents.end() ? plane.served.at(file.token) : from->second->files.at(file.token);
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
  // An input in memory, read by range as hnowd reads a file.
  struct MapInput final : RunInput {
    explicit MapInput(std::string b) : bytes(std::move(b)) {}
    std::uint64_t size() const override { return bytes.size(); }
    Result<std::string> read(std::uint64_t offset, std::size_t length) const override {
      return bytes.substr(std::min<std::uint64_t>(offset, bytes.size()), length);
    }
    std::string bytes;
  };
  Result<std::shared_ptr<const RunInput>> openInput(const std::string& input) override {
    auto it = inputs.find(input);
    if (it == inputs.end()) return Error{"cannot open --input " + input + ": No such file or directory"};
    return std::shared_ptr<const RunInput>(std::make_shared<MapInput>(it->second));
  }
  Result<OutputDir> outputDir(std::uint64_t job, const std::string& output) override {
    OutputDir out;
    out.dir = std::make_unique<EnvRef>(outputs);
    out.name = output.empty() ? "run-" + std::to_string(job) + ".out" : output;
    out.temp = "." + out.name + ".part";
    out.path = outputs.pathOf(out.name);
    return out;
  }
  // Unique as hnowd's are (job-ID-PID): a restarted service's job 1 is not the last one's.
  Result<std::string> makeWorkDir(std::uint64_t job) override {
    return "/jobs/job-" + std::to_string(job) + "-" + std::to_string(++made);
  }
  int made = 0;
  void removeWorkDir(const std::string& dir) override {
    for (auto it = work.files.begin(); it != work.files.end();)
      it = it->first.rfind(dir + "/", 0) == 0 ? work.files.erase(it) : std::next(it);
  }
  Env& workFiles() override { return work; }
  void forgetOutput(const std::string&) override {}
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
  std::map<std::string, SessionId> sessions;
  int tokens = 0;
  JobService jobs{coordinator, plane, files, "hnowd:7000", clock,
                  [this](std::function<void()> f) { turns.push_back(std::move(f)); },
                  [this] { return std::string(24, 't') + std::to_string(10000000 + tokens++); }, 12.5e6};

  Lab() {
    plane.work = &files.work;
    plane.turns = &turns;
    for (const char* name : {"a1", "a2", "a3"}) attachAgent(name);
    std::string input;
    for (int i = 0; i < 3000; ++i) input += "line " + std::to_string(i) + "\n";
    files.inputs["/data/lines.txt"] = input;
  }
  // The agent `name` logs in (again: a new link), with its rates.
  void attachAgent(const std::string& name) {
    AgentRegistration r{name, "room", {"jobs"}, name + ":9000", {"/srv"}};
    auto link = std::make_unique<CountingAgent>(name, plane, turns);
    agents[name] = link.get();
    plane.agents[r.dataAddress] = link.get();
    SessionId s = coordinator.attach(r, std::move(link));
    sessions[name] = s;
    planner::NodeRates rates;
    rates.sendOverheadSeconds = rates.receiveOverheadSeconds = 1e-4;
    rates.computeSecondsPerUnit = 1e-3;
    coordinator.reportRates(s, rates, {1e7, 1e7});
  }
  // Its session ends (its link, and the CountingAgent, go with it).
  void detachAgent(const std::string& name) {
    coordinator.detach(sessions.at(name));
    plane.agents.erase(name + ":9000");
    agents.erase(name);
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
  // Starts `request`, runs it to its end and gives its status.
  RunStatus runToEnd(const RunRequest& request) {
    auto started = jobs.start(request);
    REQUIRE(started.ok());
    settle();
    auto status = jobs.status(*started);
    REQUIRE(status);
    CHECK(status->finished);
    return *status;
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

// One turn at a time (a tick of `jobs` when none is left) until `until`
// holds, or nothing is left to do.
template <class Until>
void stepUntil(Lab& lab, JobService& jobs, Until until) {
  for (int i = 0; i < 100000 && !until(); ++i) {
    if (lab.turns.empty()) {
      jobs.tick();
      if (lab.turns.empty() && !jobs.running()) return;
      continue;
    }
    auto f = std::move(lab.turns.front());
    lab.turns.pop_front();
    f();
  }
}

template <class Until>
void stepUntil(Lab& lab, Until until) {
  stepUntil(lab, lab.jobs, until);
}

}  // namespace hnow::daemon::jobtest
