#pragma once
// The state of one `hnow run` job inside JobService (job_service*.cc; the
// wire in server/job_rpc.cc). Not an interface.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/jobs/job_evidence.h"
#include "core/jobs/job_plan.h"
#include "core/jobs/job_reduction.h"
#include "core/jobs/job_run.h"
#include "core/jobs/unit_gaps.h"
#include "conf/unit_index.h"
#include "core/jobs/job_service.h"

namespace hnow::daemon {

// Shared: the agents' answers hold their job (Job::self), so a finished job
// forgotten (FinishedOperations) before a late answer arrives is not freed under it.
struct JobService::Job : std::enable_shared_from_this<JobService::Job> {
  std::shared_ptr<Job> self() { return shared_from_this(); }
  std::uint64_t id = 0;
  RunRequest request;
  bool reduce = false;
  // The --input, opened, and its units once read through (core/send/source_plane.h indexUnits).
  std::shared_ptr<const RunInput> input;
  conf::UnitIndex units;
  bool indexed = false;
  conf::ReadAt reader() const {
    return [input = input](std::uint64_t offset, std::size_t length) { return input->read(offset, length); };
  }
  Result<std::uint64_t> unitStart(std::uint64_t unit) const { return units.start(unit, reader()); }
  std::vector<std::string> agents;  // chosen at start
  std::set<std::string> excluded;   // lost while calibrating, or its [jobs] refused the command
  std::map<std::string, std::string> leftOutWhy;  // excluded for a reason of the agent's: the reason
  std::set<std::string> lost;       // reported to the run
  std::set<std::string> joining;    // logged in during the job, calibrating to join its next round
  std::string dir;
  std::string phase = "queued";
  std::string waiting;  // queued: why (core/jobs/job_queue.h)
  bool keptQueued = false;  // its request is in state.db's queue
  TimePoint notBefore{};    // restored after a restart: not started before (agents logging in again)
  bool finished = false;
  std::string error;
  TimePoint created{}, started{};
  double elapsedS = 0.0;
  std::map<std::string, JobCalibration> calibrated;
  std::optional<JobPlan> plan;
  std::vector<std::string> shareTokens, shareShas;
  std::vector<std::uint64_t> shareSizes;
  // Each share's digest is taken off the control thread (SourcePlane::serveRange):
  // the attempts to serve it wait for it.
  std::vector<bool> shareHashed;
  std::map<std::size_t, std::vector<int>> servesWaiting;
  std::unique_ptr<JobActions> actions;  // a JobService::Actions (job_service_actions.cc)
  std::unique_ptr<JobRun> run;
  struct AttemptData {
    std::string resultToken;
    AgentLink::JobTaskAnswer result;
    std::string path;  // at hnowd once collected
    // The agent's login (Coordinator::logins) its share or its command went
    // to; 0: nothing sent yet. A later login loses it (JobRun::sessionLost).
    std::uint64_t login = 0;
    // The share's input as the agent holds it (an adopted attempt's is the
    // earlier hnowd's); "": the run's own.
    std::string shareToken;
  };
  std::map<int, AttemptData> attempts;
  // Per agent, its login (Coordinator::logins) the job first sent an order
  // to since it last took the agent's earlier sessions as gone: a later
  // login means the agent restarted or reconnected with some of the job's
  // work on an earlier session (JobService::sessionLost), even when no
  // look of JobService came between (its first tick included).
  std::map<std::string, std::uint64_t> sessions;
  std::map<std::string, std::vector<std::string>> agentTokens;  // to drop at the end
  std::vector<std::string> planeTokens;                         // served or received by hnowd
  // --reduce: the reduction (core/jobs/job_reduction.h) and, per share, the attempt it holds.
  std::unique_ptr<ReductionActions> reductionLink;  // a JobService::ReductionLink
  std::unique_ptr<JobReduction> reduction;
  std::map<int, int> leafAttempt;
  double reductionPredictedS = 0.0;
  std::string reductionName;
  TimePoint reductionStarted{};
  std::vector<RunBar> bars;  // reduction steps
  std::string outputPath;
  bool outputFetched = false;  // a client asked for it (JobService::outputPath)
  std::uint64_t outputSize = 0;
  OperationId record = 0;
  std::string cancelledBy;  // the operator who cancelled it (JobService::cancel); "" not cancelled
  int calibrating = 0;
  // The calibrations under way (calibrate()): when they began, the step each
  // agent is at, the tokens to drop on an agent left out at the deadline (so
  // its command is killed), the finished ones' times, who missed it.
  TimePoint calibrationStarted{};
  std::map<std::string, std::string> calibrationStep;
  std::map<std::string, std::vector<std::string>> calibrationTokens;
  std::vector<double> calibrationTookS;
  std::map<std::string, std::string> calibrationLate;  // why, without the hint
  // The units still to compute, set once the input is indexed: all of
  // them, or what a restart left (core/jobs/unit_gaps.h). Plans count in
  // its to-do units: nextUnit is the first to-do unit no round has taken yet.
  UnitGaps todo;
  std::uint64_t nextUnit = 0;
  // Shares accepted before hnowd restarted (state.db), in input order: their
  // results are in `oldDirs`, and go into the output at their place.
  struct KeptShare {
    std::uint64_t firstUnit = 0, units = 0;
    std::string path;
  };
  std::vector<KeptShare> kept;
  std::vector<std::string> oldDirs;
  // Kept in state.db as it runs, for the next hnowd to resume (--concat
  // with a record); the shares whose acceptance state.db holds.
  bool resumable = false;
  std::set<std::size_t> keptInState;
  // The attempts the last hnowd sent to agents (state.db); the shares
  // whose agents still hold some of them, to be adopted by the run
  // (job_service_claims.cc); and, by share and agent, the attempt whose
  // result an adopted (or revived) attempt asks for instead of running the
  // command.
  std::vector<StoredAttempt> held;
  struct AdoptedShare {
    std::uint64_t firstUnit = 0, units = 0;
    int replicas = 1;                   // results that must agree
    std::vector<StoredAttempt> holding; // their agents hold the task: collected
    std::vector<StoredAttempt> agreed;  // computed before, held no more: their digests count
  };
  std::vector<AdoptedShare> adopted;
  std::map<std::size_t, std::map<std::string, StoredAttempt>> claimedResults;
  // --reduce after a restart (job_service_partials.cc): the partials the
  // earlier hnowd's reduction combined (state.db, in the order made); of
  // them, the tops an agent still holds (tokens), and the ones held at all;
  // the share results combined into those tops (by token); and the run's
  // share standing for each such result.
  std::vector<StoredPartial> partials;
  std::vector<std::string> restoredTops;
  std::set<std::string> heldPartials;
  std::map<std::string, StoredAttempt> restoredLeaves;
  std::map<std::string, int> restoredShare;
  int roundsLeft = 1;
  int rounds = 0;              // decided at the first plan (1: one-shot, seed 002 as is)
  // Compute drift events (coordinator) since the job started, per agent.
  std::map<std::string, ComputeDrift> drifted;
};

}  // namespace hnow::daemon
