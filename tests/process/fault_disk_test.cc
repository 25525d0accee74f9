// Issue 9's fault matrix, the data's row: a relay that corrupts chunks it
// sends (only that one agent: HNOW_TEST_CORRUPT_CHUNK_EVERY in its own
// environment), and a relay whose disk fills up (a 1 MiB tmpfs mounted as
// its root; root only, skipped with a message otherwise). Along a chain, so
// each fault sits on a relay with a child downstream.
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

// The nodes with a child, in tree order from hnowd.
std::vector<std::string> relaysOf(const std::map<std::string, std::string>& parent) {
  std::vector<std::string> chain;
  std::string at = "hnowd";
  for (bool more = true; more;) {
    more = false;
    for (const auto& [node, up] : parent)
      if (up == at) {
        chain.push_back(node);
        at = node;
        more = true;
        break;
      }
  }
  if (!chain.empty()) chain.pop_back();  // the last one relays to nobody
  return chain;
}

}  // namespace

TEST_CASE("fault matrix: a relay that corrupts chunks is caught by its child and resent; a relay whose disk fills up fails alone and cleanly") {
  FaultLab lab(4, "--uplink-mbps 80 --source-uplink-mbps 80");
  REQUIRE_MESSAGE(lab.up.status == 0, lab.up.err);
  const fs::path source = lab.dir.path / "source.bin";
  const std::string bytes = writeRandomFile(source, 3 << 20);
  const std::string send = "send " + source.string() + " --algo chain --json";

  // agent-2, started again with the hook, corrupts every 3rd chunk it relays.
  lab.kill("agent-2");
  lab.restart("agent-2", {"HNOW_TEST_CORRUPT_CHUNK_EVERY=3"});
  REQUIRE(lab.allReady());
  auto corrupt = lab.startClient(send + " --dest corrupt.bin", "corrupt");
  auto status = corrupt->waitExit(30s);
  REQUIRE(status.has_value());
  CHECK_MESSAGE(*status == 0, readWhole(lab.errPath("corrupt")));
  auto tree = lab.treeOf("corrupt");
  auto report = nlohmann::json::parse(readWhole(lab.outPath("corrupt")));
  REQUIRE(report["copies"].size() == 4);
  std::string corruptorChild;
  int caught = 0;
  for (const auto& [node, up] : tree)
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

  // A relay other than agent-2 gets a 1 MiB disk; the file is 3 MiB.
  std::string full;
  for (const auto& relay : relaysOf(tree))
    if (relay != "agent-2") full = relay;
  REQUIRE(!full.empty());
  SmallDisk disk(lab.rootOf(full), 1 << 20);
  if (!disk.mounted) {
    MESSAGE("SKIPPED the full-disk case: mounting a tmpfs needs root");
    return;
  }
  auto filled = lab.startClient(send + " --dest in/full.bin", "full");
  status = filled->waitExit(30s);
  REQUIRE(status.has_value());
  CHECK(*status == 1);
  report = nlohmann::json::parse(readWhole(lab.outPath("full")));
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
