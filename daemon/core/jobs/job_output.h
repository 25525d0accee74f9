#pragma once
// A job's output put in place: written as a temp file beside it, then renamed
// over it, so a reader never sees half an output and a failed write leaves
// what was there. --concat joins the results in input order; --reduce moves
// the last partial (a rename when it lies on the same file system).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/env.h"

namespace hnow::daemon {

struct OutputPlace {
  Env& dir;           // the output's directory
  std::string name;   // the output's name in it
  std::string temp;   // the temp file's name in it
  // Called before the temp file is made; what it returns is held while the
  // temp file exists (hnowd's marker for its start-up sweep). May be empty.
  std::function<std::shared_ptr<void>()> markTemp{};
};

// The files `results` (in `from`) joined in this order into the output; its size.
Result<std::uint64_t> writeConcatenation(Env& from, const std::vector<std::string>& results, const OutputPlace& place);

// The file `final` (in `from`) moved to the output: renamed when both are on
// one file system, else copied as writeConcatenation does; its size.
Result<std::uint64_t> placeFinal(Env& from, const std::string& final, const OutputPlace& place);

}  // namespace hnow::daemon
