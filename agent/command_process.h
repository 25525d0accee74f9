#pragma once
// One run of a job's command, as the agent's owner limits it ([jobs],
// conf/jobs_config.h): forked and exec'd in the calling thread, no shell in
// between, in a session (and process group) of its own, at the owner's nice
// level and scheduling class, under the owner's rlimits, its whole group
// killed at the wall-time limit. Blocks until the command ends; meant for a
// worker thread.
#include <string>
#include <vector>

#include "conf/jobs_config.h"

namespace hnow::agent {

struct CommandSpec {
  std::string program;  // the absolute path executed (agent/job_policy.h resolved it)
  std::vector<std::string> argv;  // argv[0] as hnowd sent it
  int stdinFd = -1, stdoutFd = -1, stderrFd = -1;
  conf::JobLimits limits;
  int nice = 0;
  bool idle = false;  // SCHED_IDLE
};

struct CommandOutcome {
  bool started = false;
  int exitCode = -1;     // -1 when not started or killed by a signal
  int signal = 0;
  double wallSeconds = 0.0;
  double cpuSeconds = 0.0;  // user + system, of the command's own process
  // A limit of [jobs] ended it (or it failed while under memory_mb):
  // another agent may well run it.
  bool limited = false;
  std::string error;     // "" when it exited with status 0; else what happened
};

// Called on the running thread: `started` once the child exists (its pid is
// its process group's id: it may be killed from then on), `ended` once it
// has exited and before it is reaped (so its pid is never reused while known).
struct CommandHooks {
  void* context = nullptr;
  void (*started)(void* context, int pid) = nullptr;
  void (*ended)(void* context) = nullptr;
};

CommandOutcome runCommand(const CommandSpec& spec, CommandHooks hooks = {});

// SIGKILL to the command's process group and to the command itself (it may
// not have made its group yet).
void killCommand(int pid);

}  // namespace hnow::agent
