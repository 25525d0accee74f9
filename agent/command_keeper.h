#pragma once
// The keeper of one job command (agent/command_process.h): the process the
// agent forks, which forks the command itself and stays its parent. It is
// a subreaper (PR_SET_CHILD_SUBREAPER), so whatever the command starts and
// leaves behind is reparented to it rather than to init, even a process that
// left the command's group and session (setsid) or a daemon's double fork;
// when the command has exited, or when the agent asks (SIGTERM: the share
// was dropped, a limit passed, the agent stopped or died), it kills every
// such process, reaps them all, reports the command's wait status and
// exits. Internal to command_process.cc.
//
// Why a keeper: a process group or session is left with one call, and the
// agent itself cannot be the subreaper (its children from every share would
// mix, and the orphans of a share still running are not to be killed). A
// pid namespace or a cgroup would bound the command more tightly, but both
// need privileges (or user namespaces, often disabled) that an agent run by
// a volunteer does not have. A command can still kill its keeper (they run
// as the same user, as the agent does); only a user of their own would stop
// that.
//
// The keeper is a fork of the multi-threaded agent that does not exec, so
// it keeps to system calls (async-signal-safe; no allocation) and closes
// every file descriptor it does not need at once. Its pages are the agent's,
// shared until the agent writes to them.
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>

#include <algorithm>

namespace hnow::agent {

// The limits as the command sets them: computed before fork (after it, only
// async-signal-safe calls), never above the hard limits the agent itself has
// (an unprivileged process cannot raise them).
struct ChildLimits {
  struct One {
    int resource;
    rlimit value;
  };
  One items[4]{};
  int count = 0;
  void add(int resource, rlim_t soft, rlim_t hard) {
    rlimit current{};
    ::getrlimit(resource, &current);
    if (current.rlim_max != RLIM_INFINITY) hard = std::min(hard, current.rlim_max), soft = std::min(soft, hard);
    items[count++] = {resource, {soft, hard}};
  }
};

struct KeeperSetup {
  const char* program = nullptr;
  char* const* argv = nullptr;
  int stdinFd = -1, stdoutFd = -1, stderrFd = -1;
  ChildLimits limits;
  int nice = 0;
  bool idle = false;
  int reportFd = -1;  // the command's exec errno goes here; closed at its exec
  int statusFd = -1;  // the KeeperReport goes here, last
  pid_t agent = 0;    // the keeper's parent: gone already, the command is killed at once
};

// What the keeper writes to statusFd before it exits.
struct KeeperReport {
  int status = 0;  // the command's, as wait4 gives it
  timeval userTime{}, systemTime{};  // the command's and what it reaped
};

// In the child of fork(), with every signal blocked: never returns.
[[noreturn]] void runKeeper(const KeeperSetup& setup);

}  // namespace hnow::agent
