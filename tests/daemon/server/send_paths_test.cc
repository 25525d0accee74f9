// What `hnow send` may read on hnowd's host (server/send_paths.h): a file or
// a directory inside [send] roots, reached without '..' or a symlink; every
// other path is refused with how to fix it.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "server/send_paths.h"

using namespace hnow::daemon;
namespace fs = std::filesystem;

namespace {

struct Scratch {
  fs::path top;
  std::vector<std::string> roots;
  Scratch() {
    char name[] = "/tmp/hnow-send-paths-XXXXXX";
    top = ::mkdtemp(name);
    fs::create_directories(top / "srv" / "course" / "lib");
    fs::create_directories(top / "elsewhere");
    std::ofstream(top / "srv" / "course" / "lib" / "a.txt") << "a";
    std::ofstream(top / "elsewhere" / "secret.txt") << "not for clients";
    roots = {(top / "srv").string()};
  }
  ~Scratch() { fs::remove_all(top); }
  std::string at(const std::string& rel) const { return (top / rel).string(); }
};

std::string refusal(const hnow::Result<SourcePin>& checked) { return checked ? "" : checked.error().message; }

}  // namespace

TEST_CASE("a file or a directory inside [send] roots may be sent, and a root itself") {
  Scratch s;
  CHECK(pinSendSource(s.roots, s.at("srv/course/lib/a.txt")));
  CHECK(pinSendSource(s.roots, s.at("srv/course")));
  CHECK(pinSendSource(s.roots, s.at("srv")));
}

TEST_CASE("a path outside [send] roots - absolute, through '..' or a symlink - is refused with how to fix it") {
  Scratch s;
  const std::string outside = refusal(pinSendSource(s.roots, s.at("elsewhere/secret.txt")));
  CHECK(outside.find("refused " + s.at("elsewhere/secret.txt") + ": ") == 0);
  CHECK(outside.find("outside hnowd's roots") != std::string::npos);
  CHECK(outside.find("add the directory to [send] roots in hnowd.toml") != std::string::npos);

  const std::string dots = refusal(pinSendSource(s.roots, s.at("srv/course/../../elsewhere/secret.txt")));
  CHECK(dots.find("'..' is not allowed") != std::string::npos);
  CHECK(dots.find("[send] roots") != std::string::npos);

  // A symlink inside a root, to the file outside or to a directory outside.
  fs::create_symlink(s.at("elsewhere/secret.txt"), s.top / "srv" / "link.txt");
  fs::create_symlink(s.at("elsewhere"), s.top / "srv" / "linkdir");
  const std::string link = refusal(pinSendSource(s.roots, s.at("srv/link.txt")));
  CHECK(link.find("is a symlink") != std::string::npos);
  const std::string linked = refusal(pinSendSource(s.roots, s.at("srv/linkdir/secret.txt")));
  CHECK_FALSE(linked.empty());
  CHECK(linked.find("[send] roots") != std::string::npos);
  CHECK_FALSE(pinSendSource(s.roots, s.at("srv/linkdir")));

  CHECK(refusal(pinSendSource(s.roots, "course/lib/a.txt")).find("not an absolute path") != std::string::npos);
}

TEST_CASE("without [send] roots nothing on hnowd's host is read, and a missing file says so plainly") {
  Scratch s;
  const std::string none = refusal(pinSendSource({}, s.at("srv/course/lib/a.txt")));
  CHECK(none.find("hnowd has no roots to read what it sends from") != std::string::npos);
  const std::string missing = refusal(pinSendSource(s.roots, s.at("srv/course/none.txt")));
  CHECK(missing.find("cannot read") == 0);
  CHECK(missing.find("[send] roots") == std::string::npos);
}

namespace {

std::string contentOf(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("a pinned path reads what was checked after a directory on the way is swapped for a symlink") {
  Scratch s;
  std::ofstream(s.top / "elsewhere" / "a.txt") << "root-only";
  fs::create_directories(s.top / "elsewhere" / "lib");
  std::ofstream(s.top / "elsewhere" / "lib" / "a.txt") << "root-only";
  auto file = pinSendSource(s.roots, s.at("srv/course/lib/a.txt"));
  auto dir = pinSendSource(s.roots, s.at("srv/course"));
  REQUIRE(file);
  REQUIRE(dir);
  CHECK_FALSE(file->directory);
  CHECK(dir->directory);
  // The operator's swap after the check: course/ moved aside, a symlink to elsewhere/ in its place.
  fs::rename(s.top / "srv" / "course", s.top / "srv" / "course.old");
  fs::create_symlink(s.top / "elsewhere", s.top / "srv" / "course");
  CHECK(contentOf(s.at("srv/course/lib/a.txt")) == "root-only");  // what reading by path now gets
  CHECK(contentOf(file->readPath) == "a");
  CHECK(contentOf(dir->readPath + "/lib/a.txt") == "a");
  struct stat pinned {}, checked {};
  REQUIRE(::stat(dir->readPath.c_str(), &pinned) == 0);
  REQUIRE(::stat(s.at("srv/course.old").c_str(), &checked) == 0);
  CHECK(pinned.st_ino == checked.st_ino);
  // A new check of the path refuses it now.
  CHECK(refusal(pinSendSource(s.roots, s.at("srv/course/lib/a.txt"))).find("symlink") != std::string::npos);
}

TEST_CASE("a pin's descriptor closes when the last copy of it goes") {
  Scratch s;
  std::string readPath;
  {
    auto pin = pinSendSource(s.roots, s.at("srv/course/lib/a.txt"));
    REQUIRE(pin);
    readPath = pin->readPath;
    SourcePin copy = *pin;
    pin = hnow::Error{"dropped"};
    CHECK(contentOf(copy.readPath) == "a");
  }
  struct stat info {};
  const bool open = ::lstat(readPath.c_str(), &info) == 0 &&
                    std::filesystem::read_symlink(readPath) == s.at("srv/course/lib/a.txt");
  CHECK_FALSE(open);
}

TEST_CASE("a fifo or a device inside [send] roots is refused without waiting for a writer") {
  Scratch s;
  REQUIRE(::mkfifo(s.at("srv/course/pipe").c_str(), 0600) == 0);
  CHECK(refusal(pinSendSource(s.roots, s.at("srv/course/pipe"))).find("not a regular file or a directory") !=
        std::string::npos);
}
