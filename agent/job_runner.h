#pragma once
// An agent's part of `hnow run`, on the kj thread: fetch a share
// (or a partial result of another agent) over the data plane, run the job's
// command on held files in a worker thread, keep its stdout as a result
// served under a token, drop files when hnowd says so. A task's end, its
// outcome kept for whoever asks and given back after a restart of the agent:
// job_runner_held.cc.
//
// Compute emulation (`emulate.compute_factor`, docs/jobs.md "Compute
// emulation"): after the command ends, the worker sleeps (factor - 1) x its
// wall time, so the share takes factor x as long, as on a slower CPU; the
// command itself runs unchanged, so its output is the real one. Sleeping
// rather than throttling keeps the real CPU free for the other agents of a
// local cluster. A factor changed while a command runs (`hnow agent set-rate`,
// a drift test) counts from the change on: the run's emulated time is its wall
// time with each part stretched by the factor then in force, as on a machine
// that slowed down mid-share (changes during the sleep itself are not
// counted).
#include <kj/async.h>

#include <chrono>
#include <cstdint>
#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "agent/job_policy.h"
#include "agent/later_result.h"
#include "base/clock.h"
#include "base/result.h"
#include "transport/data/data_plane.h"

namespace hnow::agent {

class Receiver;

struct TaskOutcome {
  int exitCode = -1;
  Result<void> ended;     // done, or the Error saying how the task failed
  std::uint64_t size = 0;
  std::string sha256;     // 32 raw bytes
  double computeS = 0.0;  // emulation included
  double runS = 0.0;
  bool refused = false;   // the owner's [jobs] does not allow the command: nothing ran
  bool limited = false;   // a limit of the owner's [jobs] ended it
};

class JobRunner final : private kj::TaskSet::ErrorHandler {
 public:
  // Job files live in `<dataRoot>/.hnow-jobs`; `policy` says which commands
  // run and how; `peer` names hnowd in the log ("hnowd at host:port").
  JobRunner(Receiver& receiver, std::string dataRoot, JobPolicy policy, std::string peer);
  // The owner's [jobs] read again (SIGHUP): commands asked from now on are
  // allowed and limited by it; those running keep theirs.
  void setPolicy(JobPolicy policy) { policy_ = std::move(policy); }
  // Kills running commands and joins their threads.
  ~JobRunner();
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  // Done once the file is here and its SHA-256 matched; or why not (refused
  // at once, the fetch failed, hnowd dropped it meanwhile).
  LaterResult<void> fetch(const std::string& token, std::uint64_t size, const transport::data::Sha256& sha256,
                          const std::string& source);
  // Hands a job file held here (a result, a fetched share or partial) to
  // the data plane at `address` over a connection this agent opens:
  // hnowd cannot connect to it (docs/reachability.md). Resolves once that
  // plane said HELLO; or why not (no such file, no connection).
  LaterResult<void> offer(const std::string& token, const std::string& ticket, const std::string& address);
  // True when the event belongs to a job file (then it is not a send's).
  bool onTransfer(const transport::data::TransferEvent& event);
  // A command the policy refuses is answered at once (refused), and logged;
  // a task whose inputs are not here, or whose result token is taken, is an
  // Error. `shell`: hnowd says argv is /bin/sh -c COMMAND; `runId` names
  // the run in the log.
  LaterResult<TaskOutcome> run(std::vector<std::string> inputs, std::vector<std::string> argv,
                               std::string resultToken, double computeFactor, bool shell = false,
                               std::uint64_t runId = 0);
  // The outcome of the task under `resultToken`, once it ends (at once if
  // it has): run() answers through it, and so does a restarted hnowd asking
  // for a task its earlier process started (the agent kept running it
  // while hnowd was away). An Error when no task runs or ran here under
  // that token, or it was dropped meanwhile.
  LaterResult<TaskOutcome> outcome(const std::string& resultToken);
  // A restarted hnowd names the job files it still counts on: every other
  // one is dropped (its command killed); returns those of `tokens` held here.
  struct HeldFile {
    std::string token;
    bool task = false;   // a task's result token, not a fetched file
    bool ended = false;  // the task has ended
  };
  std::vector<HeldFile> keepOnly(const std::vector<std::string>& tokens);
  // The tasks that ended with a result held here.
  std::vector<HeldFile> endedTasks() const;
  bool holdsAny() const { return !files_.empty(); }
  // The hnowd (its key's text) the results are for: each ended task's
  // outcome is written beside its result (`<result>.done`), so that the
  // agent, started again, gives it back to that hnowd (restoreHeld).
  void setHolder(std::string holder) { holder_ = std::move(holder); }
  // The results an earlier process of this agent left with their outcome
  // (the start-up sweep keeps them), held again as ended tasks; the hnowd
  // they are for ("" none).
  std::string restoreHeld();
  // The data plane forgot every token (a restarted hnowd's login): the
  // results of tasks that ended are served again, for it to collect.
  void serveResultsAgain();
  void drop(const std::vector<std::string>& tokens);
  // The emulated compute factor from now on (runs under way included).
  void setComputeFactor(double factor);
  // hnowd is gone, and with it every job it ran here: kill running
  // commands and drop every file.
  void dropAll();

 private:
  // Wall seconds [start, end] stretched by the factors in force, `initial`
  // before the first change.
  double emulatedSeconds(std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point end,
                         double initial);
  struct Worker;
  // One task as its worker thread runs it.
  struct Task {
    std::vector<std::string> inputs;  // paths, in order
    std::vector<std::string> argv;
    std::string program;  // the file executed (the policy resolved argv[0])
    std::string resultToken;
    std::string resultPath;
    double computeFactor = 1.0;
    // The owner's [jobs] as the task began: a reload (setPolicy) while it
    // runs changes the next task's, not this one's limits.
    conf::JobsConfig jobs;
  };
  // On the worker thread: the command over the task's inputs, its result
  // kept at resultPath, stretched by the emulated compute factor.
  TaskOutcome execute(const Task& task);
  void runCommandOf(const Task& task, int in, int out, const std::string& errPath, int err, TaskOutcome& outcome);
  void joinFinishedWorkers();
  std::string pathFor(const std::string& token) const;
  // A task ended: its outcome kept under its token (until dropped) and
  // handed to whoever waits for it.
  void ended(const std::string& resultToken, Result<TaskOutcome> outcome, bool keep = true);
  // The outcome beside the result, for a later process of this agent.
  void writeOutcome(const std::string& resultToken, const TaskOutcome& outcome);
  void taskFailed(kj::Exception&& exception) override;

  Receiver& receiver_;
  std::string dir_;
  JobPolicy policy_;
  std::string peer_;
  std::map<std::string, std::string> files_;  // token -> path
  std::map<std::string, kj::Own<kj::PromiseFulfiller<kj::Own<Result<void>>>>> fetching_;
  std::mutex mutex_;                          // guards pids_, running_, dropped_
  std::set<int> pids_;
  // The result token of every task whose worker still runs -> its
  // command's pid (0 when none runs), and those dropped meanwhile: the worker
  // kills its command and removes the files it may create after the drop.
  std::map<std::string, int> running_;
  std::set<std::string> dropped_;
  // Worker threads and whether each has finished (joined at the next run()).
  std::list<std::pair<std::thread, std::shared_ptr<std::atomic<bool>>>> threads_;
  std::mutex factorMutex_;  // guards factorChanges_ (set on the kj thread, read by workers)
  std::vector<std::pair<std::chrono::steady_clock::time_point, double>> factorChanges_;
  // Tasks started here: their outcome once ended, and who waits for one
  // still running. A task's end is followed here, not by the call that
  // started it: that call dies with hnowd's connection, the task does not.
  std::set<std::string> tasks_;
  std::map<std::string, TaskOutcome> outcomes_;
  std::multimap<std::string, kj::Own<kj::PromiseFulfiller<kj::Own<Result<TaskOutcome>>>>> waiting_;
  std::string holder_;
  kj::TaskSet ends_{*this};  // last: destroyed first, while the rest is whole
};

}  // namespace hnow::agent
