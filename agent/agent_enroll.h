#pragma once
// `hnow-agent enroll TOKEN_FILE`: places the token `hnow agent token` made
// where the installed agent finds it (<data_dir>/enroll.token, mode 0600,
// owned by the agent's user), and, with --coordinator, writes hnowd's
// address into the agent's config. The agent enrolls on its next start and
// removes the token once hnowd has taken it (docs/packages.md): no unit
// drop-in to add and remove, so a packaged PC enrolls in three steps
// (install, enroll, start).
#include <string>
#include <variant>

namespace hnow::agent {

struct EnrollArgs {
  std::string configPath = "/etc/hnow/hnow-agent.toml";
  std::string tokenFile;
  std::string coordinator;  // "" leaves the config's coordinator as it is
};

// `enroll TOKEN_FILE [--config FILE] [--coordinator HOST:PORT]` (argv[0]
// is "enroll"), or the status to exit with instead (0 after --help).
std::variant<EnrollArgs, int> parseEnrollArgs(int argc, char** argv);

// Does the enrollment; prints what it did, or what is wrong and how to fix
// it. Returns the exit status: 0 done, 2 a bad token, config or argument,
// 1 a file that could not be written.
int enroll(const EnrollArgs& args);

}  // namespace hnow::agent
