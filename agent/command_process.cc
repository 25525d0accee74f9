#include "agent/command_process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/command_keeper.h"

namespace hnow::agent {

namespace {

using Clock = std::chrono::steady_clock;

std::string words(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

// The tasks (processes and their threads) whose real user is `uid`, as
// RLIMIT_NPROC counts them, from /proc/PID/status.
std::uint64_t tasksOf(uid_t uid) {
  std::uint64_t tasks = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] < '1' || name[0] > '9') continue;
    const int fd = ::open((entry.path() / "status").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;  // gone meanwhile
    char text[4096];
    const ssize_t n = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    if (n <= 0) continue;
    text[n] = '\0';
    const char* real = std::strstr(text, "\nUid:\t");
    const char* threads = std::strstr(text, "\nThreads:\t");
    if (real && std::strtoul(real + 6, nullptr, 10) == uid) tasks += threads ? std::strtoull(threads + 10, nullptr, 10) : 1;
  }
  return tasks;
}

ChildLimits childLimits(const conf::JobLimits& limits) {
  ChildLimits out;
  constexpr rlim_t kMiB = 1 << 20;
  // SIGXCPU at the soft limit, which a command may catch; SIGKILL a second later.
  if (limits.cpuSeconds > 0) out.add(RLIMIT_CPU, limits.cpuSeconds, limits.cpuSeconds + 1);
  if (limits.memoryMb > 0) out.add(RLIMIT_AS, limits.memoryMb * kMiB, limits.memoryMb * kMiB);
  if (limits.outputMb > 0) out.add(RLIMIT_FSIZE, limits.outputMb * kMiB, limits.outputMb * kMiB);
  // RLIMIT_NPROC is the kernel's one bound on forking without privileges,
  // but it counts every task of the real user, not the command's: as an
  // absolute number it would fail ordinary commands of a volunteer's own
  // login (a browser alone runs hundreds of threads) and let another share
  // of the same user eat the budget. So it is the user's tasks now plus the
  // keeper plus `processes`: the command and all it starts get about that
  // many, whatever else the user runs (an agent under a user of its own, as
  // dist/hnow-agent.service's DynamicUser, counts only its own). Root is not
  // held to it by the kernel: not counted then.
  if (limits.processes > 0 && ::getuid() != 0) {
    const rlim_t most = tasksOf(::getuid()) + 1 + limits.processes;
    out.add(RLIMIT_NPROC, most, most);
  }
  return out;
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
    outcome.ended = Error{what + " " + why};
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
  } else if (!outcome.ended && l.memoryMb > 0) {
    outcome.limited = true;
    outcome.ended = Error{outcome.ended.error().message + " while under memory_mb = " +
                          std::to_string(l.memoryMb) +
                          " (allocations past it fail: the likely cause if it ran out of memory)"};
  }
}

}  // namespace

void killCommand(int pid) {
  if (pid > 0) ::kill(pid, SIGTERM);  // the keeper's: it kills the command and all it started
}

namespace {

// How long a keeper asked to end its command may take before it is killed
// itself (a descendant stuck in uninterruptible sleep, say).
constexpr auto kKeeperGrace = std::chrono::seconds(5);

// Forks the command's keeper (agent/command_keeper.h) with every signal
// blocked, so that none reaches a handler of the agent's in the child.
pid_t forkKeeper(const KeeperSetup& setup) {
  sigset_t all, old;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t pid = ::fork();
  if (pid == 0) runKeeper(setup);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return pid;
}

}  // namespace

CommandOutcome runCommand(const CommandSpec& spec, CommandHooks hooks) {
  CommandOutcome outcome;
  if (spec.argv.empty() || spec.program.empty()) {
    outcome.ended = Error{"the command is empty"};
    return outcome;
  }
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int report[2], statusPipe[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    outcome.ended = Error{"cannot start '" + words(spec.argv) + "': " + std::strerror(errno)};
    return outcome;
  }
  if (::pipe2(statusPipe, O_CLOEXEC) != 0) {
    outcome.ended = Error{"cannot start '" + words(spec.argv) + "': " + std::strerror(errno)};
    for (int fd : report) ::close(fd);
    return outcome;
  }
  const KeeperSetup setup{spec.program.c_str(), argv.data(), spec.stdinFd, spec.stdoutFd, spec.stderrFd,
                          childLimits(spec.limits), spec.nice, spec.idle, report[1], statusPipe[1], ::getpid()};
  const auto start = Clock::now();
  const pid_t pid = forkKeeper(setup);
  ::close(report[1]);
  ::close(statusPipe[1]);
  if (pid < 0) {
    outcome.ended = Error{"cannot start '" + words(spec.argv) + "': " + std::strerror(errno)};
    ::close(report[0]);
    ::close(statusPipe[0]);
    return outcome;
  }
  if (hooks.started) hooks.started(hooks.context, pid);
  int execError = 0;
  ssize_t n;
  do n = ::read(report[0], &execError, sizeof execError);
  while (n < 0 && errno == EINTR);
  ::close(report[0]);
  const int pidfd = openPidfd(pid);
  std::optional<Clock::time_point> deadline;
  if (spec.limits.wallSeconds > 0 && n <= 0)
    deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.limits.wallSeconds));
  bool wallKilled = false;
  if (!awaitExit(pid, pidfd, deadline)) {
    wallKilled = true;
    killCommand(pid);
    if (!awaitExit(pid, pidfd, Clock::now() + kKeeperGrace)) {
      ::kill(pid, SIGKILL);
      awaitExit(pid, pidfd, std::nullopt);
    }
  }
  if (pidfd >= 0) ::close(pidfd);
  if (hooks.ended) hooks.ended(hooks.context);
  int keeperStatus = 0;
  rusage keeperUsage{};
  while (::wait4(pid, &keeperStatus, 0, &keeperUsage) < 0 && errno == EINTR) {
  }
  KeeperReport ended{};
  ssize_t got;
  do got = ::read(statusPipe[0], &ended, sizeof ended);
  while (got < 0 && errno == EINTR);
  ::close(statusPipe[0]);
  outcome.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (n > 0) {
    outcome.ended = Error{"cannot start '" + words(spec.argv) + "': " + std::strerror(execError)};
    return outcome;
  }
  outcome.started = true;
  // No report: the keeper itself was killed (by the command, which runs as
  // the same user, or past its grace): its own status stands for the command's.
  const bool reported = got == static_cast<ssize_t>(sizeof ended);
  const int status = reported ? ended.status : keeperStatus;
  outcome.cpuSeconds = reported ? secondsOf(ended.userTime) + secondsOf(ended.systemTime)
                                : secondsOf(keeperUsage.ru_utime) + secondsOf(keeperUsage.ru_stime);
  if (WIFSIGNALED(status)) {
    outcome.signal = WTERMSIG(status);
    outcome.ended = Error{"'" + words(spec.argv) + "' was killed by signal " + std::to_string(outcome.signal) +
                          " (" + ::strsignal(outcome.signal) + ")"};
  } else {
    outcome.exitCode = WEXITSTATUS(status);
    if (outcome.exitCode != 0)
      outcome.ended = Error{"'" + words(spec.argv) + "' exited with status " + std::to_string(outcome.exitCode)};
  }
  if (!outcome.ended) explain(spec, wallKilled, outcome);
  return outcome;
}

}  // namespace hnow::agent
