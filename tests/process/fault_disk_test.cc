// The fault matrix, the data's row: a relay that corrupts chunks it
// sends (only that one agent: HNOW_TEST_CORRUPT_CHUNK_EVERY in its own
// environment), and a relay whose disk fills up (a 1 MiB tmpfs mounted as
// its root; root only, skipped with a message otherwise). Along a chain
// (4 agents at 80 Mbit/s, 3 MiB: about 0.8 s), so each fault sits on a
// relay with a child downstream.
#include <doctest/doctest.h>
#include <sys/mount.h>
#include <unistd.h>

#include "process/fault_lab.h"

using hnow::testing::eventually;
using hnow::testing::FaultLab;
using hnow::testing::readWhole;
using hnow::testing::writeRandomFile;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// A tmpfs of `bytes` mounted on `dir`, lazily unmounted by the destructor.
struct SmallDisk {
  fs::path dir;
  bool mounted = false;
  SmallDisk(fs::path where, std::size_t bytes) : dir(std::move(where)) {
    if (::geteuid() != 0) return;
    const std::string options = "size=" + std::to_string(bytes);
    mounted = ::mount("hnow-fault-tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) == 0;
  }
  ~SmallDisk() {
    if (mounted) ::umount2(dir.c_str(), MNT_DETACH);
  }
};

constexpr const char* kLabOptions = "--uplink-mbps 80 --source-uplink-mbps 80";

}  // namespace

TEST_CASE("fault matrix: a relay that corrupts chunks is caught by its child, the chunks are resent, every copy is identical") {
  FaultLab lab(4, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  const fs::path source = lab.dir.path / "source.bin";
  const std::string bytes = writeRandomFile(source, 3 << 20);

  // agent-2, started again with the hook, corrupts every 3rd chunk it relays.
  REQUIRE(lab.restartWithEnv("agent-2", {"HNOW_TEST_CORRUPT_CHUNK_EVERY=3"}));
  auto corrupt = lab.startClient("send " + source.string() + " --algo chain --json --dest corrupt.bin", "corrupt");
  auto status = corrupt->waitExit(30s);
  REQUIRE(status.has_value());
  CHECK_MESSAGE(*status == 0, readWhole(lab.errPath("corrupt")));
  auto report = nlohmann::json::parse(readWhole(lab.outPath("corrupt")));
  REQUIRE_MESSAGE(report["copies"].size() == 4, report.dump());
  std::string corruptorChild;
  int caught = 0;
  for (const auto& [node, up] : lab.treeOf("corrupt"))
    if (up == "agent-2") corruptorChild = node;
  REQUIRE_MESSAGE(!corruptorChild.empty(), "agent-2 relays to nobody: " << readWhole(lab.errPath("corrupt")));
  for (const auto& copy : report["copies"]) {
    CHECK(readWhole(copy["path"].get<std::string>()) == bytes);
    // Only the corrupting relay's child saw bad chunks (hnowd and the others send clean ones).
    if (copy["node"] == corruptorChild) CHECK((caught = copy["corrupt_chunks"].get<int>()) >= 3);
    else CHECK(copy["corrupt_chunks"] == 0);
  }
  CHECK(readWhole(lab.dir.path / "logs" / (corruptorChild + ".log")).find("XXH3 mismatch") != std::string::npos);
  CHECK(lab.leftovers() == 0);
  MESSAGE("fault matrix: relay agent-2 corrupting every 3rd chunk: " << corruptorChild << " caught " << caught
                                                                      << " corrupt chunks, " << report["copies"].size()
                                                                      << " copies identical, send " << report["actual_s"] << " s");
  // The corrupting relay keeps corrupting: the next send still gets through.
  CHECK(lab.followUpSend("after.bin", 4));
}

TEST_CASE("fault matrix: a relay whose disk fills up fails alone with the reason and the path, leaves no temp file, its child completes") {
  FaultLab lab(4, kLabOptions);
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  const fs::path source = lab.dir.path / "source.bin";
  const std::string bytes = writeRandomFile(source, 3 << 20);
  // The chain runs in name order (planner/broadcast/broadcast.cc): agent-2 relays to agent-3.
  const std::string full = "agent-2";
  SmallDisk disk(lab.rootOf(full), 1 << 20);  // the file is 3 MiB
  if (!disk.mounted) {
    MESSAGE("SKIPPED the full-disk case: mounting a tmpfs needs root");
    return;
  }
  auto filled = lab.startClient("send " + source.string() + " --algo chain --json --dest in/full.bin", "full");
  auto status = filled->waitExit(30s);
  REQUIRE(status.has_value());
  CHECK(*status == 1);
  const auto tree = lab.treeOf("full");
  REQUIRE(tree.count("agent-3"));
  CHECK(tree.at("agent-3") == full);  // it was a relay
  auto report = nlohmann::json::parse(readWhole(lab.outPath("full")));
  REQUIRE(report["failed"].size() == 1);
  CHECK(report["failed"][0]["node"] == full);
  const std::string reason = report["failed"][0]["reason"];
  CHECK(reason.find("No space left on device") != std::string::npos);
  CHECK(reason.find((lab.rootOf(full) / "in" / "full.bin").string()) != std::string::npos);
  REQUIRE(report["copies"].size() == 3);
  for (const auto& copy : report["copies"]) {
    CHECK(readWhole(copy["path"].get<std::string>()) == bytes);
    CHECK(copy["parent"] != full);  // its child moved
  }
  CHECK_FALSE(fs::exists(lab.rootOf(full) / "in" / "full.bin"));
  CHECK(eventually([&] { return lab.leftovers() == 0; }, 3s));
  MESSAGE("fault matrix: relay " << full << " with a 1 MiB disk: failed with '" << reason << "', "
                                 << report["copies"].size() << " other copies identical, send "
                                 << report["actual_s"] << " s");
  // The full disk got its space back: the next (small) send fits everywhere.
  CHECK(lab.followUpSend("in/after.bin", 4));
  CHECK(lab.leftovers() == 0);
}
