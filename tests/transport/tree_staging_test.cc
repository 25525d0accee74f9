// A tree's staging filled as its bundle lands (transport/data/tree_staging.h):
// a file is written once every byte of it has landed and not before, in
// whatever order stripes land; what finish() publishes is the tree; and a
// staging dropped or refused leaves nothing beside the destination.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "transport/data/tree_staging.h"
#include "transport/tree_fixture.h"

using namespace hnow::transport::data;
using namespace hnow::testing;

namespace {

// Eight files of a few sizes, in two directories, and a symlink.
void makeTree(const std::string& top) {
  ::mkdir(top.c_str(), 0755);
  ::mkdir((top + "/a").c_str(), 0750);
  ::mkdir((top + "/a/b").c_str(), 0755);
  for (int k = 0; k < 8; ++k) {
    std::string bytes(static_cast<std::size_t>(k * k * 9000 + 1), '\0');
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 31 + static_cast<std::size_t>(k)) >> 3);
    const std::string dir = k % 3 == 0 ? "" : k % 3 == 1 ? "/a" : "/a/b";
    writeFile(top + dir + "/f" + std::to_string(k), bytes, 0600 + k);
    setMtime(top + dir + "/f" + std::to_string(k), 1'600'000'000 + k, k);
  }
  ::symlink("a/b/f2", (top + "/link").c_str());
}

// The bundle as it lands in a file of its own, one span at a time.
struct Landing {
  std::string bytes;
  int fd;
  std::vector<LandedSpan> spans;
  Landing(std::string bundle, const std::string& path)
      : bytes(std::move(bundle)), fd(::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) {}
  ~Landing() { ::close(fd); }
  void land(std::uint64_t offset, std::uint64_t length) {
    REQUIRE(::pwrite(fd, bytes.data() + offset, length, static_cast<off_t>(offset)) == static_cast<ssize_t>(length));
    spans.push_back({offset, length});
  }
};

// The files of the bundle (by its index) whose bytes all lie inside one of `spans`.
std::uint64_t filesInside(const std::vector<TreeEntry>& entries, const std::vector<LandedSpan>& spans) {
  std::uint64_t n = 0;
  for (const TreeEntry& e : entries) {
    if (e.kind != TreeEntryKind::kFile) continue;
    for (const LandedSpan& s : spans)
      if (e.offset >= s.offset && e.offset + e.size <= s.offset + s.length) {
        ++n;
        break;
      }
  }
  return n;
}

std::unique_ptr<TreeStaging> openStaging(int parentFd, const std::string& parent, std::uint64_t size, bool atomic) {
  auto staging = TreeStaging::open(parentFd, "dest", parent, size, atomic);
  REQUIRE_MESSAGE(staging.ok(), messageOf(staging));
  return std::move(staging).value();
}

}  // namespace

TEST_CASE("a staging writes nothing before the index has landed, then each file once all its bytes have, and publishes the tree") {
  for (const bool atomic : {true, false}) {
    CAPTURE(atomic);
    Scratch s;
    makeTree(s / "tree");
    Packed packed(s / "tree", s / "bundle");
    REQUIRE_MESSAGE(packed.tree.ok(), messageOf(packed.tree));
    auto index = readTreeIndex(packed.fd);
    REQUIRE(index.ok());
    ::mkdir((s / "out").c_str(), 0755);
    const int parentFd = ::open((s / "out").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    Landing landing(readAll(packed.fd), s / "landing");
    auto staging = openStaging(parentFd, s / "out", landing.bytes.size(), atomic);
    CHECK(hasStaging(s / "out"));
    // In order, as a whole file's bytes land: the header alone, the index less a byte, then pieces.
    landing.land(0, kTreeHeaderBytes);
    REQUIRE(staging->advance(landing.fd, landing.spans).ok());
    landing.land(kTreeHeaderBytes, index->dataStart - kTreeHeaderBytes - 1);
    REQUIRE(staging->advance(landing.fd, landing.spans).ok());
    CHECK(staging->filesWritten() == 0);
    std::uint64_t at = index->dataStart - 1;
    for (std::uint64_t piece = 1000; at < landing.bytes.size(); piece *= 3) {
      const std::uint64_t take = std::min<std::uint64_t>(piece, landing.bytes.size() - at);
      landing.land(at, take);
      at += take;
      REQUIRE(staging->advance(landing.fd, landing.spans).ok());
      CHECK(staging->filesWritten() == filesInside(index->entries, {{0, at}}));
      CHECK_FALSE(exists(s / "out/dest"));  // nothing published before finish
    }
    CHECK(staging->filesWritten() == 8);
    auto published = staging->finish(landing.fd, false);
    REQUIRE_MESSAGE(published.ok(), messageOf(published));
    CHECK(published->files == 8);
    staging.reset();
    CHECK(readFile(s / "out/dest/a/b/f5") == readFile(s / "tree/a/b/f5"));
    CHECK(mtimeNsOf(s / "out/dest/a/f7") == mtimeNsOf(s / "tree/a/f7"));
    CHECK((lstatOf(s / "out/dest/f6").st_mode & 07777) == 0606);
    CHECK((lstatOf(s / "out/dest/a").st_mode & 07777) == 0750);
    CHECK(namesIn(s / "out") == std::set<std::string>{"dest"});
    ::close(parentFd);
  }
}

TEST_CASE("stripes landing out of order write the files inside each landed part, and the index waits for the first") {
  Scratch s;
  makeTree(s / "tree");
  Packed packed(s / "tree", s / "bundle");
  REQUIRE(packed.tree.ok());
  auto index = readTreeIndex(packed.fd);
  REQUIRE(index.ok());
  ::mkdir((s / "out").c_str(), 0755);
  const int parentFd = ::open((s / "out").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  Landing landing(readAll(packed.fd), s / "landing");
  const std::uint64_t size = landing.bytes.size(), quarter = size / 4;
  auto staging = openStaging(parentFd, s / "out", size, false);
  // Stripe 3 whole, then stripe 1 whole: no index yet, so nothing.
  landing.land(3 * quarter, size - 3 * quarter);
  landing.land(quarter, quarter);
  REQUIRE(staging->advance(landing.fd, landing.spans).ok());
  CHECK(staging->filesWritten() == 0);
  // Stripe 0: the index, and the files inside stripes 0, 1 and 3.
  landing.land(0, quarter);
  REQUIRE(staging->advance(landing.fd, landing.spans).ok());
  const std::uint64_t early = filesInside(index->entries, {{0, 2 * quarter}, {3 * quarter, size - 3 * quarter}});
  CHECK(staging->filesWritten() == early);
  CHECK(early < 8);  // the tree has files across the gap, so the check above means something
  // Half of stripe 2 lands: the files it closes, not more.
  landing.land(2 * quarter, quarter / 2);
  REQUIRE(staging->advance(landing.fd, landing.spans).ok());
  CHECK(staging->filesWritten() == filesInside(index->entries, {{0, 2 * quarter + quarter / 2}, {3 * quarter, size}}));
  landing.land(2 * quarter + quarter / 2, quarter - quarter / 2);
  auto published = staging->finish(landing.fd, false);
  REQUIRE_MESSAGE(published.ok(), messageOf(published));
  CHECK(published->files == 8);
  for (const char* f : {"f0", "f3", "f6", "a/f1", "a/f4", "a/f7", "a/b/f2", "a/b/f5"})
    CHECK(readFile(s / "out/dest/" + f) == readFile(s / "tree/" + f));
  staging.reset();
  CHECK(namesIn(s / "out") == std::set<std::string>{"dest"});
  ::close(parentFd);
}

TEST_CASE("a staging dropped before finish, or whose bundle's index changed since it landed, leaves nothing beside the destination") {
  Scratch s;
  makeTree(s / "tree");
  Packed packed(s / "tree", s / "bundle");
  REQUIRE(packed.tree.ok());
  ::mkdir((s / "out").c_str(), 0755);
  const int parentFd = ::open((s / "out").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  {
    Landing landing(readAll(packed.fd), s / "landing");
    auto staging = openStaging(parentFd, s / "out", landing.bytes.size(), true);
    landing.land(0, landing.bytes.size() / 2);
    REQUIRE(staging->advance(landing.fd, landing.spans).ok());
    CHECK(staging->filesWritten() > 0);
  }  // a transfer that failed: the staging goes with it
  CHECK(namesIn(s / "out").empty());
  // Another bundle at finish, of the same size and layout, whose index
  // gives a file another mode: refused, since what was written as the
  // first landed followed another index.
  auto bundleWithMode = [](std::uint32_t mode) {
    std::vector<TreeEntry> entries(1);
    entries[0].path = "f", entries[0].mode = mode, entries[0].size = 4, entries[0].offset = 1000;
    return handMadeBundle(entries, 1000, "data");
  };
  Landing landing(bundleWithMode(0644), s / "landing");
  Landing other(bundleWithMode(0600), s / "other");
  other.land(0, other.bytes.size());
  auto staging = openStaging(parentFd, s / "out", landing.bytes.size(), false);
  landing.land(0, landing.bytes.size());
  REQUIRE(staging->advance(landing.fd, landing.spans).ok());
  CHECK(staging->filesWritten() == 1);
  auto finished = staging->finish(other.fd, false);
  REQUIRE_FALSE(finished.ok());
  CHECK_MESSAGE(finished.error().message.find("its index differs from the one read as the bundle landed") !=
                    std::string::npos,
                messageOf(finished));
  staging.reset();
  CHECK(namesIn(s / "out").empty());
  ::close(parentFd);
}

TEST_CASE("an entry that cannot be written as the bundle lands fails the staging once, and finish says which") {
  // A 4096-byte symlink target passes the index's checks but not symlinkat (PATH_MAX counts the NUL).
  std::vector<TreeEntry> entries(2);
  entries[0].kind = TreeEntryKind::kFile, entries[0].path = "f", entries[0].mode = 0644, entries[0].size = 4;
  entries[1].kind = TreeEntryKind::kSymlink, entries[1].path = "l", entries[1].target = std::string(4096, 'a');
  constexpr std::uint64_t kDataStart = 1000;
  entries[0].offset = kDataStart;
  const std::string bundle = handMadeBundle(entries, kDataStart, "data");
  Scratch s;
  const int parentFd = ::open(s.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  Landing landing(bundle, s / "landing");
  auto staging = openStaging(parentFd, s.path, bundle.size(), false);
  landing.land(0, kDataStart);
  auto advanced = staging->advance(landing.fd, landing.spans);
  REQUIRE_FALSE(advanced.ok());
  CHECK(staging->failed());
  CHECK_MESSAGE(advanced.error().message.find("cannot write \"l\": File name too long") != std::string::npos,
                messageOf(advanced));
  landing.land(kDataStart, 4);
  CHECK_FALSE(staging->advance(landing.fd, landing.spans).ok());
  CHECK(staging->filesWritten() == 0);  // nothing more after the failure
  auto finished = staging->finish(landing.fd, false);
  REQUIRE_FALSE(finished.ok());
  CHECK(finished.error().message == advanced.error().message);
  staging.reset();
  CHECK(namesIn(s.path) == std::set<std::string>{"landing"});
  ::close(parentFd);
}

TEST_CASE("the bytes landed from the bundle's start count only up to the first gap") {
  CHECK(landedFromStart({}) == 0);
  CHECK(landedFromStart({{10, 5}}) == 0);
  CHECK(landedFromStart({{5, 5}, {0, 5}, {20, 3}}) == 10);
  CHECK(landedFromStart({{0, 8}, {4, 10}, {14, 1}}) == 15);
  CHECK(landedFromStart({{0, 0}, {1, 4}}) == 0);
}
