// `hnow agent approve` of several pending agents: each shown with the key it
// asks with before anything is approved; --all needs --yes away from a
// terminal; a name not pending approves nothing.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "process/child_process.h"
#include "process/test_cluster.h"

using hnow::testing::ChildProcess;
using hnow::testing::eventually;
using hnow::testing::occurrences;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TestCluster;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// A new machine that trusts the lab's hnowd but holds no token: it asks
// with a key of its own and waits for approval.
std::unique_ptr<ChildProcess> newMachine(const TestCluster& lab, const std::string& name) {
  const std::string client = readWhole(lab.dir.path / "client.toml");
  const auto at = client.find("coordinator_key = ");
  REQUIRE(at != std::string::npos);
  const fs::path config = lab.dir.path / (name + ".toml");
  std::ofstream(config) << "name = \"" << name << "\"\ncoordinator = \"" << lab.hnowdAddress() << "\"\ndata_dir = \""
                        << (lab.dir.path / name).string() << "\"\n"
                        << client.substr(at, client.find('\n', at) - at + 1);
  return std::make_unique<ChildProcess>(std::vector<std::string>{HNOW_AGENT_BINARY, "--config", config.string()},
                                        std::vector<std::string>{}, (lab.dir.path / "logs" / (name + ".log")).string());
}

}  // namespace

TEST_CASE("hnow agent approve shows each pending key and approves several at once, --all only with --yes off a terminal") {
  TestCluster lab("--agents 1");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  auto first = newMachine(lab, "pc-1");
  auto second = newMachine(lab, "pc-2");
  REQUIRE(eventually([&] { return occurrences(runCommand(lab.hnow("agent keys")).out, "pending") == 2; }, 10s));

  auto unasked = runCommand(lab.hnow("agent approve --all"));
  CHECK(unasked.status == 2);
  CHECK(unasked.err.find("add --yes") != std::string::npos);
  auto unknown = runCommand(lab.hnow("agent approve pc-1 nobody"));
  CHECK(unknown.status == 1);
  CHECK(unknown.err.find("no agent named nobody is waiting for approval (waiting: pc-1, pc-2); nothing approved") !=
        std::string::npos);
  CHECK(occurrences(runCommand(lab.hnow("agent keys")).out, "pending") == 2);

  auto approved = runCommand(lab.hnow("agent approve --all --yes"));
  REQUIRE_MESSAGE(approved.status == 0, approved.err);
  // Each agent's key as its own log gave it, shown, then approved.
  for (const std::string name : {"pc-1", "pc-2"}) {
    const std::string log = readWhole(lab.dir.path / "logs" / (name + ".log"));
    const auto at = log.find("agent key ed25519:");
    REQUIRE(at != std::string::npos);
    const std::string key = log.substr(at + 10, log.find(' ', at + 10) - at - 10);
    CHECK(approved.out.find(key) != std::string::npos);
    CHECK(approved.out.find("agent " + name + " approved with key " + key) != std::string::npos);
  }
  const auto alive = [&](const std::string& name) {
    return eventually([&] { return runCommand(lab.hnow("status")).out.find(name) != std::string::npos; }, 15s);
  };
  CHECK(alive("pc-1"));
  CHECK(alive("pc-2"));
  CHECK(runCommand(lab.hnow("agent approve --all --yes")).out == "no agent is waiting for approval\n");
}
