#include "agent/command_keeper.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>

extern char** environ;

namespace hnow::agent {

namespace {

// Where the keeper keeps its two pipes (0, 1, 2 are the command's stdio).
constexpr int kStatusFd = 3, kReportFd = 4;

// The layout of getdents64's records (glibc does not declare it).
struct LinuxDirent64 {
  std::uint64_t inode;
  std::int64_t offset;
  unsigned short length;
  unsigned char type;
  char name[1];
};

void closeFrom(int first) {
  if (::syscall(SYS_close_range, first, ~0U, 0) == 0) return;
  rlimit files{};  // no close_range (before Linux 5.9): one by one
  ::getrlimit(RLIMIT_NOFILE, &files);
  const rlim_t last = files.rlim_cur == RLIM_INFINITY || files.rlim_cur > (1 << 20) ? (1 << 20) : files.rlim_cur;
  for (rlim_t fd = static_cast<rlim_t>(first); fd < last; ++fd) ::close(static_cast<int>(fd));
}

// The decimal at `text` (up to a non-digit), or -1.
long numberAt(const char* text, const char* end) {
  long n = -1;
  for (; text < end && *text >= '0' && *text <= '9'; ++text) n = (n < 0 ? 0 : n * 10) + (*text - '0');
  return n;
}

// The parent of the process named `pid` (a /proc entry), or -1.
long parentOf(const char* pid) {
  char path[64] = "/proc/";
  std::size_t at = 6;
  for (const char* c = pid; *c && at < sizeof path - 8; ++c) path[at++] = *c;
  for (const char* c = "/stat"; *c; ++c) path[at++] = *c;
  path[at] = '\0';
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[256];  // "pid (comm) state ppid ...": comm is at most 64 bytes
  const ssize_t n = ::read(fd, text, sizeof text);
  ::close(fd);
  if (n <= 0) return -1;
  const char* close = nullptr;  // the last ')' ends comm, which may hold any byte
  for (const char* c = text; c < text + n; ++c)
    if (*c == ')') close = c;
  if (!close || close + 4 >= text + n) return -1;
  return numberAt(close + 4, text + n);  // past ") S "
}

// SIGKILL to each process whose parent is the keeper: the command's
// children and every orphan of the command's reparented to the keeper.
void killChildren(pid_t self) {
  const int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;  // no /proc: the command's group was killed, and that is all
  alignas(8) char records[4096];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, dir, records, sizeof records);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const LinuxDirent64*>(records + at);
      at += entry->length;
      if (entry->name[0] < '1' || entry->name[0] > '9') continue;
      if (parentOf(entry->name) == self) ::kill(static_cast<pid_t>(numberAt(entry->name, entry->name + 32)), SIGKILL);
    }
  }
  ::close(dir);
}

struct Ended {
  bool known = false;
  int status = 0;
  rusage usage{};
};

// Reaps every child that has exited; the command's status when it is one.
void reapExited(pid_t command, Ended& ended) {
  for (;;) {
    int status = 0;
    rusage usage{};
    const pid_t pid = ::wait4(-1, &status, WNOHANG, &usage);
    if (pid <= 0) return;  // none ready, or none left
    if (pid == command) ended = {true, status, usage};
  }
}

bool hasChildren() {
  siginfo_t info{};
  return ::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0;
}

void reportErrno(int error) {
  ssize_t ignored = ::write(kReportFd, &error, sizeof error);
  (void)ignored;
}

// The command, in the keeper's child: a process group of its own (so that a
// `kill 0` of the command's misses the keeper), no signal blocked, the
// owner's limits, nice level and class, no new privileges; then exec.
[[noreturn]] void execCommand(const KeeperSetup& setup) {
  ::setpgid(0, 0);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int i = 0; i < setup.limits.count; ++i) ::setrlimit(setup.limits.items[i].resource, &setup.limits.items[i].value);
  ::setpriority(PRIO_PROCESS, 0, setup.nice);  // below the agent's own level fails unprivileged: kept then
  if (setup.idle) {
    sched_param param{};
    ::sched_setscheduler(0, SCHED_IDLE, &param);
  }
  // No setuid program (sudo, su) gains privileges from a job: it runs as the agent's user.
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  ::execve(setup.program, setup.argv, environ);
  reportErrno(errno);
  ::_exit(127);
}

}  // namespace

[[noreturn]] void runKeeper(const KeeperSetup& setup) {
  ::setsid();  // out of the agent's group and session: a signal to those is not for the command
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);  // the agent dies: the command goes too
  ::prctl(PR_SET_NAME, "hnow-keeper", 0, 0, 0);
  struct sigaction standard {};
  standard.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) ::sigaction(s, &standard, nullptr);  // the agent's handlers are not ours
  bool killing = ::getppid() != setup.agent;  // it died before PDEATHSIG was set

  // 0, 1, 2: the command's stdio; 3, 4: the pipes; nothing else.
  int fds[5] = {setup.stdinFd, setup.stdoutFd, setup.stderrFd, setup.statusFd, setup.reportFd};
  for (int& fd : fds) fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 5);
  for (int i = 0; i < 3; ++i) ::dup2(fds[i], i);  // clears close-on-exec on 0, 1, 2
  ::dup3(fds[3], kStatusFd, O_CLOEXEC);
  ::dup3(fds[4], kReportFd, O_CLOEXEC);
  closeFrom(5);

  const pid_t command = ::fork();
  if (command == 0) execCommand(setup);
  if (command < 0) {
    reportErrno(errno);
    ::_exit(127);
  }
  ::setpgid(command, command);  // as the command does itself: whichever runs first
  for (int fd : {0, 1, 2, kReportFd}) ::close(fd);  // the report's EOF is the command's exec

  const pid_t self = ::getpid();
  Ended ended;
  sigset_t wake;
  ::sigemptyset(&wake);
  ::sigaddset(&wake, SIGCHLD);
  ::sigaddset(&wake, SIGTERM);
  if (killing) ::kill(-command, SIGKILL), ::kill(command, SIGKILL);
  while (!ended.known) {
    siginfo_t info{};
    const int signal = ::sigwaitinfo(&wake, &info);
    if (signal == SIGTERM && !killing) {
      killing = true;
      ::kill(-command, SIGKILL);
      ::kill(command, SIGKILL);
    }
    // Exited: what it left in its group (`cmd &` in a shell) goes at once,
    // while its unreaped pid still names the group.
    siginfo_t exited{};
    if (::waitid(P_PID, static_cast<id_t>(command), &exited, WEXITED | WNOHANG | WNOWAIT) == 0 && exited.si_pid == command)
      ::kill(-command, SIGKILL);
    reapExited(command, ended);
  }
  // Then every process reparented here, until none is left (an orphan
  // appears here when its parent dies: looked for again).
  sigset_t child;
  ::sigemptyset(&child);
  ::sigaddset(&child, SIGCHLD);
  for (;;) {
    killChildren(self);
    reapExited(command, ended);
    if (!hasChildren()) break;
    const timespec tick{0, 20'000'000};
    ::sigtimedwait(&child, nullptr, &tick);
  }
  const KeeperReport report{ended.status, ended.usage.ru_utime, ended.usage.ru_stime};
  ssize_t ignored = ::write(kStatusFd, &report, sizeof report);
  (void)ignored;
  ::_exit(0);
}

}  // namespace hnow::agent
