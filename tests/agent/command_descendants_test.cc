// Everything a job's command starts ends with its share: a process that
// left the command's process group and session (setsid) or was reparented
// (a daemon's double fork) is killed and reaped when the command exits,
// when it is killed at its wall-time limit, and when the agent kills it.
#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "agent/command_process.h"
#include "agent/command_run.h"
#include "support/why.h"

using hnow::agent::CommandOutcome;
using hnow::testing::pidIn;
using hnow::testing::running;
using hnow::testing::Run;
using hnow::testing::why;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// A shell line that starts `sleep 300` in a session of its own, writes its
// pid to `file` and waits until it is written.
std::string escapee(const fs::path& file) {
  return "setsid sh -c 'echo $$ > " + file.string() + "; exec sleep 300' & while [ ! -s " + file.string() +
         " ]; do sleep 0.01; done";
}

// Kills what a failing check left running, so a broken build leaks nothing.
struct Reap {
  int pid = 0;
  ~Reap() {
    if (pid > 0 && running(pid)) ::kill(pid, SIGKILL);
  }
};

}  // namespace

TEST_CASE("a setsid child of a command is gone once the command has exited and runCommand returned") {
  Run run({"/bin/sh", "-c", ""});
  const fs::path file = run.dir.path / "escaped";
  run.spec.argv[2] = escapee(file) + "; echo started";
  CommandOutcome outcome = run.go();
  Reap escaped{pidIn(file)};
  CHECK(outcome.ended.ok());
  CHECK(outcome.exitCode == 0);
  CHECK(run.out() == "started\n");
  REQUIRE(escaped.pid > 0);
  CHECK_FALSE(running(escaped.pid));  // at once: reaped before runCommand returned
}

TEST_CASE("a daemon's double fork out of its session is gone with the command, and the exit status is the command's") {
  Run run({"/bin/sh", "-c", ""});
  const fs::path file = run.dir.path / "daemon";
  // A session of its own whose leader starts the daemon and exits at once:
  // the daemon is orphaned, in no group or session of the command's.
  run.spec.argv[2] = "inner='echo $$ > " + file.string() + "; exec sleep 300'; setsid sh -c \"sh -c '$inner' & exit 0\" & "
                     "while [ ! -s " + file.string() + " ]; do sleep 0.01; done; exit 4";
  CommandOutcome outcome = run.go();
  Reap escaped{pidIn(file)};
  CHECK(outcome.exitCode == 4);
  CHECK(why(outcome.ended).find("exited with status 4") != std::string::npos);
  REQUIRE(escaped.pid > 0);
  CHECK_FALSE(running(escaped.pid));
}

TEST_CASE("a setsid child of a command killed at its wall-time limit is gone too") {
  Run run({"/bin/sh", "-c", ""});
  const fs::path file = run.dir.path / "escaped";
  run.spec.argv[2] = escapee(file) + "; sleep 30";
  run.spec.limits.wallSeconds = 0.5;
  const auto begin = std::chrono::steady_clock::now();
  CommandOutcome outcome = run.go();
  Reap escaped{pidIn(file)};
  CHECK(std::chrono::steady_clock::now() - begin < 5s);
  CHECK(outcome.limited);
  CHECK(why(outcome.ended).find("was killed at its wall-time limit (wall_s = 0.5)") != std::string::npos);
  REQUIRE(escaped.pid > 0);
  CHECK_FALSE(running(escaped.pid));
}

TEST_CASE("killCommand (a dropped share, a lost hnowd) takes a command's setsid child with it") {
  Run run({"/bin/sh", "-c", ""});
  const fs::path file = run.dir.path / "escaped";
  run.spec.argv[2] = escapee(file) + "; sleep 30";
  struct Killer {
    fs::path file;
    std::thread thread;
    static void started(void* context, int pid) {
      auto* self = static_cast<Killer*>(context);
      self->thread = std::thread([self, pid] {
        pidIn(self->file);  // the child has escaped: now the share is dropped
        hnow::agent::killCommand(pid);
      });
    }
  } killer{file, {}};
  const auto begin = std::chrono::steady_clock::now();
  CommandOutcome outcome = run.go({&killer, &Killer::started, nullptr});
  killer.thread.join();
  Reap escaped{pidIn(file)};
  CHECK(std::chrono::steady_clock::now() - begin < 5s);
  CHECK(outcome.signal == SIGKILL);
  REQUIRE(escaped.pid > 0);
  CHECK_FALSE(running(escaped.pid));
}
