#pragma once
// Starting and stopping the background daemons of `hnow local`. A pid file
// alone is not trusted: before signalling, the process's command line must
// still name the cluster directory, so a recycled pid is never killed.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace hnow::cli {

// Starts `argv` in a new session (it outlives `hnow`), stdin from /dev/null,
// stdout and stderr appended to `logPath`, `niceness` added to its nice
// value. Returns the pid, or -1.
pid_t spawnDaemon(const std::vector<std::string>& argv, const std::string& logPath, int niceness = 0);

// True while `pid` runs (a zombie counts as gone).
bool isRunning(pid_t pid);
// True when `pid` runs and its command line contains `needle`.
bool commandLineContains(pid_t pid, const std::string& needle);
// Reaps `pid` if it is our child and has exited; true when it is gone.
bool reapIfExited(pid_t pid);

// SIGTERM to all, then SIGKILL to those still running after `grace`.
// Returns how many needed SIGKILL.
int stopAll(const std::vector<pid_t>& pids, std::chrono::milliseconds grace);

// The directory holding the running `hnow` binary.
std::string ownDirectory();

}  // namespace hnow::cli
