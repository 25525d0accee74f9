#pragma once
// A program run as on a terminal (a pty of its own), for what the client
// does only on one: Ctrl-C typed, the progress line drawn.
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "process/raw_peer.h"

namespace hnow::testing {

// A program on a pty of its own, as on a terminal: what it writes is read
// all along (so it never blocks on a full pty), Ctrl-C typed as the byte
// a terminal sends for it.
class OnTerminal {
 public:
  explicit OnTerminal(const std::vector<std::string>& argv) {
    pid_ = ::forkpty(&master_, nullptr, nullptr, nullptr);
    if (pid_ == 0) {
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    reader_ = std::thread([this] {
      char buffer[4096];
      for (ssize_t n; (n = ::read(master_, buffer, sizeof buffer)) > 0;) {
        std::lock_guard<std::mutex> lock(mutex_);
        shown_.append(buffer, static_cast<std::size_t>(n));
      }
    });
  }
  ~OnTerminal() {
    if (!status_) ::kill(pid_, SIGKILL), ::waitpid(pid_, nullptr, 0);
    ::close(master_);
    reader_.join();
  }
  OnTerminal(const OnTerminal&) = delete;
  OnTerminal& operator=(const OnTerminal&) = delete;

  void typeCtrlC() { (void)!::write(master_, "\x03", 1); }
  std::string shown() {
    std::lock_guard<std::mutex> lock(mutex_);
    return shown_;
  }
  std::optional<int> waitExit(std::chrono::seconds limit) {
    eventually([&] {
      int raw = 0;
      if (::waitpid(pid_, &raw, WNOHANG) == pid_) status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
      return status_.has_value();
    }, limit);
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int master_ = -1;
  std::thread reader_;
  std::mutex mutex_;
  std::string shown_;
  std::optional<int> status_;
};

}  // namespace hnow::testing
