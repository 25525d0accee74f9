#pragma once
// One run of a job's command: started with uv_spawn on a private
// libuv loop in the calling thread, stdin and stdout and stderr bound to
// files, no shell in between (argv[0] is looked up in PATH). Blocks until
// the command ends; meant for a worker thread.
#include <string>
#include <vector>

namespace hnow::agent {

struct CommandOutcome {
  bool started = false;
  int exitCode = -1;     // -1 when not started or killed by a signal
  int signal = 0;
  double wallSeconds = 0.0;
  std::string error;     // "" when it exited with status 0; else what happened
};

// `onStart(pid)` runs once the child exists (so a caller can kill it).
CommandOutcome runCommand(const std::vector<std::string>& argv, int stdinFd, int stdoutFd, int stderrFd,
                          void (*onStart)(void* context, int pid) = nullptr, void* context = nullptr);

}  // namespace hnow::agent
