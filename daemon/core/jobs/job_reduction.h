#pragma once
// `hnow run --reduce CMD`: partial results combined pairwise on
// the agents along a seed 003 reduction schedule (optimal for a few agents,
// else slowest node first) to a sink, whose result hnowd collects. A state
// machine on a Clock, like JobRun, so that losing an agent mid-reduction can
// be tested by hand (docs/jobs.md "Reduction"):
//
// Every partial records what it was combined from, and which agents still
// hold its file (its producer keeps a partial it sent; a combine drops its
// inputs on the combining agent). When an agent is lost, or a step misses
// its deadline (its agent is then treated as lost for this job), the steps
// under way are abandoned and the reduction is planned again over the
// survivors: each top partial whose file no live agent holds is replaced by
// what it was combined from, down to share results, and a share result
// with no live holder is computed again (ReductionActions::recompute).
// So every share's result enters the final result exactly once.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"

namespace hnow::daemon {

struct ReductionPartial {
  std::string producer;           // the agent that made it
  std::set<std::string> holders;  // live agents that hold its file
  int share = -1;                 // a share's result (a leaf), else -1
  std::vector<int> children;      // combined from (partial ids)
  std::uint64_t size = 0;
  bool consumed = false;          // input to a combine that succeeded
  bool replaced = false;          // a leaf whose share was computed again
  std::string token, digest;      // the caller's names for its file (opaque here)
};

// A combine's output file: its size and the caller's names for it (see ReductionPartial).
struct CombinedFile {
  std::uint64_t size = 0;
  std::string token{}, digest{};
};

class ReductionActions {
 public:
  virtual ~ReductionActions() = default;
  // Run CMD on `agent` over partial `into` followed by `other` (both on
  // `agent`) -> JobReduction::combined(step, ...).
  virtual void combine(int step, const std::string& agent, int into, int other) = 0;
  // `to` fetches `partial` from `from` -> moved(step, ...).
  virtual void move(int step, int partial, const std::string& from, const std::string& to) = 0;
  // hnowd fetches the final partial from `agent` -> collected(step, ...).
  virtual void collect(int step, int partial, const std::string& agent) = 0;
  // `agent` no longer needs its copy of `partial`. No answer expected.
  virtual void drop(int partial, const std::string& agent) = 0;
  // These shares' results are lost with their agents: compute them again,
  // then addLeaf() each and start() again.
  virtual void recompute(const std::vector<int>& shares) = 0;
};

// What the plan needs to know of an agent (the rate table and calibration).
struct ReductionCosts {
  double uplinkBytesPerSecond = 1e9;
  double sendOverheadS = 0.0;
  double combineFixedS = 0.0;       // a run of CMD: start-up
  double combineSecondsPerByte = 0.0;
};

struct ReductionOptions {
  double slack = 2.0;  // step deadline = start + slack x predicted + grace
  Duration grace = std::chrono::seconds(2);
  int maxOptimal = 8;  // agents up to which the optimal schedule is searched
  // How long the share results of an agent lost by agentLost wait before
  // they are computed again: a restarted agent (systemd's Restart=, 1 s)
  // logs in again holding the results it finished (agentBack).
  Duration returnGrace{};
};

class JobReduction {
 public:
  using CostsOf = std::function<ReductionCosts(const std::string& agent)>;
  JobReduction(const Clock& clock, ReductionActions& actions, CostsOf costs, ReductionOptions options = {});

  // A share's accepted result, held by `agent`; returns the partial's id.
  int addLeaf(int share, const std::string& agent, std::uint64_t size, std::string token = "",
              std::string digest = "");
  // Partials an earlier hnowd's reduction of this job made before it
  // stopped (state.db), added before start(): a share's result combined
  // into a later partial (no agent holds its file any more), and a combine
  // of `children` (ids returned here; they become its inputs), which
  // `producer` still holds when `held`. A kept partial no agent holds
  // stands for its children, down to its shares, computed again as lost.
  int addKeptLeaf(int share, const std::string& producer);
  int addKeptCombined(const std::vector<int>& children, const std::string& producer, bool held, CombinedFile file);
  // Plans over the live partials and starts moving them (or asks for
  // recomputation first). Call once all leaves are added.
  void start();
  // The answers to ReductionActions' calls: done, or why not.
  void combined(int step, const Result<CombinedFile>& combined);
  void moved(int step, const Result<void>& moved);
  void collected(int step, const Result<void>& collected);
  // The agent is gone (its connection, or its process: it may come back
  // within returnGrace, see agentBack) or failed a move or collect.
  void agentLost(const std::string& agent);
  // `agent`, lost, is back (its process started again) and holds the files
  // `tokens`: it takes part again, and the partials among them it held
  // when it was lost are its again (a restarted agent keeps the results it
  // finished), so only what it truly lost is computed again. A reduction
  // waiting out returnGrace re-plans at once. The tokens taken back.
  std::set<std::string> agentBack(const std::string& agent, const std::set<std::string>& tokens);
  // Step `step` of the current plan is under way (not abandoned by a re-plan).
  bool underWay(int step) const { return steps_.count(step) > 0; }
  // Steps past their deadline: their agent is treated as lost (for good).
  // Lost share results are asked for once returnGrace is over. Call periodically.
  void tick();

  bool finished() const { return failure_.has_value() || final_.has_value(); }
  // Why the reduction failed; none while it has not.
  const std::optional<Error>& failure() const { return failure_; }
  std::optional<int> finalPartial() const { return final_; }
  const std::vector<ReductionPartial>& partials() const { return partials_; }
  // The shares whose results partial `p` combines (with repeats, if any).
  std::vector<int> sharesOf(int p) const;
  const std::string& scheduleName() const { return scheduleName_; }
  const std::string& sink() const { return sink_; }
  double predictedS() const { return predictedS_; }  // of the last plan
  int replans() const { return replans_; }
  bool waitingForRecompute() const { return waiting_; }
  const std::set<std::string>& lost() const { return lost_; }

 private:
  struct Node {  // an agent of the current plan
    int current = -1;          // its partial so far
    std::vector<int> arrived;  // partials on it, waiting to be combined into current
    std::string parent;        // "" for the sink
    int pendingChildren = 0;   // children not yet arrived
    bool busy = false, sent = false;
    double sendS = 0.0;
  };
  struct Step {
    enum class Kind { kCombine, kMove, kCollect } kind;
    std::string agent;  // where it runs (late: this agent is dropped)
    std::string from;   // kMove: the sender
    int partial = -1, other = -1;
    TimePoint deadline{};
  };
  void frontier(int p, std::vector<int>& tops, std::vector<int>& lost) const;
  void pump();
  int newStep(Step step, double predictedS);
  void fail(std::string reason);
  bool isLost(const std::string& agent) const { return lost_.count(agent) > 0; }
  // agentLost and a late step: `returns` the agent may come back (agentBack).
  void lose(const std::string& agent, bool returns);
  // Some lost agent may still come back with results start() would ask for again.
  bool awaitingReturn() const;

  const Clock& clock_;
  ReductionActions& actions_;
  CostsOf costs_;
  ReductionOptions options_;
  std::vector<ReductionPartial> partials_;
  std::set<std::string> lost_;
  std::map<std::string, std::set<int>> heldWhenLost_;  // the partials each lost agent held
  std::map<std::string, TimePoint> returnBy_;          // lost agents that may come back, until then
  bool pendingRecompute_ = false;                      // lost leaves wait for returnBy_
  std::map<std::string, Node> nodes_;
  std::map<int, Step> steps_;  // under way, of the current plan
  int nextStep_ = 0;
  bool running_ = false, waiting_ = false;
  std::optional<int> final_;
  std::optional<Error> failure_;
  std::string scheduleName_, sink_;
  double predictedS_ = 0.0;
  int replans_ = -1;
};

}  // namespace hnow::daemon
