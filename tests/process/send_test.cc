// `hnow send` on a local cluster: real hnowd and agents on
// 127.0.0.1, stopped by a guard even when a check fails.
#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "cli/run_process.h"
#include "process/transfer_checks.h"

using hnow::testing::partFiles;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::shaHex;
using hnow::testing::TempDir;
using hnow::testing::writeRandomFile;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

const std::string kHnow = HNOW_BINARY;

struct Cluster {
  TempDir dir;
  hnow::testing::ProcessResult up;
  Cluster(const std::string& env, const std::string& options) {
    up = runCommand(env + " " + kHnow + " local up --dir " + dir.path.string() + " " + options);
  }
  ~Cluster() {
    std::vector<pid_t> pids;
    std::error_code error;
    for (const auto& e : fs::directory_iterator(dir.path / "pids", error))
      pids.push_back(static_cast<pid_t>(std::stol("0" + readWhole(e.path()))));
    runCommand(kHnow + " local down --dir " + dir.path.string());
    for (pid_t pid : pids) ::kill(pid, SIGKILL);  // anything that would not stop
  }
  // hnowd's operation records, newest first.
  nlohmann::json ops() const {
    auto r = runCommand(kHnow + " --config " + (dir.path / "client.toml").string() + " ops --json");
    return r.status == 0 ? nlohmann::json::parse(r.out)["operations"] : nlohmann::json::array();
  }
  std::string send(const std::string& args) const {
    return kHnow + " --config " + (dir.path / "client.toml").string() + " send " + args;
  }
  fs::path root(int agent) const { return dir.path / "agents" / ("agent-" + std::to_string(agent)) / "files"; }
};

}  // namespace

TEST_CASE("a send reaches every agent byte-identical, corrupt chunks are resent, '..' and paths outside the roots are refused") {
  // Every 5th chunk each sender puts on the wire is corrupted once.
  Cluster cluster("HNOW_TEST_CORRUPT_CHUNK_EVERY=5", "--agents 4 --uplink-mbps 200");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string bytes = writeRandomFile(cluster.dir.path / "source.bin", 3 << 20);

  auto r = runCommand(cluster.send((cluster.dir.path / "source.bin").string() + " --dest in/copy.bin --json"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto report = nlohmann::json::parse(r.out);
  CHECK(report["failed"].empty());
  REQUIRE(report["copies"].size() == 4);
  CHECK(report["predicted_s"].get<double>() > 0);
  CHECK(report["actual_s"].get<double>() > 0);
  std::uint64_t corrupt = 0;
  for (const auto& copy : report["copies"]) {
    const fs::path path = copy["path"].get<std::string>();
    CHECK(path.is_absolute());
    CHECK(readWhole(path) == bytes);
    CHECK(copy["sha256"] == shaHex(bytes));
    CHECK(copy["finished_s"].get<double>() > 0);
    corrupt += copy["corrupt_chunks"].get<std::uint64_t>();
  }
  CHECK(corrupt >= 4);  // 24 chunks per copy: every receiver caught at least one
  auto ops = cluster.ops();
  REQUIRE(ops.size() == 1);
  CHECK(ops[0]["kind"] == "send");
  CHECK(ops[0]["status"] == "done");
  CHECK(ops[0]["summary"]["algo"] == "auto");
  CHECK(ops[0]["summary"]["plan"] == report["algo"]);
  CHECK(ops[0]["summary"]["size"] == 3 << 20);
  CHECK(ops[0]["summary"]["ok"] == 4);
  CHECK(ops[0]["summary"]["failed"] == 0);
  CHECK(ops[0]["summary"]["predicted_s"].get<double>() == doctest::Approx(report["predicted_s"].get<double>()).epsilon(0.01));
  CHECK(ops[0]["summary"]["actual_s"].get<double>() == doctest::Approx(report["actual_s"].get<double>()).epsilon(0.01));
  REQUIRE(report["considered"].size() == 3);  // auto's two trees, and the striped plan
  CHECK(report["considered"][2]["algo"] == "striped");
  CHECK_FALSE(report["why"].get<std::string>().empty());
  CHECK(report["kumar_ross_bound_s"].get<double>() > 0);
  for (int a = 1; a <= 4; ++a) {
    CHECK(fs::exists(cluster.root(a) / "in" / "copy.bin"));
    CHECK(partFiles(cluster.root(a)) == 0);
  }

  auto dotdot = runCommand(cluster.send((cluster.dir.path / "source.bin").string() + " --dest ../x"));
  CHECK(dotdot.status == 1);
  CHECK(dotdot.err.find("'..' is not allowed") != std::string::npos);
  auto outside = runCommand(cluster.send((cluster.dir.path / "source.bin").string() + " --dest " +
                                         (cluster.dir.path / "x").string()));
  CHECK(outside.status == 1);
  CHECK(outside.err.find("outside this agent's roots") != std::string::npos);
  fs::create_directory_symlink(cluster.dir.path, cluster.root(1) / "escape");
  auto symlink = runCommand(cluster.send((cluster.dir.path / "source.bin").string() + " --dest escape/x --to agent-1"));
  CHECK(symlink.status == 1);
  CHECK(symlink.err.find("symlink") != std::string::npos);
  CHECK_FALSE(fs::exists(cluster.dir.path / "x"));
  // `--dest ../x` would have landed beside each agent's root.
  for (int a = 1; a <= 4; ++a) CHECK_FALSE(fs::exists(cluster.root(a) / ".." / "x"));
  for (int a = 1; a <= 4; ++a) CHECK(partFiles(cluster.root(a)) == 0);
  // A send refused by an agent is recorded as failed, with the reason.
  auto records = cluster.ops();
  REQUIRE(records.size() >= 2);
  CHECK(records[0]["kind"] == "send");
  CHECK(records[0]["status"] == "failed");
  CHECK(records[0]["summary"]["error"].get<std::string>().find("symlink") != std::string::npos);
}

// A relay killed mid-transfer: tests/process/fault_matrix_test.cc
// kills a leaf, an inner node and a child of the source at 10%, 50% and 90%.

namespace {

// agent-1's uplink as hnowd's rate table holds it, Mbit/s.
double reportedUplinkMbps(const Cluster& cluster, const std::string& agent) {
  auto r = runCommand(kHnow + " --config " + (cluster.dir.path / "client.toml").string() + " status --json");
  if (r.status != 0) {
    MESSAGE("hnow status: " << r.err);
    return 0;
  }
  const auto status = nlohmann::json::parse(r.out);  // held: a range over a temporary's member dangles
  for (const auto& a : status["agents"])
    if (a["name"] == agent) return a["rates"]["uplink_bytes_per_s"].get<double>() * 8 / 1e6;
  return 0;
}

// Sends `file`, and once agent-2 holds `cutAt` bytes cuts agent-1's uplink to
// `cutMbps`. The report, or null when the send did not run.
nlohmann::json sendAndCut(const Cluster& cluster, const std::string& file, const std::string& dest,
                          const std::string& flags, std::uintmax_t cutAt, double cutMbps) {
  hnow::testing::ProcessResult r;
  std::thread sender([&]() { r = runCommand(cluster.send(file + " --dest " + dest + " --json " + flags)); });
  auto deadline = Clock::now() + 10s;
  bool cut = false;
  while (Clock::now() < deadline && !cut) {
    std::error_code error;
    for (const auto& e : fs::directory_iterator(cluster.root(2), error))
      // A receive's temp file (not the directory of receives' records beside it).
      if (e.path().filename().string().find(".hnow-") != std::string::npos && e.is_regular_file(error) &&
          fs::file_size(e.path(), error) >= cutAt) {
        cut = runCommand(kHnow + " --config " + (cluster.dir.path / "client.toml").string() +
                         " agent set-rate agent-1 --uplink-mbps " + std::to_string(cutMbps))
                  .status == 0;
        break;
      }
    std::this_thread::sleep_for(10ms);
  }
  sender.join();
  if (!cut || r.status != 0) {
    MESSAGE("send " << flags << ": status " << r.status << ", cut " << cut << ": " << r.err);
    return nullptr;
  }
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("a striped send assembles every copy from its stripes' parents, byte-identical, corrupt chunks resent") {
  // Uplink-bound: one tree would leave the leaves' 20 Mbit/s idle.
  Cluster cluster("HNOW_TEST_CORRUPT_CHUNK_EVERY=7",
                  "--agents 6 --uplink-mbps 20 --downlink-mbps 200 --source-uplink-mbps 100");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string bytes = writeRandomFile(cluster.dir.path / "source.bin", (4 << 20) + 4321);

  auto r = runCommand(cluster.send((cluster.dir.path / "source.bin").string() + " --dest in/striped.bin --json"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto report = nlohmann::json::parse(r.out);
  CHECK(report["algo"] == "striped");  // auto took it: the stripes predict well under one tree
  CHECK(report["why"].get<std::string>().rfind("striped", 0) == 0);
  CHECK(report["failed"].empty());
  const auto& stripes = report["stripes"];
  REQUIRE(stripes.size() >= 2);
  std::uint64_t next = 0;
  for (const auto& stripe : stripes) {
    CHECK(stripe["offset"] == next);
    next += stripe["length"].get<std::uint64_t>();
    CHECK(stripe["parents"].size() == 6);
  }
  CHECK(next == bytes.size());
  REQUIRE(report["copies"].size() == 6);
  std::uint64_t corrupt = 0;
  for (const auto& copy : report["copies"]) {
    CHECK(readWhole(copy["path"].get<std::string>()) == bytes);
    CHECK(copy["sha256"] == shaHex(bytes));
    CHECK(copy["stripe_parents"].size() == stripes.size());
    corrupt += copy["corrupt_chunks"].get<std::uint64_t>();
  }
  CHECK(corrupt >= 1);
  CHECK(report["kumar_ross_bound_s"].get<double>() > 0);
  CHECK(report["predicted_s"].get<double>() >= report["kumar_ross_bound_s"].get<double>() * 0.999);
  for (int a = 1; a <= 6; ++a) CHECK(partFiles(cluster.root(a)) == 0);
}

TEST_CASE("cutting the relay's uplink mid-send: hnowd re-plans and finishes sooner than with --no-replan") {
  // hnowd sends at 40 Mbit/s, agent-1 relays at 120, the others send at 8:
  // the tree is hnowd -> agent-1 -> {agent-2, agent-3, agent-4} at 40 Mbit/s.
  // Cut to 6 Mbit/s, agent-1 feeds its three children 2 Mbit/s each; a new
  // tree from hnowd feeds all four at 10 Mbit/s. A drift is an event after
  // 0.2 s here (2 s by default).
  Cluster cluster("", "--agents 4 --uplink-mbps 120,8,8,8 --downlink-mbps 200 --source-uplink-mbps 40 --drift-dwell-s 0.2");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string bytes = writeRandomFile(cluster.dir.path / "source.bin", 2 << 20);
  const std::string file = (cluster.dir.path / "source.bin").string();

  auto kept = sendAndCut(cluster, file, "kept.bin", "--no-replan", 1 << 20, 6);
  REQUIRE(kept.is_object());
  CHECK(kept["replanning"] == false);
  CHECK(kept["replans"] == 0);
  CHECK(kept["parent_changes"].empty());
  for (const auto& copy : kept["copies"]) {
    CHECK(readWhole(copy["path"].get<std::string>()) == bytes);
    if (copy["node"] != "agent-1") CHECK(copy["parent"] == "agent-1");
  }

  // Back to 120 Mbit/s, measured, and past the dwell (its drift event fires
  // before the next send starts).
  REQUIRE(runCommand(kHnow + " --config " + (cluster.dir.path / "client.toml").string() +
                     " agent set-rate agent-1 --uplink-mbps 120").status == 0);
  auto deadline = Clock::now() + 5s;
  while (Clock::now() < deadline && reportedUplinkMbps(cluster, "agent-1") < 100) std::this_thread::sleep_for(50ms);
  REQUIRE(reportedUplinkMbps(cluster, "agent-1") >= 100);
  std::this_thread::sleep_for(600ms);

  const std::string again = writeRandomFile(cluster.dir.path / "source.bin", 2 << 20, 1);  // new bytes: sent, not copied
  auto replanned = sendAndCut(cluster, file, "replanned.bin", "", 1 << 20, 6);
  REQUIRE(replanned.is_object());
  CHECK(replanned["replanning"] == true);
  CHECK(replanned["replans"].get<int>() >= 1);
  CHECK(replanned["failed"].empty());
  int movedOffAgent1 = 0;
  for (const auto& change : replanned["parent_changes"]) {
    CHECK(change["reason"].get<std::string>().rfind("drift: agent-1 uplink", 0) == 0);
    CHECK(change["at_s"].get<double>() > 0);
    movedOffAgent1 += change["old_parent"] == "agent-1";
  }
  CHECK(movedOffAgent1 >= 2);
  CHECK(replanned["replanned_predicted_s"].get<double>() > 0);
  for (const auto& copy : replanned["copies"]) CHECK(readWhole(copy["path"].get<std::string>()) == again);
  MESSAGE("--no-replan " << kept["actual_s"] << " s, replanned " << replanned["actual_s"] << " s (predicted "
                         << replanned["predicted_s"] << " s, after the replan " << replanned["replanned_predicted_s"] << " s)");
  CHECK(replanned["actual_s"].get<double>() < kept["actual_s"].get<double>());
  // The operation record carries the same story.
  nlohmann::json record;
  for (const auto& op : cluster.ops())  // newest first; set-rate commands are records too
    if (op["kind"] == "send") {
      record = op;
      break;
    }
  REQUIRE(record.is_object());
  CHECK(record["summary"]["replan"] == true);
  CHECK(record["summary"]["replans"] == replanned["replans"]);
  CHECK(record["summary"]["parent_changes"].size() == replanned["parent_changes"].size());
}

TEST_CASE("hnow send - uploads standard input to hnowd and sends it, and the upload is gone after the send") {
  Cluster cluster("", "--agents 2 --uplink-mbps 200");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string bytes = writeRandomFile(cluster.dir.path / "piped.bin", 3 << 20);
  // Through cat, as a pipe (runCommand's own stdin is /dev/null).
  auto r = runCommand("(cat " + (cluster.dir.path / "piped.bin").string() + " | " +
                      cluster.send("- --dest in/piped.bin --json") + ")");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.err.find("uploading standard input to hnowd") != std::string::npos);
  auto report = nlohmann::json::parse(r.out);
  REQUIRE(report["copies"].size() == 2);
  for (const auto& copy : report["copies"]) CHECK(readWhole(copy["path"].get<std::string>()) == bytes);
  std::size_t left = 0;
  std::error_code error;
  for (const auto& e : fs::directory_iterator(cluster.dir.path / "hnowd" / "uploads", error)) left += e.is_regular_file();
  CHECK(left == 0);
}

TEST_CASE("a file hnowd does not see at the client's path is uploaded and sent, one it sees is read in place") {
  Cluster cluster("", "--agents 2 --uplink-mbps 200");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string bytes = writeRandomFile(cluster.dir.path / "shared.bin", 1 << 20);
  auto seen = runCommand(cluster.send((cluster.dir.path / "shared.bin").string() + " --dest in/shared.bin --json"));
  REQUIRE_MESSAGE(seen.status == 0, seen.err);
  CHECK(seen.err.find("uploading") == std::string::npos);
  // The client on "another machine": a private mount namespace whose /mnt holds
  // a file hnowd cannot see. Needs root and unshare.
  if (::geteuid() != 0 || runCommand("unshare --mount true").status != 0) {
    MESSAGE("skipped the upload of an unseen file: needs root and unshare (a private mount namespace)");
    return;
  }
  const std::string script = "mount -t tmpfs none /mnt && head -c 2097152 " +
                             (cluster.dir.path / "shared.bin").string() + " > /mnt/laptop.bin && " +
                             cluster.send("/mnt/laptop.bin --dest in/laptop.bin --json");
  auto r = runCommand("unshare --mount sh -c '" + script + "'");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  // /mnt lies outside hnowd's [send] roots: hnowd does not even look there.
  CHECK_MESSAGE(r.err.find("does not read it there: refused /mnt/laptop.bin: /mnt/laptop.bin is outside hnowd's "
                           "roots") != std::string::npos, r.err);
  for (const auto& copy : nlohmann::json::parse(r.out)["copies"])
    CHECK(readWhole(copy["path"].get<std::string>()) == bytes);
  // Inside the roots, at a path where hnowd's machine holds something else
  // (here nothing: the client's tmpfs hides it), the client uploads it too.
  const fs::path hidden = cluster.dir.path / "hidden";
  fs::create_directories(hidden);
  const std::string inside = "mount -t tmpfs none " + hidden.string() + " && head -c 1048576 " +
                             (cluster.dir.path / "shared.bin").string() + " > " + (hidden / "x.bin").string() +
                             " && " + cluster.send((hidden / "x.bin").string() + " --dest in/x.bin --json");
  auto unseen = runCommand("unshare --mount sh -c '" + inside + "'");
  REQUIRE_MESSAGE(unseen.status == 0, unseen.err);
  CHECK_MESSAGE(unseen.err.find("which does not see it at that path") != std::string::npos, unseen.err);
}

TEST_CASE("where hnowd's uplink is the slow end, an agent holding the file serves a copy another agent lacks - the report says which") {
  Cluster cluster("", "--agents 3 --uplink-mbps 400 --source-uplink-mbps 40");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string source = (cluster.dir.path / "source.bin").string();
  const std::string bytes = writeRandomFile(source, 4 << 20);
  auto first = runCommand(cluster.send(source + " --dest course.bin --compress none --json"));
  REQUIRE_MESSAGE(first.status == 0, first.err);
  const auto firstReport = nlohmann::json::parse(first.out);
  CHECK(firstReport["why"].get<std::string>().find("served by") == std::string::npos);

  // agent-3 was off, say, and lost its copy: one of the others serves it at 400 Mbit/s.
  fs::remove(cluster.root(3) / "course.bin");
  auto again = runCommand(cluster.send(source + " --dest course.bin --compress none --json"));
  REQUIRE_MESSAGE(again.status == 0, again.err);
  const auto report = nlohmann::json::parse(again.out);
  REQUIRE(report["copies"].size() == 1);
  CHECK(report["copies"][0]["node"] == "agent-3");
  CHECK(report["copies"][0]["parent"].get<std::string>().rfind("agent-", 0) == 0);
  CHECK(report["why"].get<std::string>().rfind("served by agent-", 0) == 0);
  CHECK(report["source"] == report["copies"][0]["parent"]);
  CHECK(firstReport["source"] == "hnowd");
  CHECK(report["predicted_s"].get<double>() < firstReport["predicted_s"].get<double>() / 3);
  CHECK(readWhole(cluster.root(3) / "course.bin") == bytes);
  for (int a = 1; a <= 3; ++a) CHECK(partFiles(cluster.root(a)) == 0);
  auto ops = cluster.ops();
  REQUIRE(ops.size() == 2);
  CHECK(ops[0]["status"] == "done");
  CHECK(ops[0]["summary"]["source"].get<std::string>().rfind("agent-", 0) == 0);
  // The text report names the holder too.
  fs::remove(cluster.root(1) / "course.bin");
  auto text = runCommand(cluster.send(source + " --dest course.bin --compress none"));
  REQUIRE_MESSAGE(text.status == 0, text.err);
  CHECK(text.out.find("chosen: served by agent-") != std::string::npos);
  CHECK(text.out.find("(it held the file already) along ") != std::string::npos);
  CHECK(readWhole(cluster.root(1) / "course.bin") == bytes);
}

TEST_CASE("agents holding a file under another path write --dest from it: nothing sent to them, the report says from where, the others are sent it") {
  Cluster cluster("", "--agents 3 --uplink-mbps 200");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string source = (cluster.dir.path / "image.bin").string();
  const std::string bytes = writeRandomFile(source, 3 << 20, 7);
  auto first = runCommand(cluster.send(source + " --dest v1/image.bin --json"));
  REQUIRE_MESSAGE(first.status == 0, first.err);
  CHECK(nlohmann::json::parse(first.out)["copies"].size() == 3);
  fs::remove(cluster.root(3) / "v1" / "image.bin");

  auto second = runCommand(cluster.send(source + " --dest v2/image.bin --json"));
  REQUIRE_MESSAGE(second.status == 0, second.err);
  auto report = nlohmann::json::parse(second.out);
  REQUIRE(report["copies"].size() == 1);
  CHECK(report["copies"][0]["node"] == "agent-3");
  CHECK(report["failed"].empty());
  CHECK(report["held"] == nlohmann::json::array({"agent-1", "agent-2"}));
  REQUIRE(report["copied_here"].size() == 2);
  for (const auto& c : report["copied_here"]) {
    const int a = c["agent"] == "agent-1" ? 1 : 2;
    CHECK(c["from"] == (fs::canonical(cluster.root(a)) / "v1" / "image.bin").string());
  }
  for (int a = 1; a <= 3; ++a) {
    CHECK(readWhole(cluster.root(a) / "v2" / "image.bin") == bytes);
    CHECK(partFiles(cluster.root(a)) == 0);
  }
  auto ops = cluster.ops();
  REQUIRE_FALSE(ops.empty());
  CHECK(ops[0]["summary"]["copied_here"].size() == 2);

  // Every agent holds it somewhere now: nothing moves, and the table says where from.
  auto third = runCommand(cluster.send(source + " --dest v3/image.bin"));
  REQUIRE_MESSAGE(third.status == 0, third.err);
  CHECK(third.out.find("nothing to send: every agent it is for holds") != std::string::npos);
  CHECK(third.out.find("copied on the agent (the same SHA-256 under another path; nothing sent): agent-1 (from ") !=
        std::string::npos);
  for (int a = 1; a <= 3; ++a) CHECK(readWhole(cluster.root(a) / "v3" / "image.bin") == bytes);
}

TEST_CASE("a file sent again to the same --dest moves nothing, a different file there is refused without --force and kept, and --force replaces it") {
  Cluster cluster("", "--agents 3 --uplink-mbps 200");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const std::string source = (cluster.dir.path / "source.bin").string();
  const std::string bytes = writeRandomFile(source, 2 << 20);
  auto first = runCommand(cluster.send(source + " --dest same.bin --json"));
  REQUIRE_MESSAGE(first.status == 0, first.err);
  CHECK(nlohmann::json::parse(first.out)["copies"].size() == 3);

  auto again = runCommand(cluster.send(source + " --dest same.bin"));
  REQUIRE_MESSAGE(again.status == 0, again.err);
  CHECK(again.out.find("nothing to send: every agent it is for holds") != std::string::npos);
  CHECK(again.out.find("held already (the same SHA-256 at --dest; nothing sent): agent-1, agent-2, agent-3") !=
        std::string::npos);
  auto ops = cluster.ops();
  REQUIRE(ops.size() == 2);
  CHECK(ops[0]["status"] == "done");
  CHECK(ops[0]["summary"]["held"] == nlohmann::json::array({"agent-1", "agent-2", "agent-3"}));
  CHECK(ops[0]["summary"]["agents"] == 0);

  // agent-2's copy changed in place, size kept: found by its digest.
  std::string changed = bytes;
  changed[12345] = static_cast<char>(changed[12345] ^ 0x5a);
  {
    std::ofstream out(cluster.root(2) / "same.bin", std::ios::binary | std::ios::trunc);
    out << changed;
  }
  auto refused = runCommand(cluster.send(source + " --dest same.bin"));
  CHECK(refused.status == 1);
  CHECK(refused.err.find("agent-2 holds a different file at same.bin; nothing was sent. Send with --force") !=
        std::string::npos);
  CHECK(readWhole(cluster.root(2) / "same.bin") == changed);  // nothing lost
  ops = cluster.ops();
  REQUIRE(ops.size() == 3);
  CHECK(ops[0]["status"] == "failed");

  auto forced = runCommand(cluster.send(source + " --dest same.bin --force --json"));
  REQUIRE_MESSAGE(forced.status == 0, forced.err);
  auto report = nlohmann::json::parse(forced.out);
  REQUIRE(report["copies"].size() == 1);
  CHECK(report["copies"][0]["node"] == "agent-2");
  CHECK(report["replaced"] == nlohmann::json::array({"agent-2"}));
  CHECK(report["held"] == nlohmann::json::array({"agent-1", "agent-3"}));
  for (int a = 1; a <= 3; ++a) CHECK(readWhole(cluster.root(a) / "same.bin") == bytes);
  for (int a = 1; a <= 3; ++a) CHECK(partFiles(cluster.root(a)) == 0);

  // A directory at --dest cannot be replaced by a file, --force or not.
  fs::create_directories(cluster.root(1) / "adir");
  auto intoDir = runCommand(cluster.send(source + " --dest adir --to agent-1 --force"));
  CHECK(intoDir.status == 1);
  CHECK(intoDir.err.find("adir is a directory; a file cannot replace it") != std::string::npos);
}
