// hnowd's kept files (server/kept_files.h): the last upload under a key is
// found again only with the client's stamp, replaces the one before
// without pulling it from a send that reads it, and the least recently
// used go past the bound, never one a send reads.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli/run_process.h"
#include "server/kept_files.h"
#include "transport/data/digest_cache.h"
#include "transport/data/frame.h"

using hnow::api::FileStamp;
using hnow::daemon::KeptFiles;
using hnow::testing::readWhole;
using hnow::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// An upload landed at `dir`/name holding `bytes`.
std::string landed(const fs::path& dir, const std::string& name, const std::string& bytes) {
  std::ofstream(dir / name, std::ios::binary) << bytes;
  return (dir / name).string();
}

// `bytes` kept under `key` with `stamp`, as hnowd keeps a whole upload: its path, read until released.
std::string keep(KeptFiles& kept, const fs::path& dir, const std::string& key, const FileStamp& stamp,
                 const std::string& bytes) {
  auto generation = kept.place(bytes.size());
  REQUIRE_MESSAGE(generation, generation.error().message);
  static int uploads = 0;
  const std::string upload = landed(dir, std::to_string(++uploads) + ".upload", bytes);
  auto moved = hnow::daemon::moveIntoKept(upload, *generation);
  REQUIRE_MESSAGE(moved, moved.error().message);
  CHECK_FALSE(fs::exists(upload));
  // Timestamps tick coarsely: the next one is later.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return kept.commit(key, stamp, *generation);
}

std::size_t keptCount(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".file";
  return n;
}

}  // namespace

TEST_CASE("a kept file is found again only under its key with the client's whole stamp") {
  TempDir top;
  KeptFiles kept((top.path / "kept").string());
  const FileStamp stamp{5, 1'700'000'000'000'000'000, 1'700'000'000'500'000'000, 77};
  const std::string path = keep(kept, top.path, "op\nlaptop:/data/a.bin", stamp, "hello");
  kept.release(path);
  CHECK(kept.holds("op\nlaptop:/data/a.bin", stamp));
  CHECK_FALSE(kept.holds("other\nlaptop:/data/a.bin", stamp));  // another operator's key
  CHECK_FALSE(kept.holds("op\ndesk:/data/a.bin", stamp));       // another host
  FileStamp touched = stamp;
  touched.ctimeNs += 1;  // mtime set back with touch -d: the ctime still moved
  CHECK_FALSE(kept.holds("op\nlaptop:/data/a.bin", touched));
  FileStamp rewritten = stamp;
  rewritten.inode += 1;
  CHECK_FALSE(kept.holds("op\nlaptop:/data/a.bin", rewritten));
  CHECK_FALSE(kept.use("op\nlaptop:/data/a.bin", touched));
  auto used = kept.use("op\nlaptop:/data/a.bin", stamp);
  REQUIRE(used);
  CHECK(readWhole(*used) == "hello");
  kept.release(*used);
}

TEST_CASE("a kept file's digests come across the move: a send from it reads no byte to hash it") {
  TempDir top;
  KeptFiles kept((top.path / "kept").string());
  const std::string bytes(3 << 20, 'x');
  const std::string upload = landed(top.path, "a.upload", bytes);
  // As the data plane does once an upload landed (digest_cache.h: rememberWritten).
  {
    const int fd = ::open(upload.c_str(), O_RDONLY);
    auto digests = hnow::transport::data::rememberedDigests(fd, hnow::transport::data::kChunkBytes);
    REQUIRE(digests);
    hnow::transport::data::rememberWritten(fd, *digests);
    ::close(fd);
  }
  auto generation = kept.place(bytes.size());
  REQUIRE(generation);
  const std::uint64_t before = hnow::transport::data::digestReads();
  REQUIRE(hnow::daemon::moveIntoKept(upload, *generation));
  const int fd = ::open(generation->c_str(), O_RDONLY);
  auto digests = hnow::transport::data::rememberedDigests(fd, hnow::transport::data::kChunkBytes);
  ::close(fd);
  REQUIRE(digests);
  CHECK(hnow::transport::data::digestReads() == before);
}

TEST_CASE("a new upload replaces the kept file, and a send reading the old one reads it to its end") {
  TempDir top;
  KeptFiles kept((top.path / "kept").string());
  const std::string key = "op\nlaptop:/data/a.bin";
  const FileStamp first{3, 1, 1, 1}, second{3, 1, 2, 1};
  const std::string old = keep(kept, top.path, key, first, "one");
  const std::string now = keep(kept, top.path, key, second, "two");
  CHECK(now != old);
  CHECK_FALSE(kept.holds(key, first));
  CHECK(kept.holds(key, second));
  CHECK(readWhole(old) == "one");  // the first send still reads it
  kept.release(old);
  CHECK_FALSE(fs::exists(old));  // no send reads it, no record names it: gone
  kept.release(now);
  CHECK(readWhole(now) == "two");
}

TEST_CASE("past the bound the least recently sent kept file goes, but never one a send reads") {
  TempDir top;
  const fs::path dir = top.path / "kept";
  KeptFiles kept(dir.string(), 2);
  const FileStamp stamp{1, 1, 1, 1};
  kept.release(keep(kept, top.path, "a", stamp, "a"));
  kept.release(keep(kept, top.path, "b", stamp, "b"));
  // "a" sent again: now "b" is the least recently used.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto reading = kept.use("a", stamp);
  REQUIRE(reading);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kept.release(keep(kept, top.path, "c", stamp, "c"));
  CHECK(kept.holds("a", stamp));
  CHECK_FALSE(kept.holds("b", stamp));
  CHECK(kept.holds("c", stamp));
  CHECK(keptCount(dir) == 2);
  // "a" is now the least recent, but a send reads it: kept past the bound.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kept.release(keep(kept, top.path, "d", stamp, "d"));
  CHECK(kept.holds("a", stamp));
  CHECK(readWhole(*reading) == "a");
  CHECK(keptCount(dir) == 3);
  // Once that send ended, the next upload brings them back to the bound.
  kept.release(*reading);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kept.release(keep(kept, top.path, "e", stamp, "e"));
  CHECK_FALSE(kept.holds("a", stamp));
  CHECK_FALSE(kept.holds("c", stamp));
  CHECK(kept.holds("d", stamp));
  CHECK(kept.holds("e", stamp));
  CHECK(keptCount(dir) == 2);
}
