// A client's digests kept between sends (tree_digest_file.h): read back as
// written, trusted only while a file's stamp holds, and a file changed
// within the last second not kept.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli/run_process.h"
#include "transport/data/tree_digest_file.h"

using hnow::testing::TempDir;
using namespace hnow::transport::data;
namespace fs = std::filesystem;

TEST_CASE("a tree's digests saved by the client are found again while each file's stamp holds") {
  TempDir dir;
  const fs::path top = dir.path / "course";
  fs::create_directories(top / "lib");
  std::ofstream(top / "lib" / "a.txt") << "first file";
  std::ofstream(top / "b.txt") << "second file";
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // older than a second: kept
  TreeDigestCache none;
  auto scan = scanTree(top.string(), none);
  REQUIRE(scan);
  std::ofstream(top / "fresh.txt") << "written just now";
  auto withFresh = scanTree(top.string(), none);
  REQUIRE(withFresh);
  const std::string file = (dir.path / "cache" / "hnow" / "digests").string();
  REQUIRE(saveTreeDigests(file, top.string(), *withFresh));
  TreeDigestCache loaded = loadTreeDigests(file);
  CHECK(loaded.size() == 2);  // fresh.txt changed within the last second: not kept
  for (std::size_t k = 0; k < withFresh->entries.size(); ++k) {
    const TreeEntry& e = withFresh->entries[k];
    if (e.kind != TreeEntryKind::kFile || e.path == "fresh.txt") continue;
    const Sha256* known = loaded.find(top.string() + "/" + e.path, withFresh->stamps[k]);
    REQUIRE(known);
    CHECK(*known == e.sha256);
    FileStamp other = withFresh->stamps[k];
    other.mtimeNs += 1;
    CHECK(loaded.find(top.string() + "/" + e.path, other) == nullptr);
  }
}

TEST_CASE("a missing, foreign or cut-short digest file gives what it can and no error") {
  TempDir dir;
  CHECK(loadTreeDigests((dir.path / "none").string()).size() == 0);
  std::ofstream(dir.path / "foreign") << "not a digest file at all";
  CHECK(loadTreeDigests((dir.path / "foreign").string()).size() == 0);
  const fs::path top = dir.path / "t";
  fs::create_directories(top);
  for (int i = 0; i < 3; ++i) std::ofstream(top / ("f" + std::to_string(i))) << i;
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  TreeDigestCache none;
  auto scan = scanTree(top.string(), none);
  REQUIRE(scan);
  const std::string file = (dir.path / "digests").string();
  REQUIRE(saveTreeDigests(file, top.string(), *scan));
  CHECK(loadTreeDigests(file).size() == 3);
  fs::resize_file(file, fs::file_size(file) - 10);  // the last record cut short
  CHECK(loadTreeDigests(file).size() == 2);
}
