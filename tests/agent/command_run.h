#pragma once
// One job command run by agent/command_process.h with real files, for the
// agent's tests of limits and of what a command leaves behind.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "agent/command_process.h"
#include "cli/run_process.h"

namespace hnow::testing {

// One command with stdin from /dev/null, stdout and stderr to files in `dir`.
struct Run {
  TempDir dir;
  agent::CommandSpec spec;
  explicit Run(std::vector<std::string> argv) {
    spec.argv = std::move(argv);
    spec.program = spec.argv[0];
  }
  agent::CommandOutcome go(agent::CommandHooks hooks = {}) {
    spec.stdinFd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    spec.stdoutFd = ::open((dir.path / "out").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    spec.stderrFd = ::open((dir.path / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    agent::CommandOutcome outcome = agent::runCommand(spec, hooks);
    for (int fd : {spec.stdinFd, spec.stdoutFd, spec.stderrFd}) ::close(fd);
    return outcome;
  }
  std::string out() const { return readWhole(dir.path / "out"); }
  std::string err() const { return readWhole(dir.path / "err"); }
};

// Gone, or a zombie nobody reaped yet: not running.
inline bool running(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

// The pid a command wrote to `file` (waiting a little for it to appear).
inline int pidIn(const std::filesystem::path& file) {
  for (int i = 0; i < 200 && (!std::filesystem::exists(file) || std::filesystem::file_size(file) == 0); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return std::stoi("0" + readWhole(file));
}

}  // namespace hnow::testing
