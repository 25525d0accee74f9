// The three binaries' command lines, as an administrator meets them first:
// --version and --help answer and exit 0, a bad command line says what is
// wrong and exits 2 (a package's scripts and systemd tell the two apart).
#include <doctest/doctest.h>

#include "cli/run_process.h"

using hnow::testing::runCommand;

namespace {

const char* const kBinaries[] = {HNOW_BINARY, HNOWD_BINARY, HNOW_AGENT_BINARY};

std::string nameOf(const std::string& path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

TEST_CASE("every binary answers --version with its name and hnow's version, and exits 0") {
  for (const std::string binary : kBinaries) {
    INFO(binary);
    auto r = runCommand(binary + " --version");
    CHECK(r.status == 0);
    CHECK(r.out == nameOf(binary) + " " + HNOW_VERSION_TEXT + "\n");
  }
}

TEST_CASE("hnowd and hnow-agent answer --help with their options and exit 0") {
  for (const std::string& binary : {std::string(HNOWD_BINARY), std::string(HNOW_AGENT_BINARY)}) {
    INFO(binary);
    auto r = runCommand(binary + " --help");
    CHECK(r.status == 0);
    CHECK(r.out.find("--config") != std::string::npos);
    CHECK(r.out.find("--version") != std::string::npos);
  }
  CHECK(runCommand(std::string(HNOWD_BINARY) + " --help").out.find("--new-state") != std::string::npos);
  CHECK(runCommand(std::string(HNOW_AGENT_BINARY) + " --help").out.find("--enroll-file") != std::string::npos);
}

TEST_CASE("a daemon started without --config, or with an option it does not know, says so and exits 2") {
  for (const std::string& binary : {std::string(HNOWD_BINARY), std::string(HNOW_AGENT_BINARY)}) {
    INFO(binary);
    auto none = runCommand(binary);
    CHECK(none.status == 2);
    CHECK(none.err.find("--config is required") != std::string::npos);
    auto unknown = runCommand(binary + " --config x.toml --frobnicate");
    CHECK(unknown.status == 2);
    CHECK(unknown.err.find("--frobnicate") != std::string::npos);
  }
  auto both = runCommand(std::string(HNOW_AGENT_BINARY) + " --config x.toml --enroll T --enroll-file /dev/null");
  CHECK(both.status == 2);
  CHECK(both.err.find("excludes") != std::string::npos);
}
