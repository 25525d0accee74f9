#pragma once
// `hnow cancel ID`, and what a client following an operation does when it
// is cancelled (docs/send.md, "Cancelling").
#include <cstdint>
#include <string>

namespace hnow::cli {

// A client whose operation an operator cancelled (`hnow cancel`) exits 3;
// one left by its own Ctrl-C exits 130, the shell's 128 + SIGINT.
inline constexpr int kCancelledExit = 3;
inline constexpr int kInterruptedExit = 130;

// Cancels operation `record` (`hnow ops`); 0, or 1 with hnowd's refusal.
int runCancelCommand(const std::string& configPath, std::uint64_t record);

}  // namespace hnow::cli
