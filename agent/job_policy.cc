#include "agent/job_policy.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace hnow::agent {

namespace {

constexpr const char* kNoJobs =
    "this agent runs no jobs: its owner has not set [jobs] allow in its config (docs/jobs.md)";

std::string realPath(const std::string& path) {
  char buffer[PATH_MAX];
  return ::realpath(path.c_str(), buffer) ? std::string(buffer) : std::string();
}

bool executableFile(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// "." and ".." parts would let a pattern's '*' stand for a directory the path leaves.
bool plainAbsolute(const std::string& path) {
  if (path.empty() || path.front() != '/') return false;
  std::size_t from = 1;
  while (from <= path.size()) {
    std::size_t to = path.find('/', from);
    if (to == std::string::npos) to = path.size();
    const std::string part = path.substr(from, to - from);
    if (part == "." || part == "..") return false;
    from = to + 1;
  }
  return true;
}

}  // namespace

bool allowedBy(const std::vector<std::string>& allow, const std::string& path) {
  for (const std::string& pattern : allow)
    if (pattern == "*" || ::fnmatch(pattern.c_str(), path.c_str(), FNM_PATHNAME) == 0) return true;
  return false;
}

JobPolicy::JobPolicy(conf::JobsConfig jobs, std::string path, std::vector<std::string> shells)
    : jobs_(std::move(jobs)), path_(std::move(path)) {
  for (const std::string& shell : shells)
    if (std::string real = realPath(shell); !real.empty()) shells_.push_back(real);
}

JobPolicy JobPolicy::ofThisHost(const conf::JobsConfig& jobs) {
  const char* path = std::getenv("PATH");
  std::vector<std::string> shells;
  std::ifstream in("/etc/shells");
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line.front() == '/') shells.push_back(line);
  // execvp's search path when PATH is unset (glibc: confstr(_CS_PATH)).
  return JobPolicy(jobs, path ? path : "/bin:/usr/bin", std::move(shells));
}

std::string JobPolicy::allowList() const {
  std::string out;
  for (const std::string& pattern : jobs_.allow) out += (out.empty() ? "\"" : ", \"") + pattern + "\"";
  return "(" + out + ")";
}

Result<std::string> JobPolicy::resolve(const std::string& name) const {
  if (name.find('/') != std::string::npos) {
    if (!plainAbsolute(name))
      return Error{"'" + name + "' is not an absolute path without '.' or '..' parts, nor a name found in PATH"};
    if (!executableFile(name)) return Error{name + " is not an executable file here"};
    return name;
  }
  std::size_t from = 0;
  while (from <= path_.size()) {
    std::size_t to = path_.find(':', from);
    if (to == std::string::npos) to = path_.size();
    const std::string dir = path_.substr(from, to - from);
    from = to + 1;
    if (dir.empty() || dir.front() != '/') continue;  // the working directory: never
    const std::string candidate = dir + (dir.back() == '/' ? "" : "/") + name;
    if (executableFile(candidate)) return candidate;
  }
  return Error{"'" + name + "' is not found in the agent's PATH (" + path_ + ")"};
}

bool JobPolicy::isShell(const std::string& real) const {
  for (const std::string& shell : shells_)
    if (shell == real) return true;
  return false;
}

Result<std::string> JobPolicy::program(const std::vector<std::string>& argv, bool shell) const {
  if (!jobs_.runsJobs()) return Error{kNoJobs};
  if (argv.empty()) return Error{"the command is empty"};
  if (shell) {
    if (argv.size() != 3 || argv[0] != "/bin/sh" || argv[1] != "-c")
      return Error{"a command through a shell must be /bin/sh -c COMMAND"};
    if (!jobs_.shell) return Error{"it runs through a shell (hnow run --shell) and [jobs] shell = false here"};
  }
  auto resolved = resolve(argv[0]);
  if (!resolved) return resolved.error();
  // The file itself is executed, so a symlink changed after this check runs nothing else.
  const std::string real = realPath(*resolved);
  if (real.empty()) return Error{*resolved + " cannot be resolved"};
  if (isShell(real)) {
    if (!jobs_.shell) return Error{*resolved + " is a shell (/etc/shells) and [jobs] shell = false here"};
    return real;
  }
  if (!allowedBy(jobs_.allow, *resolved) && !allowedBy(jobs_.allow, real))
    return Error{*resolved + " is not in [jobs] allow " + allowList()};
  return real;
}

}  // namespace hnow::agent
