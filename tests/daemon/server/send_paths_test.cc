// What `hnow send` may read on hnowd's host (server/send_paths.h): a file or
// a directory inside [send] roots, reached without '..' or a symlink; every
// other path is refused with how to fix it.
#include <doctest/doctest.h>

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

std::string refusal(const hnow::Result<void>& checked) { return checked ? "" : checked.error().message; }

}  // namespace

TEST_CASE("a file or a directory inside [send] roots may be sent, and a root itself") {
  Scratch s;
  CHECK(checkSendSource(s.roots, s.at("srv/course/lib/a.txt")));
  CHECK(checkSendSource(s.roots, s.at("srv/course")));
  CHECK(checkSendSource(s.roots, s.at("srv")));
}

TEST_CASE("a path outside [send] roots - absolute, through '..' or a symlink - is refused with how to fix it") {
  Scratch s;
  const std::string outside = refusal(checkSendSource(s.roots, s.at("elsewhere/secret.txt")));
  CHECK(outside.find("refused " + s.at("elsewhere/secret.txt") + ": ") == 0);
  CHECK(outside.find("outside hnowd's roots") != std::string::npos);
  CHECK(outside.find("add the directory to [send] roots in hnowd.toml") != std::string::npos);

  const std::string dots = refusal(checkSendSource(s.roots, s.at("srv/course/../../elsewhere/secret.txt")));
  CHECK(dots.find("'..' is not allowed") != std::string::npos);
  CHECK(dots.find("[send] roots") != std::string::npos);

  // A symlink inside a root, to the file outside or to a directory outside.
  fs::create_symlink(s.at("elsewhere/secret.txt"), s.top / "srv" / "link.txt");
  fs::create_symlink(s.at("elsewhere"), s.top / "srv" / "linkdir");
  const std::string link = refusal(checkSendSource(s.roots, s.at("srv/link.txt")));
  CHECK(link.find("is a symlink") != std::string::npos);
  const std::string linked = refusal(checkSendSource(s.roots, s.at("srv/linkdir/secret.txt")));
  CHECK_FALSE(linked.empty());
  CHECK(linked.find("[send] roots") != std::string::npos);
  CHECK_FALSE(checkSendSource(s.roots, s.at("srv/linkdir")));

  CHECK(refusal(checkSendSource(s.roots, "course/lib/a.txt")).find("not an absolute path") != std::string::npos);
}

TEST_CASE("without [send] roots nothing on hnowd's host is read, and a missing file says so plainly") {
  Scratch s;
  const std::string none = refusal(checkSendSource({}, s.at("srv/course/lib/a.txt")));
  CHECK(none.find("hnowd has no roots to read what it sends from") != std::string::npos);
  const std::string missing = refusal(checkSendSource(s.roots, s.at("srv/course/none.txt")));
  CHECK(missing.find("cannot read") == 0);
  CHECK(missing.find("[send] roots") == std::string::npos);
}
