#pragma once
// Lower bounds on any schedule of a two-level instance (seed 001), reported
// as `lower_bound` next to the plan. All are in time units: a "round" of
// the seed is one local time L, so its bounds are generalised with C >= L.
#include "planner/clusters/two_level.h"

namespace hnow::planner {

struct TwoLevelBounds {
  // ⌈log2 m⌉·L, m the nodes that must hold the message: holders at most
  // double every L (seed 001 §3.1; also in the postal model).
  double doubling = 0.0;
  // The relaxation with free local transfers (Lemmas 3.3, 4.2, 5.2, 6.4):
  // p·C in the blocking model, pC + c' in the postal one.
  double freeLocal = 0.0;
  // Theorem 3.2 (broadcast) (p-1)(C-L) + ⌈log2(N/2)⌉·L; Theorem 4.2
  // (multicast) with p' and k'; Theorem 5.4 (bounded-size broadcast) with
  // p_B + p_L and B. 0 where the seed gives none.
  double combined = 0.0;
  // Global steps of the free-local relaxation (p, or p' for Theorem 4.2).
  int globalSteps = 0;
  double value() const;
};

// `multicast` selects the §4 forms (k', p') of the bounds. Bounded degree
// (§5.1–5.2): also the bounds of the reduced instance I(d_i, d_i), which by
// Lemma 5.1 cannot take longer. Bounded-size matching (§5.3–5.4): at most
// B global transfers per step of the relaxation. The postal model (§6)
// is a broadcast without limits.
TwoLevelBounds twoLevelLowerBound(const TwoLevelInstance& instance, const GlobalLimits& limits,
                                  bool multicast);

// Steps of the free-local blocking relaxation until every cluster that
// needs the message was reached, at most `perStep` (0 = any number of)
// global transfers per step: each step every holder may reach one more
// cluster, and reaching the largest clusters first maximises the holders
// for every later step, so no schedule reaches more clusters in fewer steps.
int freeLocalSteps(const TwoLevelInstance& instance, int perStep);

// The time the last cluster is reached in the free-local postal relaxation
// (seed 001 Lemma 6.4: LCF with free local transfers is optimal there).
double freeLocalPostalTime(const TwoLevelInstance& instance);

}  // namespace hnow::planner
