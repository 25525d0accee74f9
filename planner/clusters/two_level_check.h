#pragma once
// Discrete-event replay of a two-level schedule (seed 001) under its model
// and limits. Rules checked:
// - a local transfer lasts the local time, a global one the global time C;
// - blocking model (§2): sender and receiver are busy for the whole transfer;
//   postal model (§6): the sender is busy for the first local time, the
//   receiver for the last local time (the arrival); a node is busy with at
//   most one thing at a time;
// - a node sends only once it holds the message (the source from time 0);
//   nobody receives twice; the source never receives;
// - bounded degree (§5.1): at most d_i nodes of cluster i busy with global
//   transfers at once; bounded-size matching (§5.3): at most B global
//   transfers in progress at once;
// - every target (instance.needed, and the source) ends with the message.
// The makespan, or an Error naming the first violation found.
#include <span>

#include "planner/schedule_check.h"
#include "planner/clusters/two_level.h"

namespace hnow::planner {

Result<double> checkTwoLevel(const TwoLevelInstance& instance, const GlobalLimits& limits,
                             std::span<const Transfer> schedule);

}  // namespace hnow::planner
