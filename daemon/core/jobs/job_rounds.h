#pragma once
// `hnow run` in rounds: the work goes out in a few rounds,
// each planned when the agents are about to be free, on the rates known
// then (drift events, measured compute times, agents lost).
//
// Seed 002's model (§III) has one worksharing episode: every worker is free at
// time 0 and receives one package. Rounds need what it lacks: a *ready time*
// r_i per worker (it is still computing what it holds) and a per-share
// start-up cost f_i (a share is one run of the command, so each share pays the
// command's start once). The extension kept here, stated so it can be checked:
//   - serve order: by ready time, ties by transit rate tau_i (fastest link
//     first: seed 002 Theorem 1(c));
//   - return order = serve order (FIFO: seed 002 §IV-B, "a smooth and
//     well-structured pipelining");
//   - w_i is sized so that worker i's compute ends when the return port
//     reaches it and the round's last return ends at a common time T:
//       max(s_i + tau_i w_i, r_i) + f_i + R_i w_i = T - g_i,
//     s_i the serve port's clock before i, g_i the returns at or after i in
//     return order (delta tau_j w_j); w_i = 0 when even w = 0 misses T.
//     As in seed 002's closed forms no worker idles and all end together;
//     T is found by bisection on sum w_i = W, g by a few fixed-point passes.
// Whole units come from largest remainders, and the prediction is the
// replay of the rounded shares (one serve port, one return port, one share
// computed at a time per worker), so it is exact for the model.
// Pure: values in, a plan out.
#include <cstdint>
#include <vector>

#include "base/result.h"

namespace hnow::daemon {

struct RoundWorker {
  double tau = 0.0;        // seconds to serve one unit to it
  double perUnit = 0.0;    // R_i: seconds to compute one unit
  double fixedS = 0.0;     // f_i: seconds per share whatever its size (process start-up)
  double readyAt = 0.0;    // r_i: when it has computed what it already holds (0: free now)
};

struct RoundsInput {
  std::vector<RoundWorker> workers;
  std::uint64_t units = 0;     // all the work still to plan
  int rounds = 1;              // split into this many rounds of (nearly) equal units
  double resultRatio = 0.0;    // delta in [0, 1]
  double serveFreeAt = 0.0;    // hnowd's serve port
  double returnFreeAt = 0.0;   // hnowd's return port
  // A round is served no earlier than `lead` seconds before its first
  // worker is free (JobService does the same: it commits a round at that
  // moment, so that what drifted meanwhile is in the plan).
  double lead = 0.25;
};

struct RoundShare {
  int worker = 0;  // index into RoundsInput::workers
  std::uint64_t units = 0;
  double serveStart = 0, serveEnd = 0, computeStart = 0, computeEnd = 0, returnStart = 0, returnEnd = 0;
};

struct Round {
  std::vector<RoundShare> shares;  // serve order, each with units > 0
  std::vector<int> returnOrder;    // indices into `shares`
  std::uint64_t units = 0;
  double end = 0.0;                // its last return (or compute, when delta = 0)
};

struct RoundsPlan {
  std::vector<Round> rounds;
  double makespan = 0.0;  // the replay's last return over all rounds
};

// All rounds, each planned on the ready times the previous ones leave: the
// whole job's prediction, and (its first round) what to serve now.
hnow::Result<RoundsPlan> planRounds(const RoundsInput& input);

// --rounds auto: the most rounds (at most `maxRounds`) whose predicted
// makespan stays within `tolerance` of one round's: rounds pay a start-up per
// share, so the first round is kept large enough to amortize it.
int chooseRounds(RoundsInput input, int maxRounds = 4, double tolerance = 0.05);

// One worker's ready time: what it still holds, in order, from `now` = 0.
// A share computing since `startedAgo` seconds ends at its predicted time or,
// when it is already late, a little after now; the next ones follow.
struct HeldShare {
  std::uint64_t units = 0;
  bool computing = false;
  double startedAgo = 0.0;   // computing: seconds since its compute began
  double arrivesIn = 0.0;    // not computing: when its input will have arrived
};
double readyTime(const std::vector<HeldShare>& held, double perUnit, double fixedS);

// A compute drift slowed `slowed`: where each share it holds but has not
// started (`units`, in the order it would compute them) ends soonest: on
// it (after its ready time, which excludes these shares) or on another
// worker (after its ready time and the share's fetch). Greedy in that order,
// each placement moving the chosen worker's ready time. Returns a worker
// index per share (`slowed` itself: keep it).
std::vector<int> placeUnstarted(std::vector<RoundWorker> workers, int slowed, const std::vector<std::uint64_t>& units);

// Whether to commit the next round now (JobService asks every tick, with
// `next` planned on ready times relative to now and the serve port free):
// planRounds holds a round back until `lead` before its first worker is
// free, so a round that does not start within `within` can wait, and what
// is measured or drifts meanwhile gets into its plan.
bool timeToServe(const Round& next, double within);

}  // namespace hnow::daemon
