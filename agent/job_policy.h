#pragma once
// Whether the agent's owner lets a share's command run here ([jobs] allow
// and shell, conf/jobs_config.h), and which file is executed: argv[0]
// resolved through PATH as execvp would, once, so that the file matched is
// the file run. hnowd is not trusted to say what a command is: a program
// listed in /etc/shells is a shell whatever the order says.
#include <string>
#include <vector>

#include "base/result.h"
#include "conf/jobs_config.h"

namespace hnow::agent {

class JobPolicy {
 public:
  // `path`: the PATH to resolve names in; `shells`: the shells' paths (/etc/shells).
  JobPolicy(conf::JobsConfig jobs, std::string path, std::vector<std::string> shells);
  // This process's PATH (execvp's default when unset) and /etc/shells.
  static JobPolicy ofThisHost(const conf::JobsConfig& jobs);

  // The absolute path to execute for `argv`, or why the owner refuses it.
  // `shell`: hnowd says it is `/bin/sh -c COMMAND` (hnow run --shell).
  Result<std::string> program(const std::vector<std::string>& argv, bool shell) const;

  const conf::JobsConfig& jobs() const { return jobs_; }
  // The allow list as written, for messages: ("/usr/bin/wc", "/opt/x/*").
  std::string allowList() const;

 private:
  Result<std::string> resolve(const std::string& name) const;
  bool isShell(const std::string& real) const;

  conf::JobsConfig jobs_;
  std::string path_;
  std::vector<std::string> shells_;  // their real paths
};

// fnmatch(3) with FNM_PATHNAME ("*" alone matches any path).
bool allowedBy(const std::vector<std::string>& allow, const std::string& path);

}  // namespace hnow::agent
