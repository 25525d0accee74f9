#pragma once
// Divisible-load worksharing with return messages (seed 002, Beaumont and
// Rosenberg, "Link-heterogeneity vs. node-heterogeneity in clusters").
//
// A master serves each worker its share in one message, the worker computes
// and returns its results in one message. The master has one port in each
// direction (§III-A): one serve message at a time, one return at a time.
// Times are per work unit: a share of w units takes tau*w to serve, R*w to
// compute ((un)packaging included, §III-B) and delta*tau*w to return.
//
// A protocol fixes who takes part, the serve order and the return order. Its
// shares solve the no-gap equations (12) of §V-A, one per worker:
//   (serve of everyone served up to i) + R_i w_i + delta*(return of everyone
//   returning from i on) = L,
// generalised, as Theorem 5 does, to a computing time R_i per worker. The
// system is linear in L, so one solve answers both "most work in a lifespan
// L" and "shortest time for W units" (scale by W / work(L = 1)).
#include <span>
#include <vector>

#include "base/result.h"

namespace hnow::planner {

struct Worker {
  double linkTime = 1.0;     // tau_i: seconds per work unit between master and worker
  double computeTime = 1.0;  // R_i: seconds per work unit on the worker
};

struct WorksharingProblem {
  std::vector<Worker> workers;
  double resultRatio = 0.0;  // delta: result units per work unit, 0 <= delta <= 1 (seed 002 §II)
};

// Worker indices in the order the master serves them and in the order they
// return; both list the same workers (those taking part).
struct Protocol {
  std::vector<int> serveOrder;
  std::vector<int> returnOrder;
};

struct Allocation {
  Protocol protocol;
  std::vector<double> units;  // per worker index; 0 for a worker not in the protocol
  double work = 0.0;          // total units
  double lifespan = 0.0;      // L the shares were computed for
};

// Worker indices by nondecreasing link time (ties by index): the serve order
// of Theorem 1(c), also used for FIFO (Proposition 4) and §V-B.
std::vector<int> byIncreasingLinkTime(const WorksharingProblem& problem);

// FIFO returns in serve order; LIFO in reverse serve order (§III-B, Figs. 2-3).
Protocol fifoProtocol(std::span<const int> serveOrder);
Protocol lifoProtocol(std::span<const int> serveOrder);

// The direct linear solve of system (12) for any protocol, by Gaussian
// elimination with partial pivoting (O(k^3) for k workers taking part).
// Shares may come out negative: the protocol is then infeasible as given.
// An error value only if the system is singular.
Result<Allocation> solveProtocol(const WorksharingProblem& problem, const Protocol& protocol,
                                 double lifespan);

// Seed 002 Theorem 1 (a), eq. (2)-(3): LIFO shares by the O(k) recurrence
// w_1 = L/(R_1 + (1+delta)tau_1), w_k = R_{k-1} w_{k-1} / (R_k + (1+delta)tau_k).
// Always positive.
Allocation lifoAllocation(const WorksharingProblem& problem, std::span<const int> serveOrder,
                          double lifespan);

// Seed 002 Theorem 2, eq. (6)-(7): FIFO shares by the O(k) recurrence
// w_k = (R_{k-1} + delta tau_{k-1}) / (R_k + tau_k) * w_{k-1}, w_1 from the
// first equation. Always positive.
Allocation fifoAllocation(const WorksharingProblem& problem, std::span<const int> serveOrder,
                          double lifespan);

// Seed 002 Theorem 2(c) with N_m, D_m of §IV-B: FIFO's total work W_m (for
// L = 1) on each prefix of `serveOrder`, m = 1..k, in O(k). Proposition 1:
// W_{m+1} > W_m iff W_m < 1/(delta tau_{m+1}).
std::vector<double> fifoPrefixWork(const WorksharingProblem& problem, std::span<const int> serveOrder);

// Worker selection by Proposition 1: the length of the prefix of
// `serveOrder` on which FIFO does the most work (the first maximum, so a
// worker that adds nothing is left out).
int fifoSelectedPrefix(const WorksharingProblem& problem, std::span<const int> serveOrder);

// The same allocation for another lifespan (the model is linear in L).
Allocation scaledTo(const Allocation& allocation, double lifespan);

// The lifespan in which `allocation`'s protocol completes `work` units.
double lifespanFor(const Allocation& allocation, double work);

// The smallest share, e.g. to tell whether a protocol is feasible (>= 0).
double smallestShare(const Allocation& allocation);

}  // namespace hnow::planner
