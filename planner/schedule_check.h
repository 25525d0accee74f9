#pragma once
// Discrete-event replay of a schedule under the one-port, sender-determined
// model of seeds 000 §2 and 003 §2: a transfer from p lasts t(p); a node takes
// part in at most one transfer at a time, as sender or receiver.
// The replay rejects an invalid schedule with an Error naming the first
// violation found (in time order) and otherwise returns its makespan: the end
// of the last transfer, 0 for an empty schedule. Every algorithm's output
// goes through it in the tests.
#include <span>
#include <vector>

#include "base/result.h"
#include "planner/transfer.h"

namespace hnow::planner {

// Broadcast (seed 000): the source holds the message at time 0; a node sends
// only after its receive has ended; nobody receives twice; the source never
// receives; every node in `targets` (all nodes when empty) is reached.
Result<double> checkBroadcast(std::span<const double> sendTime, int source,
                              std::span<const Transfer> schedule,
                              std::span<const int> targets = {});

// Reduction (seed 003): every node but the sink sends exactly once, after all
// of its receives have ended, to a node that has not sent yet; the sink never
// sends, so every value ends up combined at the sink.
Result<double> checkReduction(std::span<const double> sendTime, int sink,
                              std::span<const Transfer> schedule);

// Tolerance for comparing times computed along different summation paths.
bool sameTime(double a, double b);

}  // namespace hnow::planner
