#pragma once
// hnowd's side of `hnow run`, on the control thread. A job goes
// through: calibrate (each agent runs the command on a small sample unless
// a recent calibration exists), plan (core/jobs/job_plan.h, seed 002), run
// (core/jobs/job_run.h: serve shares one at a time on hnowd's data plane, the
// agents compute, results come back one at a time), then either --concat
// (results in input order into the output, temp + rename) or --reduce
// (partials combined pairwise on the agents along a seed 003 reduction
// schedule, the last one brought to hnowd). It reaches agents through
// AgentLink, hnowd's data plane through SourcePlane and files through
// RunFiles; hnowd's loop calls tick() every 250 ms.
#include <functional>

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "conf/run_request.h"
#include "core/coordinator.h"
#include "core/finished_operations.h"
#include "core/jobs/job_calibration.h"
#include "core/jobs/job_output.h"
#include "core/jobs/job_plan.h"
#include "core/trust/host_trust.h"
#include "core/jobs/job_run.h"
#include "core/jobs/run_files.h"
#include "core/jobs/run_status.h"
#include "core/send/source_plane.h"
#include "core/transfer_observer.h"

namespace hnow::daemon {

// How long jobs left queued (or running) by the last hnowd wait after a
// restart before they may start, unless every agent hnowd knows is back
// sooner: agents log in again within seconds (their first retry
// comes after 100 ms, doubling to at most 5 s), and a job started on the first one back
// would keep only it.
inline constexpr Duration kRestoredQueueGrace = std::chrono::seconds(10);
// How long a --reduce reduction waits for an agent it lost to log in
// again before computing its share results again: a process restarted
// under systemd (Restart=, RestartSec=1s) is back within it, holding the
// results it finished (JobReduction::agentBack).
inline constexpr Duration kAgentReturnGrace = std::chrono::seconds(5);
// The ledger of agreeing job results (core/trust/host_trust.h) in state.db.
inline constexpr const char* kHostTrustLedger = "host-trust";

class JobService {
 public:
  // Runs `f` on a later turn of the control thread, never inside the caller.
  using Defer = std::function<void(std::function<void()> f)>;
  // hnowd serves at `sourceUplinkBytesPerSecond` (0: as fast as the fastest
  // agent's uplink); `newToken` makes 32 random bytes; an agent's
  // calibration takes at most `calibrationMaxSeconds` ([run] calibration_max_s).
  JobService(Coordinator& coordinator, SourcePlane& plane, RunFiles& files, std::string sourceAddress,
             const Clock& clock, Defer defer, std::function<std::string()> newToken,
             double sourceUplinkBytesPerSecond = 0, double calibrationMaxSeconds = 120.0);
  ~JobService();
  JobService(const JobService&) = delete;
  JobService& operator=(const JobService&) = delete;

  // Checks the request and queues the job: its id, or why it was refused
  // (a refused --input/--output is logged with the client's `peer`). It
  // starts at once when its agents are free (core/jobs/job_queue.h).
  Result<std::uint64_t> start(RunRequest request, const std::string& peer = "");
  std::optional<RunStatus> status(std::uint64_t id) const;
  // The job whose operation record is `record`; 0: none known.
  std::uint64_t operationOf(OperationId record) const;
  // Where a finished run's output is (the RPC glue serves it to the
  // client); or why there is none: no such run, not finished, or failed.
  // The output counts as fetched from then on (forgetOldOutputs).
  Result<std::string> outputPath(std::uint64_t id);
  // Ends the job under way whose operation record is `record` now, as
  // operator `who` asked: every agent drops its files, which kills the
  // commands running on them and all they started (agent/command_keeper.h);
  // no output is written; its record says "cancelled" and by whom. False:
  // no job under way has that record.
  bool cancel(OperationId record, const std::string& who);
  // The jobs a previous hnowd left queued (state.db), queued again under
  // their records; each waits `grace` for its agents to log in again before
  // it may start, so it does not start on the first one back. Those whose
  // request or --input cannot be read end "failed", saying why.
  void restoreQueue(Duration grace);
  // The jobs a previous hnowd left under way (state.db), queued
  // again under their records as restoreQueue does: each computes only the
  // units its kept results do not cover. One whose --input changed since
  // (size or modification time) ends "interrupted", saying why.
  void resumeRunning(Duration grace);
  // Some job has not finished.
  bool running() const;
  // Lost agents, deadlines, the next round: hnowd's loop calls it every 250 ms.
  void tick();

  // The coordinator's drift events (through DriftListener): a compute drift
  // of an agent re-plans the work not yet sent (the next round); losses are
  // noticed by tick() from the coordinator's status.
  void ratesDrifted(const RateEvent& event, const planner::NodeRates& rates);

 private:
  struct Job;
  struct Actions;
  // A new Job (where Actions is whole, job_service.cc).
  static std::shared_ptr<Job> makeJob();
  // A job the last hnowd left (queued or running) as a new Job under
  // `record`, queued, held for `grace`; or why not: its request's bytes
  // cannot be read, its --input cannot be opened, or (`inputSize` not 0)
  // it is not the input of that size and time any more.
  Result<std::shared_ptr<Job>> requeued(OperationId record, const std::string& requestBytes, Duration grace,
                                        std::uint64_t inputSize = 0, std::int64_t inputModifiedNs = 0);
  // job_service_queue.cc: --to names only agents or sites hnowd knows, and
  // --replicas no more agents than those that run jobs.
  Result<void> checkTargets(const RunRequest& request) const;
  // The alive agents the job may run on now (its --to, agents that run jobs).
  std::vector<std::string> mayUse(const Job& job) const;
  // Starts the queued jobs whose agents are free (core/jobs/job_queue.h);
  // the others are told why they wait.
  void admit();
  // Every agent hnowd knows that the job's --to covers is connected: a job
  // left by the last hnowd need not wait out its grace (kRestoredQueueGrace).
  bool everyKnownBack(const Job& job) const;
  // A queued job got its agents: it calibrates, plans and runs.
  void launch(Job& job);
  // job_service_joins.cc: agents that log in or come back during a job in
  // rounds take part from its next round; a new one calibrated first.
  void joinAgents(Job& job);
  void joinNew(Job& job, const std::string& agent);
  // The agents a started job holds: its agents not lost, and those joining it.
  static std::vector<std::string> holding(const Job& job);
  // The agents other jobs run on, are joining, or wait for (queued).
  std::set<std::string> heldByOthers(const Job& job) const;
  // job_service_resume.cc: the bytes per to-do unit left (UnitGaps); a
  // --concat job kept in state.db as it runs, each accepted share as it
  // is accepted, and forgotten there (its old directories removed) once it ends.
  Result<double> todoBytesPerUnit(const Job& job) const;
  void keepRunning(Job& job);
  void keepAccepted(Job& job);
  void forgetRunning(Job& job);
  // job_service_claims.cc: an attempt written before its command starts;
  // each agent seen for the first time told which job files hnowd still
  // counts on; a restored job waits for those answers; after indexing, the
  // held tasks that cover to-do units are adopted, and enter the run once
  // it starts.
  // `digest`: its result's, once computed (replicas compare them).
  void keepAttempt(Job& job, int attempt, const std::string& digest = "");
  // --replicas adaptive: the ledger in state.db as it changes.
  void keepHostTrust();
  void claimHeld();
  bool claimsAnswered(const Job& job) const;
  void adoptHeld(Job& job);
  void adoptIntoRun(Job& job);
  // job_service_partials.cc (--reduce): each partial the reduction
  // combines written to state.db before its inputs are dropped; after a
  // restart, the partials whose tops their agents still hold stand for
  // their shares: those are neither adopted nor computed, but enter the
  // run as done and the reduction as kept partials.
  void keepPartial(Job& job, const StoredPartial& partial);
  void restorePartials(Job& job);
  void restoreIntoRun(Job& job);
  void restoreReduction(Job& job);
  // job_service_returns.cc: each agent up or not (`up`), and those that
  // logged in again since the last tick; what such an agent held for a job
  // in its earlier session is lost. An agent this hnowd saw, lost and sees
  // again, or that logged in again (it restarted): the results it gave
  // back revive their shares' attempts (JobRun::revive); those no job
  // wants are dropped on it.
  std::set<std::string> loggedInAgain(std::map<std::string, bool>& up);
  // An order of the job goes to `agent` now (Job::sessions).
  void sendingTo(Job& job, const std::string& agent);
  // The agent logged in again since the job first sent to it: true once.
  bool sessionEnded(Job& job, const std::string& agent);
  void sessionLost(Job& job, const std::string& agent);
  // The agent, at its login `login`, still holds `held` (result tokens):
  // the finished results sent to its earlier logins that it does not are lost.
  void heldAfterLogin(const std::string& agent, std::uint64_t login, const std::set<std::string>& held);
  void askReturning(const std::map<std::string, bool>& up, const std::set<std::string>& relogged);
  void reviveHeld(const std::string& agent, const std::vector<AgentLink::HeldJobFile>& held,
                  const std::set<std::string>& taken = {});
  // A reduction that lost `agent` takes back the partials it still holds
  // (`held`, tokens) and the agent itself: the tokens taken.
  std::set<std::string> backToReductions(const std::string& agent, const std::set<std::string>& held);
  // A queued job's request kept in state.db (or no longer).
  void keepQueued(Job& job);
  void dropQueued(Job& job);
  // The input read through once, cut into units (SourcePlane::indexUnits),
  // then calibrate().
  void indexInput(Job& job, const conf::SplitSpec& split);
  void calibrate(Job& job);
  // The sample served (its digest `sha`): each agent in `needed` runs the command on it.
  void calibrateOn(Job& job, const std::vector<std::string>& needed, const std::string& token, const std::string& sha,
                   std::uint64_t k, std::uint64_t sampleBytes, const std::string& key);
  // An agent that cannot finish its calibration (lost) is left out of the job.
  // `why`: the agent answered, but its [jobs] refused or limited the command.
  void excludeFromCalibration(Job& job, const std::string& agent, const std::string& why = "");
  // Agents whose calibration is past its deadline (core/jobs/job_calibration.h)
  // are left out, their commands killed (their job files dropped).
  void checkCalibrationDeadlines(Job& job);
  void plan(Job& job);
  // job_rounds.cc: rounds planned on ready times (core/jobs/job_rounds.h).
  int roundsFor(Job& job, const std::vector<std::string>& active, double sourceUplink);
  void planNextRound(Job& job, const std::vector<std::string>& active, double sourceUplink);
  double secondsPerUnitNow(const Job& job, const std::string& agent) const;
  // A compute drift slowed `agent`: its shares not yet started may move.
  void moveUnstarted(Job& job, const std::string& agent);
  double linkOf(const std::string& agent, double sourceUplink) const;
  // Shares (worker = index into `active`, units, times from now) become files
  // on the data plane and the JobRun's shares.
  // The share `k` served as its range of the input: its digest taken off the
  // control thread, the attempts waiting for it served then.
  void serveShare(Job& job, std::size_t k, std::uint64_t offset, std::uint64_t length);
  bool commitShares(Job& job, const std::vector<std::string>& active, std::vector<PlannedShare> shares,
                    const std::vector<int>& returnOrder, const std::string& algorithm, double predictedEnd,
                    bool keepPrediction);
  void advance(Job& job);
  // Creates the job's JobRun over the transport (JobService::Actions).
  void startRun(Job& job, std::vector<JobShare> shares, std::vector<int> returnOrder, std::vector<std::string> pool,
                JobRunOptions options);
  struct ReductionLink;
  // --reduce (job_reduction.cc): hands the results to core/jobs/job_reduction.h,
  // again after lost shares were computed again.
  void startReduction(Job& job);
  void reductionChanged(Job& job);
  void writeFinal(Job& job, const std::string& path);
  // The output written by `write` at its place (RunFiles::outputDir: --output
  // confined again, it may have changed since the start), named in
  // `job.outputPath`; its size, or why it could not be written.
  Result<std::uint64_t> placeOutput(Job& job, const std::function<Result<std::uint64_t>(OutputPlace&)>& write);
  bool agentUp(const std::string& agent) const;
  void writeConcat(Job& job);
  // The run ended: done, or the Error that ended it.
  void finish(Job& job, const Result<void>& ended);
  // `keepResults`: hnowd is stopping and the job resumes at the next
  // start: its directory (its accepted results) stays, and so do the
  // files and running shares on its agents.
  void cleanUp(Job& job, bool keepResults = false);
  void forgetOldOutputs(std::uint64_t newest);
  // A result kept at hnowd (no --output) goes once this many newer runs
  // exist after a client fetched it, or this many more before: a client
  // that left (`--detach`) fetches it later, maybe after a queue of jobs.
  static constexpr std::uint64_t kKeptOutputs = 8;
  static constexpr std::uint64_t kKeptUnfetched = 64;
  void receiveFile(Job& job, const std::string& token, std::uint64_t size, const std::string& sha,
                   const std::string& from, const std::string& name,
                   std::function<void(const Result<std::string>& path)> done);
  std::string addressOf(const std::string& agent) const;
  // job_service_results.cc: a result (or the reduction's last partial)
  // brought from `agent` to the job's directory as `name`: pulled from an
  // agent hnowd can connect to, handed over on a connection the agent
  // opens by one it cannot (docs/reachability.md). `done` once, later.
  void fetchResult(Job& job, const std::string& agent, const std::string& token, std::uint64_t size,
                   const std::string& sha, const std::string& name,
                   std::function<void(const Result<std::string>& path)> done);
  struct OfferedFetch;
  void askToOffer(const std::shared_ptr<OfferedFetch>& fetch, const std::string& lostWhy);
  void failOffer(const std::shared_ptr<OfferedFetch>& fetch, const std::string& why);

  Coordinator& coordinator_;
  SourcePlane& plane_;
  RunFiles& files_;
  std::string sourceAddress_;
  const Clock& clock_;
  Defer defer_;
  std::function<std::string()> newToken_;
  double sourceUplink_;
  double calibrationMaxS_;
  std::map<std::uint64_t, std::shared_ptr<Job>> jobs_;
  FinishedOperations finished_{kKeptUnfetched};  // the newest finished runs stay answerable
  CalibrationCache calibrations_;
  // --replicas adaptive: who has agreed with other agents so far, across runs.
  std::mt19937_64 random_{std::random_device{}()};
  HostTrust hostTrust_{HostTrustOptions{}, [this] { return std::uniform_real_distribution<double>(0.0, 1.0)(random_); }};
  std::uint64_t nextJob_ = 1;
  // Agents told which job files this hnowd counts on (true once they
  // answered), and the tasks each said it still holds.
  std::vector<StoredLedgerEntry> keptHostTrust_;
  std::map<std::string, bool> claims_;
  std::map<std::string, std::set<std::string>> heldTasks_;
  std::map<std::string, bool> upBefore_;  // each agent's state at the last tick, once claimed
  std::map<std::string, std::uint64_t> loginsSeen_;  // each agent's AgentView::logins at the last tick
  // A TransferObserver of its own, so that JobService's own interface stays
  // what a job needs.
  struct DriftListener final : TransferObserver {
    explicit DriftListener(JobService& s) : service(s) {}
    void transferReport(const std::string&, const std::string&, const TransferReport&) override {}
    void agentGone(const std::string&) override {}
    void ratesDrifted(const RateEvent& event, const planner::NodeRates& rates) override {
      service.ratesDrifted(event, rates);
    }
    // A job moves shares and results between its phases of computing.
    bool moving() const override { return service.running(); }
    JobService& service;
  };
  DriftListener driftListener_{*this};
};

}  // namespace hnow::daemon
