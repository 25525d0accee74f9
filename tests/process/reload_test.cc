// SIGHUP reloads a running daemon's config (`systemctl reload`): hnowd's
// operators take effect for the next login and a withdrawn one is refused;
// an agent's [jobs] takes effect for the next command; a config that does
// not load changes nothing; neither process restarts.
#include <doctest/doctest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "process/test_cluster.h"

using hnow::testing::processAlive;
using hnow::testing::occurrences;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TestCluster;
namespace fs = std::filesystem;

namespace {

// The line of `text` that starts with `key`, its newline included.
std::string lineOf(const std::string& text, const std::string& key) {
  const auto at = text.find("\n" + key);
  REQUIRE(at != std::string::npos);
  return text.substr(at + 1, text.find('\n', at + 1) - at);
}

// Sends SIGHUP to `name` and waits for its `n`th line holding `text`.
void reload(const TestCluster& lab, const std::string& name, const std::string& text, std::size_t n = 1) {
  ::kill(lab.pid(name), SIGHUP);
  REQUIRE_MESSAGE(
      hnow::testing::eventually([&] { return occurrences(lab.log(name), text) >= n; }, std::chrono::seconds(5)),
      lab.log(name));
}

}  // namespace

TEST_CASE("SIGHUP gives hnowd its new operators at once, refuses a broken config and withdraws a removed operator") {
  TestCluster lab("--agents 1");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  const pid_t hnowd = lab.pid("hnowd");
  const fs::path keyFile = lab.dir.path / "reader.key";
  auto made = runCommand(std::string(HNOW_BINARY) + " key new " + keyFile.string());
  REQUIRE_MESSAGE(made.status == 0, made.err);
  std::string publicKey = made.out;
  publicKey.erase(publicKey.find_last_not_of('\n') + 1);
  const std::string client = readWhole(lab.dir.path / "client.toml");
  const fs::path readerConfig = lab.dir.path / "reader.toml";
  std::ofstream(readerConfig) << lineOf("\n" + client, "coordinator =") << lineOf("\n" + client, "coordinator_key =")
                              << "operator = \"reader\"\nkey_file = \"reader.key\"\n";
  const std::string status = std::string(HNOW_BINARY) + " --config " + readerConfig.string() + " status";
  auto before = runCommand(status);
  CHECK(before.status != 0);
  CHECK(before.err.find("no operator of that name") != std::string::npos);

  const fs::path config = lab.dir.path / "hnowd.toml";
  const std::string original = readWhole(config);
  const std::string withReader =
      original + "\n[[operators]]\nname = \"reader\"\nkey = \"" + publicKey + "\"\nrights = \"read\"\n";
  std::ofstream(config) << withReader;
  reload(lab, "hnowd", "operators: 2 (1 read-only)");
  auto after = runCommand(status);
  CHECK_MESSAGE(after.status == 0, after.err);
  CHECK(after.out.find("agent-1") != std::string::npos);

  // A config that does not load: refused whole, said with its line, nothing changed.
  std::ofstream(config) << "lost_timeout_s = \"soon\"\n" << withReader;
  reload(lab, "hnowd", "reload on SIGHUP refused, hnowd runs on as it was");
  CHECK(lab.log("hnowd").find("must be a number, not a string") != std::string::npos);
  CHECK(runCommand(status).status == 0);

  // The operator removed, and a key only a restart applies changed: named.
  std::string moved = original;
  moved.replace(moved.find("log_level = \"info\""), 18, "log_level = \"info\"\nlog_format = \"json\"");
  std::ofstream(config) << moved;
  reload(lab, "hnowd", "removed or changed: reader");
  CHECK(lab.log("hnowd").find("log_format changed, and takes effect only when hnowd restarts") != std::string::npos);
  auto withdrawn = runCommand(status);
  CHECK(withdrawn.status != 0);
  CHECK(withdrawn.err.find("no operator of that name") != std::string::npos);
  CHECK(runCommand(lab.hnow("status")).status == 0);  // the lab's own operator was kept
  CHECK(lab.pid("hnowd") == hnowd);
  CHECK(processAlive(hnowd));
}

TEST_CASE("SIGHUP gives an agent its owner's new [jobs] for the next command, without dropping hnowd") {
  TestCluster lab("--agents 1");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  const fs::path input = lab.dir.path / "input.txt";
  std::ofstream(input) << "one\ntwo\nthree\n";
  const std::string run = "run --input " + input.string() + " --cmd 'tr a-z A-Z' --concat --to agent-1";
  auto allowed = runCommand(lab.hnow(run));
  REQUIRE_MESSAGE(allowed.status == 0, allowed.err);
  CHECK(allowed.out == "ONE\nTWO\nTHREE\n");

  const fs::path config = lab.dir.path / "agents" / "agent-1.toml";
  std::string text = readWhole(config);
  const auto from = text.find("allow = [\"*\"]");
  REQUIRE(from != std::string::npos);
  text.replace(from, 13, "allow = [\"/usr/bin/wc\"]");
  std::ofstream(config) << text;
  const std::size_t logins = occurrences(lab.log("agent-1"), "registered with hnowd");
  reload(lab, "agent-1", "[jobs] allow: /usr/bin/wc");
  auto refused = runCommand(lab.hnow(run));
  CHECK(refused.status == 1);
  CHECK(refused.err.find("/usr/bin/tr is not in [jobs] allow (\"/usr/bin/wc\")") != std::string::npos);
  auto counted = runCommand(lab.hnow("run --input " + input.string() + " --cmd 'wc -l' --concat --to agent-1"));
  CHECK_MESSAGE(counted.status == 0, counted.err);
  CHECK(counted.out == "3\n");
  // Same process, same session: nothing was restarted to take it.
  CHECK(occurrences(lab.log("agent-1"), "registered with hnowd") == logins);
}
