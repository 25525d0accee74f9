#pragma once
// hnowd's log while a test's call runs, to check the line a refusal leaves.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

namespace hnow::testing {

// hnowd's log (its default logger writes to standard output) while `call`
// runs: standard output goes to a temp file meanwhile.
inline std::string logOf(const std::function<void()>& call) {
  std::fflush(stdout);
  char name[] = "/tmp/hnow-test-log-XXXXXX";
  const int file = ::mkstemp(name);
  ::unlink(name);
  const int saved = ::dup(STDOUT_FILENO);
  ::dup2(file, STDOUT_FILENO);
  call();
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  std::string text;
  char buffer[4096];
  for (ssize_t n = ::pread(file, buffer, sizeof buffer, 0); n > 0;
       n = ::pread(file, buffer, sizeof buffer, static_cast<off_t>(text.size()))) {
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(file);
  return text;
}

}  // namespace hnow::testing
