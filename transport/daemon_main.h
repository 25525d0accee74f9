#pragma once
// What both daemons' main() share: their command line, parsed by CLI11 as
// `hnow`'s is: `--config FILE` (required), `--help`, `--version`, and the
// program's own options, added to the app before parsing.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace hnow::transport {

// hnow's version, the project's in CMakeLists.txt: what every binary's --version says.
const char* hnowVersion();

// An app for `program` (its --help says `description`) with --config and
// --version; the config path lands in `configPath`.
void describeDaemon(CLI::App& app, const char* program, std::string& configPath);

// Parses the command line: none when the daemon runs on; otherwise its
// exit status, after CLI11 printed what it had to (0 for --help and
// --version, 2 for a bad command line, with the usage).
std::optional<int> exitInsteadOfRunning(CLI::App& app, int argc, char** argv);

}  // namespace hnow::transport
