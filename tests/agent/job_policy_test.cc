// What an agent's owner lets hnowd run ([jobs] allow and shell): argv[0]
// resolved as execvp would, matched on its absolute path; shells known
// by what they are, not by what hnowd says.
#include "agent/job_policy.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "cli/run_process.h"

using hnow::agent::allowedBy;
using hnow::agent::JobPolicy;
using hnow::conf::JobsConfig;
using hnow::testing::TempDir;
namespace fs = std::filesystem;

namespace {

JobsConfig allowing(std::vector<std::string> allow, bool shell = false) {
  JobsConfig jobs;
  jobs.allow = std::move(allow);
  jobs.shell = shell;
  return jobs;
}

std::string errorOf(const hnow::Result<std::string>& r) { return r ? "" : r.error().message; }

// An executable file at `path`.
void tool(const fs::path& path) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "#!/bin/sh\nexit 0\n";
  ::chmod(path.c_str(), 0755);
}

}  // namespace

TEST_CASE("allow patterns match absolute paths, a star within one directory, a lone star anything") {
  CHECK(allowedBy({"/usr/bin/wc"}, "/usr/bin/wc"));
  CHECK_FALSE(allowedBy({"/usr/bin/wc"}, "/usr/bin/wcx"));
  CHECK(allowedBy({"/usr/bin/*"}, "/usr/bin/sort"));
  CHECK_FALSE(allowedBy({"/usr/bin/*"}, "/usr/bin/sub/sort"));
  CHECK(allowedBy({"/opt/*/bin/tool"}, "/opt/a/bin/tool"));
  CHECK(allowedBy({"/usr/bin/python3.[0-9]*"}, "/usr/bin/python3.11"));
  CHECK(allowedBy({"/x", "*"}, "/anything/at/all"));
  CHECK_FALSE(allowedBy({}, "/usr/bin/wc"));
}

TEST_CASE("a name is resolved through PATH and its absolute path is what the allow list sees") {
  TempDir dir;
  tool(dir.path / "a" / "tool");
  tool(dir.path / "b" / "tool");
  tool(dir.path / "b" / "other");
  const std::string path = (dir.path / "a").string() + ":relative:" + (dir.path / "b").string();
  JobPolicy policy(allowing({(dir.path / "a" / "*").string()}), path, {});
  CHECK(policy.program({"tool", "-x"}, false).value() == (dir.path / "a" / "tool").string());
  CHECK(errorOf(policy.program({"other"}, false)) == (dir.path / "b" / "other").string() +
                                                         " is not in [jobs] allow (\"" +
                                                         (dir.path / "a" / "*").string() + "\")");
  CHECK(errorOf(policy.program({"missing"}, false)) == "'missing' is not found in the agent's PATH (" + path + ")");
  // Absolute as given; relative with a slash, or with '..' parts, never.
  CHECK(policy.program({(dir.path / "a" / "tool").string()}, false).ok());
  CHECK(errorOf(policy.program({"./tool"}, false)).find("is not an absolute path") != std::string::npos);
  CHECK(errorOf(policy.program({(dir.path / "a" / ".." / "b" / "other").string()}, false))
            .find("without '.' or '..' parts") != std::string::npos);
  CHECK(errorOf(policy.program({(dir.path / "a").string()}, false)).find("is not an executable file") !=
        std::string::npos);
}

TEST_CASE("a symlink is allowed by its own path or its target's, and the target is what runs") {
  TempDir dir;
  tool(dir.path / "real" / "tool");
  fs::create_directories(dir.path / "links");
  fs::create_symlink(dir.path / "real" / "tool", dir.path / "links" / "tool");
  const std::string link = (dir.path / "links" / "tool").string();
  const std::string real = fs::canonical(dir.path / "real" / "tool").string();
  CHECK(JobPolicy(allowing({link}), "", {}).program({link}, false).value() == real);
  CHECK(JobPolicy(allowing({real}), "", {}).program({link}, false).value() == real);
  CHECK_FALSE(JobPolicy(allowing({(dir.path / "other").string()}), "", {}).program({link}, false).ok());
}

TEST_CASE("shells run only with shell = true, whether hnowd says so or not") {
  TempDir dir;
  tool(dir.path / "bin" / "sh-like");
  const std::string shell = (dir.path / "bin" / "sh-like").string();
  const std::string path = (dir.path / "bin").string() + ":/usr/bin:/bin";
  // Allowed by pattern, but a shell: refused without shell = true.
  JobPolicy strict(allowing({"*"}), path, {shell, "/bin/sh"});
  CHECK(errorOf(strict.program({"sh-like", "-c", "rm -rf ~"}, false)) ==
        shell + " is a shell (/etc/shells) and [jobs] shell = false here");
  CHECK(errorOf(strict.program({"/bin/sh", "-c", "wc -l"}, true)) ==
        "it runs through a shell (hnow run --shell) and [jobs] shell = false here");
  JobPolicy shells(allowing({"/usr/bin/wc"}, true), path, {shell, "/bin/sh"});
  CHECK(shells.program({"/bin/sh", "-c", "wc -l | sort"}, true).value() == fs::canonical("/bin/sh").string());
  CHECK(shells.program({"sh-like", "-c", "x"}, false).ok());
  CHECK(errorOf(shells.program({"/bin/sh", "-x", "wc"}, true)) == "a command through a shell must be /bin/sh -c COMMAND");
}

TEST_CASE("an agent without an allow list refuses every command and says how to allow them") {
  JobPolicy none(JobsConfig{}, "/usr/bin:/bin", {});
  const std::string why = errorOf(none.program({"wc", "-l"}, false));
  CHECK(why.find("this agent runs no jobs") == 0);
  CHECK(why.find("[jobs] allow") != std::string::npos);
  CHECK_FALSE(JobPolicy(JobsConfig{}, "/usr/bin:/bin", {}).program({"/bin/sh", "-c", "x"}, true).ok());
}
