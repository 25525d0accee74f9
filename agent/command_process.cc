#include "agent/command_process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace hnow::agent {

namespace {

using Clock = std::chrono::steady_clock;

std::string words(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

// The limits as the child sets them: computed before fork (after it, only
// async-signal-safe calls), never above the hard limits the agent itself has
// (an unprivileged process cannot raise them).
struct ChildLimits {
  struct One {
    int resource;
    rlimit value;
  };
  One items[3]{};
  int count = 0;
  void add(int resource, rlim_t soft, rlim_t hard) {
    rlimit current{};
    ::getrlimit(resource, &current);
    if (current.rlim_max != RLIM_INFINITY) hard = std::min(hard, current.rlim_max), soft = std::min(soft, hard);
    items[count++] = {resource, {soft, hard}};
  }
};

ChildLimits childLimits(const conf::JobLimits& limits) {
  ChildLimits out;
  constexpr rlim_t kMiB = 1 << 20;
  // SIGXCPU at the soft limit, which a command may catch; SIGKILL a second later.
  if (limits.cpuSeconds > 0) out.add(RLIMIT_CPU, limits.cpuSeconds, limits.cpuSeconds + 1);
  if (limits.memoryMb > 0) out.add(RLIMIT_AS, limits.memoryMb * kMiB, limits.memoryMb * kMiB);
  if (limits.outputMb > 0) out.add(RLIMIT_FSIZE, limits.outputMb * kMiB, limits.outputMb * kMiB);
  return out;
}

// In the child between fork and exec: async-signal-safe calls only (the
// agent has other threads, whose locks the child inherits held). Limits are
// set here rather than with prlimit() on the running child, which would let
// the command run its first instructions unlimited.
[[noreturn]] void execChild(const CommandSpec& spec, const ChildLimits& limits, char* const* argv, int reportFd) {
  ::setsid();  // its own session and process group: killed as one
  struct sigaction standard {};
  standard.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) ::sigaction(s, &standard, nullptr);  // the agent ignores SIGPIPE; a command must not
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int i = 0; i < limits.count; ++i) ::setrlimit(limits.items[i].resource, &limits.items[i].value);
  ::setpriority(PRIO_PROCESS, 0, spec.nice);  // below the agent's own level fails unprivileged: kept then
  if (spec.idle) {
    sched_param param{};
    ::sched_setscheduler(0, SCHED_IDLE, &param);
  }
  // No setuid program (sudo, su) gains privileges from a job: it runs as the agent's user.
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  int fds[3] = {spec.stdinFd, spec.stdoutFd, spec.stderrFd};
  for (int& fd : fds)
    if (fd < 3) fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);  // out of the way of the dup2s below
  for (int i = 0; i < 3; ++i) ::dup2(fds[i], i);  // clears close-on-exec on 0, 1, 2
  ::execve(spec.program.c_str(), argv, environ);
  int error = errno;
  ssize_t ignored = ::write(reportFd, &error, sizeof error);
  (void)ignored;
  ::_exit(127);
}

// Waits until `pid` has exited (not reaped) or `deadline` passed: true when it exited.
bool awaitExit(int pid, int pidfd, std::optional<Clock::time_point> deadline) {
  for (;;) {
    siginfo_t info{};
    if (pidfd < 0) {  // no pidfd (seccomp, old kernel): polled
      info.si_pid = 0;
      if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
        return true;
      if (deadline && Clock::now() >= *deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    int timeout = -1;
    if (deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) return false;
      timeout = static_cast<int>(std::min<long long>(left + 1, 1 << 30));
    }
    pollfd p{pidfd, POLLIN, 0};
    int n = ::poll(&p, 1, timeout);
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return true;  // cannot wait: reap, which blocks
  }
}

// glibc 2.36's <sys/pidfd.h> declares pidfd_open without C linkage: the system call itself.
int openPidfd(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

double secondsOf(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; }

// What ended the command, in the owner's terms when a [jobs] limit did.
void explain(const CommandSpec& spec, bool wallKilled, CommandOutcome& outcome) {
  const conf::JobLimits& l = spec.limits;
  const std::string what = "'" + words(spec.argv) + "'";
  auto limitedBy = [&](const std::string& why) {
    outcome.limited = true;
    outcome.error = what + " " + why;
  };
  struct stat out {};
  const bool outputFull = l.outputMb > 0 && ::fstat(spec.stdoutFd, &out) == 0 &&
                          static_cast<std::uint64_t>(out.st_size) >= l.outputMb << 20;
  if (wallKilled) {
    limitedBy("was killed at its wall-time limit (wall_s = " + seconds(l.wallSeconds) + ")");
  } else if (outcome.signal == SIGXCPU ||
             (outcome.signal == SIGKILL && l.cpuSeconds > 0 && outcome.cpuSeconds >= static_cast<double>(l.cpuSeconds))) {
    limitedBy("was killed at its CPU limit (cpu_s = " + std::to_string(l.cpuSeconds) + ")");
  } else if (outcome.signal == SIGXFSZ || outputFull) {
    limitedBy("was stopped: its output passed output_mb = " + std::to_string(l.outputMb));
  } else if (!outcome.error.empty() && l.memoryMb > 0) {
    outcome.limited = true;
    outcome.error += " while under memory_mb = " + std::to_string(l.memoryMb) +
                     " (allocations past it fail: the likely cause if it ran out of memory)";
  }
}

}  // namespace

void killCommand(int pid) {
  if (pid <= 0) return;
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
}

CommandOutcome runCommand(const CommandSpec& spec, CommandHooks hooks) {
  CommandOutcome outcome;
  if (spec.argv.empty() || spec.program.empty()) {
    outcome.error = "the command is empty";
    return outcome;
  }
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const ChildLimits limits = childLimits(spec.limits);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    outcome.error = "cannot start '" + words(spec.argv) + "': " + std::strerror(errno);
    return outcome;
  }
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) execChild(spec, limits, argv.data(), report[1]);
  ::close(report[1]);
  if (pid < 0) {
    outcome.error = "cannot start '" + words(spec.argv) + "': " + std::strerror(errno);
    ::close(report[0]);
    return outcome;
  }
  if (hooks.started) hooks.started(hooks.context, pid);
  int execError = 0;
  ssize_t n;
  do n = ::read(report[0], &execError, sizeof execError);
  while (n < 0 && errno == EINTR);
  ::close(report[0]);
  const int pidfd = n > 0 ? -1 : openPidfd(pid);
  std::optional<Clock::time_point> deadline;
  if (spec.limits.wallSeconds > 0)
    deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.limits.wallSeconds));
  bool wallKilled = false;
  if (n <= 0 && !awaitExit(pid, pidfd, deadline)) {
    wallKilled = true;
    killCommand(pid);
    awaitExit(pid, pidfd, std::nullopt);
  }
  if (pidfd >= 0) ::close(pidfd);
  if (n > 0) {  // exec failed: the child is exiting on its own
    siginfo_t info{};
    ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT);
  }
  if (hooks.ended) hooks.ended(hooks.context);
  // Whatever it left running in its group (`cmd &` in a shell) ends with it;
  // the group still exists while the exited leader is unreaped.
  ::kill(-pid, SIGKILL);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  outcome.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (n > 0) {
    outcome.error = "cannot start '" + words(spec.argv) + "': " + std::strerror(execError);
    return outcome;
  }
  outcome.started = true;
  outcome.cpuSeconds = secondsOf(usage.ru_utime) + secondsOf(usage.ru_stime);
  if (WIFSIGNALED(status)) {
    outcome.signal = WTERMSIG(status);
    outcome.error = "'" + words(spec.argv) + "' was killed by signal " + std::to_string(outcome.signal) + " (" +
                    ::strsignal(outcome.signal) + ")";
  } else {
    outcome.exitCode = WEXITSTATUS(status);
    if (outcome.exitCode != 0)
      outcome.error = "'" + words(spec.argv) + "' exited with status " + std::to_string(outcome.exitCode);
  }
  if (!outcome.error.empty()) explain(spec, wallKilled, outcome);
  return outcome;
}

}  // namespace hnow::agent
