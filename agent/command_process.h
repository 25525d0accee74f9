#pragma once
// One run of a job's command, as the agent's owner limits it ([jobs],
// conf/jobs_config.h): exec'd, no shell in between, by a keeper process the
// calling thread forks (agent/command_keeper.h), in a process group of its
// own in the keeper's session, at the owner's nice level and scheduling
// class, under the owner's rlimits. Everything the command starts ends with
// it, even what left its group or session (setsid, a daemon's double fork):
// when it exits, at the wall-time limit, on killCommand, and when the agent
// dies. Blocks until the command and all it started are gone; meant for a
// worker thread.
#include <string>
#include <vector>

#include "base/result.h"
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
  double cpuSeconds = 0.0;  // user + system, of the command's own process and the children it waited for
  // A limit of [jobs] ended it (or it failed while under memory_mb):
  // another agent may well run it.
  bool limited = false;
  Result<void> ended;    // done when it exited with status 0; else the Error saying what happened
};

// Called on the running thread: `started` once the keeper exists (its pid
// is the one to give killCommand from then on), `ended` once the keeper has
// exited, the command and all it started gone, and before the keeper is
// reaped (so its pid is never reused while known).
struct CommandHooks {
  void* context = nullptr;
  void (*started)(void* context, int pid) = nullptr;
  void (*ended)(void* context) = nullptr;
};

CommandOutcome runCommand(const CommandSpec& spec, CommandHooks hooks = {});

// Asks the keeper `pid` to end its command: SIGKILL to the command, its
// group and every process it started; returns at once (runCommand returns
// once they are gone). Before the command has started, it never runs.
void killCommand(int pid);

}  // namespace hnow::agent
