#include "cli/local_processes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace hnow::cli {

pid_t spawnDaemon(const std::vector<std::string>& argv, const std::string& logPath, int niceness) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Opened before fork so the child only calls async-signal-safe functions.
  int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int log = ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (devNull < 0 || log < 0) {
    if (devNull >= 0) ::close(devNull);
    if (log >= 0) ::close(log);
    return -1;
  }
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    if (niceness != 0) (void)::nice(niceness);
    ::dup2(devNull, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(devNull);
  ::close(log);
  return pid;
}

bool isRunning(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  // The state follows the parenthesised command name.
  auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() || line[close + 2] != 'Z';
}

bool commandLineContains(pid_t pid, const std::string& needle) {
  if (!isRunning(pid)) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  std::string cmdline = text.str();
  for (char& c : cmdline)
    if (c == '\0') c = ' ';
  return cmdline.find(needle) != std::string::npos;
}

bool reapIfExited(pid_t pid) {
  int status = 0;
  pid_t r = ::waitpid(pid, &status, WNOHANG);
  return r == pid || (r < 0 && !isRunning(pid));
}

int stopAll(const std::vector<pid_t>& pids, std::chrono::milliseconds grace) {
  for (pid_t pid : pids) ::kill(pid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + grace;
  auto anyRunning = [&]() {
    for (pid_t pid : pids) {
      reapIfExited(pid);
      if (isRunning(pid)) return true;
    }
    return false;
  };
  // Polling: these are not our children once `hnow local up` has exited, so
  // there is nothing to wait on.
  while (anyRunning() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  int killed = 0;
  for (pid_t pid : pids) {
    if (!isRunning(pid)) continue;
    ::kill(pid, SIGKILL);
    ++killed;
  }
  for (int i = 0; i < 100 && anyRunning(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return killed;
}

std::string ownDirectory() {
  std::error_code error;
  auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string(".") : self.parent_path().string();
}

}  // namespace hnow::cli
