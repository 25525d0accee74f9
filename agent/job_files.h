#pragma once
// Where an agent keeps the files of `hnow run` (agent/job_runner.h), as the
// start-up sweep (agent/startup_sweep.h) must know them too.
#include <string_view>

namespace hnow::agent {

// Under the data root: shares, partials and results, each under its token's hex.
inline constexpr const char* kJobDir = ".hnow-jobs";
// Beside a result: its task's outcome and the hnowd it is for; the sweep
// keeps such a pair, for the agent started again to give the result back.
inline constexpr std::string_view kOutcomeSuffix = ".done";

}  // namespace hnow::agent
