#pragma once
// One `hnow run` job on hnowd, as a state machine: which share
// goes out next on hnowd's one serve port, which result comes back next on
// its one return port (seed 002 §III-A: one message at a time each way), and
// what to do when an agent is late, fails or disappears (volunteer
// computing: reissue the share elsewhere, accept the first result, drop
// duplicates). The transport is behind JobActions and time behind Clock, so
// tests drive it by hand.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "core/trust/host_trust.h"

namespace hnow::daemon {

// A share given to one agent. The attempt's id is its index in attempts().
struct JobAttempt {
  int share = 0;
  std::string agent;
  // kHeld: computed, waiting for another replica to agree (--replicas).
  // kReceived: served, waiting for the agent to finish its previous share
  // (an agent computes one share at a time, as the model's workers do).
  enum class State { kQueued, kServing, kReceived, kComputing, kComputed, kCollecting, kDone, kFailed, kDropped, kHeld };
  State state = State::kQueued;
  std::optional<TimePoint> serveStart, serveEnd, computeStart, computeEnd, collectStart, collectEnd;
  TimePoint deadline{};    // compute must have ended by then, else reissue
  double computeS = 0.0;   // as the agent measured it (emulation included)
  std::string digest;      // of the result, compared between replicas
  std::string error;       // kFailed: why (the command's stderr, or the transport's reason)
  double predictedS = 0.0; // serve start to compute end, from the plan
  bool overdue = false;    // its deadline passed and the share was reissued
  // Still under way or holding a result that may count.
  bool live() const {
    return state == State::kQueued || state == State::kServing || state == State::kReceived ||
           state == State::kComputing || state == State::kComputed || state == State::kCollecting;
  }
};

struct JobShare {
  std::uint64_t firstUnit = 0;
  std::uint64_t units = 0;
  std::string agent;             // planned
  double plannedComputeEnd = 0;  // seconds from the job's start (the plan's replay)
  double plannedServeStart = 0;
  std::optional<int> accepted;   // the attempt whose result counts
  bool lateOrLost = false;       // reissued: no longer holds up the return order
  bool done = false;             // result collected (or computed, without collection)
  int replicas = 0;              // results that must agree; 0: JobRunOptions::replicas
};

class JobActions {
 public:
  virtual ~JobActions() = default;
  // Each is answered later by the matching JobRun call with the same id.
  virtual void serve(int attempt) = 0;    // send the share's input to the agent -> served()
  virtual void compute(int attempt) = 0;  // run the command on it -> computed()
  virtual void collect(int attempt) = 0;  // bring the result to hnowd -> collected()
  // The attempt no longer counts (a duplicate, or its agent is gone): free
  // what the agent holds for it. No answer expected.
  virtual void drop(int attempt) = 0;
};

struct JobRunOptions {
  double slack = 2.0;                               // deadline = start + slack x predicted + grace
  Duration grace = std::chrono::seconds(2);
  int maxAttempts = 3;                              // per share
  bool collectResults = true;                       // false: results stay on the agents (--reduce)
  // The baseline of GNU parallel --pipe: shares have no agent; each goes to
  // the next idle agent, and results come back as they are ready.
  bool selfScheduling = false;
  // Untrusted volunteers: each share runs on this many agents and counts
  // once that many results agree (equal digests); disagreement runs it again.
  int replicas = 1;
  // Adaptive replication (--replicas adaptive): each share is checked by a
  // second agent unless its planned agent is trusted (core/trust/host_trust.h),
  // and a random fraction of those too; agreements and overrulings go to
  // the ledger. Null: `replicas` for every share.
  HostTrust* adaptive = nullptr;
};

class JobRun {
 public:
  // `shares` in serve order; `returnOrder` indexes `shares`; `agents` are
  // every agent that may take a reissued share.
  JobRun(const Clock& clock, JobActions& actions, std::vector<JobShare> shares, std::vector<int> returnOrder,
         std::vector<std::string> agents, JobRunOptions options = {});

  void start();
  // Rounds: more shares, planned on what the first rounds
  // measured; `returnOrder` indexes `shares`. While more may come, the run
  // is not finished when every share so far is.
  void addShares(std::vector<JobShare> shares, const std::vector<int>& returnOrder);
  void setMoreComing(bool more) { moreComing_ = more; }
  // Nothing being served or waiting to be: time to plan the next round.
  bool servesIdle() const { return !serving_ && serveQueue_.empty() && unassigned_.empty(); }
  // The answers to JobActions' calls: done, or why not.
  void served(int attempt, const Result<void>& served);
  // How long the agent computed (0: unknown), and its result's digest or why
  // there is none. `agentRefuses`: the agent's owner does not let it run the
  // command ([jobs] allow): it takes no share of this run again, and the
  // shares waiting for it go to other agents.
  void computed(int attempt, double computeS, const Result<std::string>& digest, bool agentRefuses = false);
  void collected(int attempt, const Result<void>& collected);
  void agentLost(const std::string& agent);
  // `agent` logged in again without being seen gone (its process restarted,
  // or it reconnected, within a tick): it dropped what its earlier session
  // held (agent/agent_runtime.cc), so these attempts of it, sent to that
  // session, are lost as agentLost loses them; the agent itself stays in
  // the run and may take shares.
  void sessionLost(const std::string& agent, const std::vector<int>& attempts);
  // An agent back after it was lost, or new to the run: it may take
  // reissued shares again (later rounds give it shares of its own).
  void agentJoined(const std::string& agent);
  // Rounds and drift: a share served to an agent that has
  // not started it (kQueued or kReceived) goes to `agent` instead, as a
  // reissue. False when the attempt has started, or `agent` is lost or has
  // tried the share already.
  bool moveTo(int attempt, const std::string& agent);
  // A share an agent has been computing since before this run began (an
  // earlier hnowd started it, core/jobs/job_service_claims.cc): its
  // attempt counts as served to `share.agent`, which computes it before
  // any other share; out of the return order (it holds no result back).
  // Its id; compute() follows at once unless the agent computes another.
  int adopt(JobShare share);
  // --reduce: a share whose result an earlier hnowd's reduction combined
  // into a partial an agent still holds (core/jobs/job_service_partials.cc):
  // done, with no attempt; redo() computes it should that partial be lost.
  // Its index.
  int keepDone(JobShare share);
  // A result of a share computed before this run began whose digest is
  // known though no agent holds it any more (state.db): it counts towards
  // the replicas' agreement as it would have in the earlier run.
  struct AgreedResult {
    std::string agent, digest;
  };
  // adopt() for a share checked by replicas (`share.replicas`): each of
  // `held` (share.agent first) computes its attempt of it before any other
  // share, `agreed` stand for the replicas computed before, and the
  // replicas still missing go out at once to agents that have not tried
  // it; the digests are compared as if the earlier run went on. The ids of
  // the attempts standing for `agreed`, in its order.
  std::vector<int> adoptReplicas(JobShare share, const std::vector<std::string>& held,
                                 const std::vector<AgreedResult>& agreed);
  // A result of `share` that `agent` computed in an attempt the run gave
  // up when it lost the agent (it restarted and gave it back): a new
  // attempt, counted as served and computed first on that agent; the
  // first result of the share counts, as ever. -1: the share needs none.
  int revive(int share, const std::string& agent);
  // Reissues shares whose attempts missed their deadline; call periodically.
  void tick();
  // --reduce: the accepted results now belong to the reduction
  // (core/jobs/job_reduction.h); losing their agent no longer reissues them.
  void handOver();
  // --reduce: these shares' results were lost with their agents during the
  // reduction: compute them again on agents not in `lost` (which take no more shares).
  void redo(const std::vector<int>& shares, const std::vector<std::string>& lost);

  bool finished() const { return failure_.has_value() || (remaining_ == 0 && !moreComing_); }
  // Why the run failed; none while it has not.
  const std::optional<Error>& failure() const { return failure_; }
  const std::vector<JobShare>& shares() const { return shares_; }
  const std::vector<JobAttempt>& attempts() const { return attempts_; }
  int reissued() const { return reissued_; }
  // The results of share `k` that must agree (1: no replicas).
  int replicas(int k) const { return replicasOf(shares_[static_cast<std::size_t>(k)]); }
  // Shares whose result a second agent checked (--replicas adaptive).
  int checked() const { return checked_; }
  TimePoint started() const { return started_; }

 private:
  int newAttempt(int share, const std::string& agent, Duration predicted);
  // adopt() and revive(): an attempt of share `k` whose input (and maybe
  // result) `agent` holds already: served, computed first on it.
  int heldAttempt(int k, const std::string& agent);
  void queueReplicas(std::size_t fromShare);  // --replicas: the copies of shares_[fromShare...]
  int replicasOf(const JobShare& share) const { return share.replicas > 0 ? share.replicas : options_.replicas; }
  // --replicas adaptive: the ledger learns who agreed with the accepted result and who did not.
  void judgeReplicas(int share, const std::string& digest);
  void pumpServes();
  bool assignNextBlock();  // self-scheduling: queues the next share for an idle agent
  void pumpReturns();
  void reissue(int share, const std::string& why);
  // A new attempt of the share on `agent`, queued for the serve port.
  void queueReissue(int share, const std::string& agent);
  void finishShare(int share);
  void fail(std::string reason);
  bool agentBusy(const std::string& agent) const;
  void startNextCompute(const std::string& agent);
  std::string pickAgent(int share) const;
  // agentLost and sessionLost: the live ones of `attempts` fail, and each
  // share left without a live attempt or a result goes elsewhere.
  void loseAttempts(const std::vector<int>& attempts, const std::string& why);
  // Lost, or refuses the command: takes no share.
  bool unavailable(const std::string& agent) const;
  // The shares waiting for `agent` (not yet computing) go to other agents.
  void moveWaitingFrom(const std::string& agent);
  // "a: why; b: why" of every failed attempt of the share.
  std::string failuresOf(int share) const;

  const Clock& clock_;
  JobActions& actions_;
  std::vector<JobShare> shares_;
  std::vector<int> returnOrder_;
  std::vector<std::string> agents_;
  std::vector<std::string> lost_;
  std::vector<std::string> refusing_;  // their [jobs] refuse the command
  JobRunOptions options_;
  std::vector<JobAttempt> attempts_;
  std::vector<int> serveQueue_;   // attempts waiting for the serve port
  std::vector<int> unassigned_;   // self-scheduling: shares not yet given out, in input order
  bool serving_ = false;
  bool collecting_ = false;
  std::size_t remaining_ = 0;     // shares not done
  int reissued_ = 0;
  int checked_ = 0;
  TimePoint started_{};
  std::optional<Error> failure_;
  bool moreComing_ = false;
};

}  // namespace hnow::daemon
