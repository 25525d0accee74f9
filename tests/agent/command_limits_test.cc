// A job's command under its owner's limits ([jobs] cpu_s, memory_mb,
// output_mb, wall_s, processes, nice, idle), with real commands: each limit
// ends it and is named in the error; its whole process group goes with it.
#include "agent/command_process.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <grp.h>
#include <kj/async-io.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "agent/command_run.h"
#include "support/why.h"
#include "agent/job_runner.h"
#include "agent/receiver.h"
#include "cli/run_process.h"

using hnow::agent::CommandOutcome;
using hnow::agent::CommandSpec;
using hnow::agent::runCommand;
using hnow::testing::pidIn;
using hnow::testing::readWhole;
using hnow::testing::running;
using hnow::testing::Run;
using hnow::testing::why;
using hnow::testing::TempDir;
using namespace std::chrono_literals;
namespace fs = std::filesystem;


TEST_CASE("a command without limits runs with its output and no error") {
  Run run({"/bin/sh", "-c", "echo hello; echo oops >&2"});
  CommandOutcome outcome = run.go();
  CHECK(outcome.started);
  CHECK(outcome.exitCode == 0);
  CHECK(outcome.ended.ok());
  CHECK_FALSE(outcome.limited);
  CHECK(run.out() == "hello\n");
  CHECK(run.err() == "oops\n");
  Run failing({"/bin/sh", "-c", "exit 3"});
  CHECK(why(failing.go().ended) == "'/bin/sh -c exit 3' exited with status 3");
  Run missing({"/nonexistent/tool"});
  CommandOutcome notStarted = missing.go();
  CHECK_FALSE(notStarted.started);
  CHECK(why(notStarted.ended) == "cannot start '/nonexistent/tool': No such file or directory");
}

TEST_CASE("a command past its CPU limit is killed and reported as such") {
  Run run({"/bin/sh", "-c", "while :; do :; done"});
  run.spec.limits.cpuSeconds = 1;
  const auto begin = std::chrono::steady_clock::now();
  CommandOutcome outcome = run.go();
  CHECK(outcome.limited);
  CHECK(why(outcome.ended) == "'/bin/sh -c while :; do :; done' was killed at its CPU limit (cpu_s = 1)");
  CHECK(outcome.cpuSeconds >= 0.9);
  CHECK(std::chrono::steady_clock::now() - begin < 10s);
}

TEST_CASE("a command past its wall-time limit is killed with its whole process group") {
  Run run({"/bin/sh", "-c", "sleep 30 & echo $! > \"$0\"; sleep 30"});
  run.spec.argv[2] = "sleep 30 & echo $! > " + (run.dir.path / "child").string() + "; sleep 30";
  std::ofstream(run.dir.path / "child").close();
  run.spec.limits.wallSeconds = 0.5;
  const auto begin = std::chrono::steady_clock::now();
  CommandOutcome outcome = run.go();
  CHECK(std::chrono::steady_clock::now() - begin < 5s);
  CHECK(outcome.limited);
  CHECK(why(outcome.ended).find("was killed at its wall-time limit (wall_s = 0.5)") != std::string::npos);
  const int child = pidIn(run.dir.path / "child");
  for (int i = 0; i < 100 && running(child); ++i) std::this_thread::sleep_for(10ms);
  CHECK_FALSE(running(child));
}

TEST_CASE("what a command leaves running in its group is killed when it exits") {
  Run run({"/bin/sh", "-c", ""});
  run.spec.argv[2] = "sleep 30 & echo $! > " + (run.dir.path / "child").string();
  std::ofstream(run.dir.path / "child").close();
  CommandOutcome outcome = run.go();
  CHECK(outcome.ended.ok());
  const int child = pidIn(run.dir.path / "child");
  for (int i = 0; i < 100 && running(child); ++i) std::this_thread::sleep_for(10ms);
  CHECK_FALSE(running(child));
}

TEST_CASE("a command whose output passes its limit is stopped there and reported as such") {
  Run run({"/usr/bin/head", "-c", "10M", "/dev/zero"});
  run.spec.limits.outputMb = 1;
  CommandOutcome outcome = run.go();
  CHECK(outcome.limited);
  CHECK(why(outcome.ended) == "'/usr/bin/head -c 10M /dev/zero' was stopped: its output passed output_mb = 1");
  CHECK(fs::file_size(run.dir.path / "out") == 1 << 20);
}

TEST_CASE("a command that allocates past its memory limit fails and the report says it ran under it") {
  // dd allocates its whole block at once: 256 MiB past a 64 MiB address space.
  Run run({"/usr/bin/dd", "if=/dev/zero", "of=/dev/null", "bs=256M", "count=1"});
  run.spec.limits.memoryMb = 64;
  CommandOutcome outcome = run.go();
  CHECK(outcome.limited);
  CHECK(outcome.exitCode != 0);
  CHECK(why(outcome.ended).find("under memory_mb = 64") != std::string::npos);
  CHECK(run.err().find("memory exhausted") != std::string::npos);
  Run unlimited({"/usr/bin/dd", "if=/dev/zero", "of=/dev/null", "bs=256M", "count=1"});
  CHECK(unlimited.go().ended.ok());
}

TEST_CASE("a command runs at the owner's nice level, idle class, without gaining privileges") {
  Run run({"/bin/sh", "-c", "cut -d' ' -f19,41 /proc/self/stat; grep NoNewPrivs /proc/self/status"});
  run.spec.nice = 7;
  run.spec.idle = true;
  CHECK(run.go().ended.ok());
  CHECK(run.out() == "7 5\nNoNewPrivs:\t1\n");  // 5: SCHED_IDLE
  Run normal({"/bin/sh", "-c", "cut -d' ' -f41 /proc/self/stat"});
  CHECK(normal.go().ended.ok());
  CHECK(normal.out() == "0\n");  // SCHED_OTHER
}

TEST_CASE("a share whose command the owner does not allow is refused at once and leaves nothing") {
  TempDir dir;
  auto io = kj::setupAsyncIo();
  hnow::SteadyClock clock;
  hnow::agent::Receiver receiver({dir.path.string()}, clock, {});
  hnow::conf::JobsConfig jobs;
  jobs.allow = {"/usr/bin/wc"};
  jobs.limits.wallSeconds = 0.3;
  hnow::agent::JobRunner runner(receiver, dir.path.string(), hnow::agent::JobPolicy::ofThisHost(jobs), "hnowd");
  auto refused = runner.run({}, {"sleep", "5"}, std::string(32, 'a'), 1.0, false, 7).wait(io.waitScope)->value();
  CHECK(refused.refused);
  CHECK(why(refused.ended).find("is not in [jobs] allow (\"/usr/bin/wc\")") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path / ".hnow-jobs"));
  jobs.allow = {"*"};
  hnow::agent::JobRunner allowing(receiver, dir.path.string(), hnow::agent::JobPolicy::ofThisHost(jobs), "hnowd");
  auto limited = allowing.run({}, {"sleep", "5"}, std::string(32, 'b'), 1.0, false, 8).wait(io.waitScope)->value();
  CHECK_FALSE(limited.refused);
  CHECK(limited.limited);
  CHECK(why(limited.ended).find("was killed at its wall-time limit (wall_s = 0.3)") != std::string::npos);
  allowing.drop({std::string(32, 'b')});
}

namespace {

// The command's exit status and the end of its stderr, run as an
// unprivileged user: root is not held to RLIMIT_NPROC, so a test as root
// runs it in a child that became `nobody` (the files opened before).
struct Forked {
  int exitCode = -1;
  std::string err;
};

Forked runUnprivileged(const std::string& line, std::uint64_t processes, const fs::path& dir) {
  CommandSpec spec;
  spec.argv = {"/bin/sh", "-c", line};
  spec.program = "/bin/sh";
  spec.limits.processes = processes;
  spec.stdinFd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  spec.stdoutFd = ::open((dir / "out").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  spec.stderrFd = ::open((dir / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  Forked result;
  if (::geteuid() != 0) {
    result.exitCode = runCommand(spec).exitCode;
  } else {
    const passwd* nobody = ::getpwnam("nobody");
    REQUIRE_MESSAGE(nobody, "this test needs the user nobody when run as root");
    const pid_t child = ::fork();
    if (child == 0) {
      if (::setgroups(0, nullptr) != 0 || ::setgid(nobody->pw_gid) != 0 || ::setuid(nobody->pw_uid) != 0) ::_exit(99);
      const int code = runCommand(spec).exitCode;
      ::_exit(code < 0 ? 98 : code);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  for (int fd : {spec.stdinFd, spec.stdoutFd, spec.stderrFd}) ::close(fd);
  result.err = readWhole(dir / "err");
  return result;
}

}  // namespace

TEST_CASE("a command that forks past its process limit fails to fork, and without the limit it forks on") {
  TempDir dir;
  // 40 background sleeps: the shell itself and 7 more fit in processes = 8.
  const std::string forks = "i=0; while [ $i -lt 40 ]; do sleep 1 & i=$((i+1)); done; echo \"$i started\" >&2";
  const Forked bomb = runUnprivileged(forks, 8, dir.path);
  CHECK(bomb.exitCode == 2);  // dash: "Cannot fork" ends the script
  CHECK_MESSAGE(bomb.err.find("Cannot fork") != std::string::npos, bomb.err);
  CHECK(bomb.err.find("40 started") == std::string::npos);
  const Forked free = runUnprivileged(forks, 0, dir.path);
  CHECK(free.exitCode == 0);
  CHECK_MESSAGE(free.err == "40 started\n", free.err);
  // The default (256) leaves room for ordinary pipelines.
  CHECK(hnow::conf::JobLimits{}.processes == 256);
  const Forked pipeline = runUnprivileged("seq 1000 | sort -n | uniq | wc -l >&2", hnow::conf::JobLimits{}.processes, dir.path);
  CHECK(pipeline.exitCode == 0);
  CHECK(pipeline.err == "1000\n");
}
