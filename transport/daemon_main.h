#pragma once
// What both daemons' main() share: `--config FILE` parsing, and a plain
// message and exit status for a bad command line.
#include <optional>
#include <string>

namespace hnow::transport {

// The config path from `PROGRAM --config FILE` (or `-c FILE`); prints usage
// (`options`, the program's own, after it) and returns none for anything else.
std::optional<std::string> configPathFromArgs(int argc, char** argv, const char* program,
                                              const char* options = "");

}  // namespace hnow::transport
