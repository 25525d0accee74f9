#pragma once
// An agent's [jobs] table: what its owner lets hnowd make the machine run
// (volunteers are assumed hostile both ways: hnowd may be too). The agent
// applies it (agent/job_policy.h, agent/command_process.h); without an
// `allow` list it runs no jobs at all.
#include <cstdint>
#include <string>
#include <vector>

namespace hnow::conf {

class TableReader;

// Limits per command, applied by the agent; 0 is no limit.
struct JobLimits {
  std::uint64_t cpuSeconds = 0;   // RLIMIT_CPU: SIGXCPU, then SIGKILL a second later
  std::uint64_t memoryMb = 0;     // RLIMIT_AS: allocations past it fail
  std::uint64_t outputMb = 0;     // RLIMIT_FSIZE: no file (its stdout result included) grows past it
  double wallSeconds = 0.0;       // the command and all it started are killed after it
  // RLIMIT_NPROC: the command and all it starts (threads count) at most this
  // many tasks more than the agent's user ran when it started, so a fork bomb
  // stops there (agent/command_process.cc says why it is counted so). Unlike
  // the others, on unless set to 0. Not enforced for root (the kernel's rule).
  std::uint64_t processes = 256;
};

struct JobsConfig {
  // Absolute paths or fnmatch(3) patterns on the absolute path of argv[0]
  // ("*": any program). Empty: the agent runs no jobs.
  std::vector<std::string> allow;
  // Commands hnowd sends through /bin/sh -c (`hnow run --shell`): any
  // command line, so as wide as allow = ["*"].
  bool shell = false;
  int nice = 19;      // the commands' nice level, 0..19
  bool idle = true;   // SCHED_IDLE: they get the CPU only when nothing else wants it
  JobLimits limits;
  bool runsJobs() const { return !allow.empty(); }
};

// The [jobs] table's keys (throws ConfFailure at the bad key, conf/ only).
JobsConfig readJobs(TableReader& t);

}  // namespace hnow::conf
