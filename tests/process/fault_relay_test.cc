// The fault matrix, a hostile relay's row (docs/security.md, "Data a relay
// alters"): agent-2 rewrites chunks it relays and computes their frame
// checksums again (HNOW_TEST_REWRITE_RELAYED_CHUNK_EVERY in its own
// environment), so only the source's chunk digests can catch it. Along a
// chain of 4 agents at 80 Mbit/s, so agent-2 relays to a child.
#include <doctest/doctest.h>

#include "process/fault_lab.h"

using hnow::testing::FaultLab;
using hnow::testing::readWhole;
using hnow::testing::writeRandomFile;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST_CASE("fault matrix: a relay that rewrites chunks and their checksums is caught at the first one, its child moves, hnowd bars it") {
  FaultLab lab(4, "--uplink-mbps 80 --source-uplink-mbps 80");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  const fs::path source = lab.dir.path / "source.bin";
  const std::string bytes = writeRandomFile(source, 3 << 20);
  REQUIRE(lab.restartWithEnv("agent-2", {"HNOW_TEST_REWRITE_RELAYED_CHUNK_EVERY=3"}));

  auto send = lab.startClient("send " + source.string() + " --algo chain --json --dest rewritten.bin", "rewritten");
  auto status = send->waitExit(30s);
  REQUIRE(status.has_value());
  CHECK_MESSAGE(*status == 0, readWhole(lab.errPath("rewritten")));
  std::string victim;
  for (const auto& [node, up] : lab.treeOf("rewritten"))
    if (up == "agent-2") victim = node;
  REQUIRE_MESSAGE(!victim.empty(), "agent-2 relays to nobody: " << readWhole(lab.errPath("rewritten")));
  const auto report = nlohmann::json::parse(readWhole(lab.outPath("rewritten")));
  REQUIRE_MESSAGE(report["copies"].size() == 4, report.dump());
  for (const auto& copy : report["copies"]) {
    CHECK(readWhole(copy["path"].get<std::string>()) == bytes);
    // Its frame checksums matched: XXH3 saw nothing wrong.
    CHECK(copy["corrupt_chunks"] == 0);
    if (copy["node"] == victim) CHECK(copy["parent"] != "agent-2");
  }
  // The child named what differed and dropped its parent at once.
  const std::string victimLog = readWhole(lab.dir.path / "logs" / (victim + ".log"));
  CHECK(victimLog.find("differs from the source's (SHA-256)") != std::string::npos);
  // hnowd names both peers, and the move shows in the report.
  const std::string hnowdLog = readWhole(lab.dir.path / "logs" / "hnowd.log");
  CHECK_MESSAGE(hnowdLog.find(victim + " caught agent-2 relaying bytes that differ from the source's") != std::string::npos,
                hnowdLog);
  bool moved = false;
  for (const auto& change : report["parent_changes"])
    moved = moved || (change["node"] == victim && change["old_parent"] == "agent-2" &&
                      change["reason"].get<std::string>().find("agent-2") != std::string::npos);
  CHECK_MESSAGE(moved, report.dump());
  CHECK(lab.leftovers() == 0);
  MESSAGE("fault matrix: relay agent-2 rewriting every 3rd chunk it relays: " << victim << " caught it and moved, "
                                                                              << report["copies"].size()
                                                                              << " copies identical, send "
                                                                              << report["actual_s"] << " s");
  // One fault is forgiven: agent-2 relays in the next plan, lies again and
  // is caught again; two make it a suspect, flagged in hnow status.
  // New bytes each time: a file an agent holds already is copied, not sent.
  const std::string bytes2 = writeRandomFile(lab.dir.path / "source2.bin", 3 << 20, 2);
  auto second = lab.startClient("send " + (lab.dir.path / "source2.bin").string() + " --algo chain --json --dest again.bin", "again");
  REQUIRE(second->waitExit(30s).has_value());
  bool relayedAgain = false;
  for (const auto& [node, up] : lab.treeOf("again")) relayedAgain = relayedAgain || up == "agent-2";
  CHECK(relayedAgain);
  const auto again = nlohmann::json::parse(readWhole(lab.outPath("again")));
  for (const auto& copy : again["copies"]) CHECK(readWhole(copy["path"].get<std::string>()) == bytes2);
  int faults = -1;
  const auto seen = lab.status();
  for (const auto& a : seen["agents"])
    if (a["name"] == "agent-2") faults = a.value("relay_faults", 0);
  CHECK_MESSAGE(faults == 2, seen.dump());
  // From now on it is planned as a leaf, even in a chain: it relays nothing.
  const std::string bytes3 = writeRandomFile(lab.dir.path / "source3.bin", 3 << 20, 3);
  auto third = lab.startClient("send " + (lab.dir.path / "source3.bin").string() + " --algo chain --json --dest leaf.bin", "leaf");
  auto thirdStatus = third->waitExit(30s);
  REQUIRE(thirdStatus.has_value());
  CHECK_MESSAGE(*thirdStatus == 0, readWhole(lab.errPath("leaf")));
  for (const auto& [node, up] : lab.treeOf("leaf")) CHECK_MESSAGE(up != "agent-2", node << " pulls from agent-2");
  CHECK(lab.treeOf("leaf").count("agent-2") == 1);  // it still receives its copy
  const auto leaf = nlohmann::json::parse(readWhole(lab.outPath("leaf")));
  CHECK(leaf["parent_changes"].empty());
  for (const auto& copy : leaf["copies"]) CHECK(readWhole(copy["path"].get<std::string>()) == bytes3);
  // The daemons serve on: the next send lands everywhere.
  CHECK(lab.followUpSend("after.bin", 4));
}
