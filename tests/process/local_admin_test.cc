// hnowd's local administrator (admin_key_file), as the packages set it up:
// hnowd makes the key on its first start, and a client config that names
// it and hnowd.pub (coordinator_key_file) uses hnow at once, before any
// [[operators]] are written; a reload keeps it; a configured operator of
// the same name is refused at start.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>

#include <fstream>

#include "process/child_process.h"
#include "process/test_cluster.h"

using namespace hnow::testing;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

struct LoneHnowd {
  TempDir dir;
  fs::path data = dir.path / "state";
  std::unique_ptr<ChildProcess> hnowd;

  explicit LoneHnowd(const std::string& extra = "") {
    fs::create_directories(data);
    write(dir.path / "hnowd.toml", "listen = \"127.0.0.1:0\"\ndata_dir = \"state\"\nadmin_key_file = \"state/admin.key\"\n" +
                                       extra);
    hnowd = std::make_unique<ChildProcess>(
        std::vector<std::string>{HNOWD_BINARY, "--config", (dir.path / "hnowd.toml").string()},
        std::vector<std::string>{}, (dir.path / "hnowd.log").string());
  }
  bool started() const {
    return eventually([&] { return fs::exists(data / "hnowd.address") && fs::exists(data / "hnowd.pub"); }, 10s);
  }
  std::string log() const { return readWhole(dir.path / "hnowd.log"); }
  // The client config the packages install, pointed at this hnowd.
  fs::path client() const {
    std::string address = readWhole(data / "hnowd.address");
    while (!address.empty() && address.back() == '\n') address.pop_back();
    const fs::path path = dir.path / "client.toml";
    write(path, "coordinator = \"" + address + "\"\noperator = \"local-admin\"\nkey_file = \"state/admin.key\"\n"
                "coordinator_key_file = \"state/hnowd.pub\"\n");
    return path;
  }
  ProcessResult hnow(const std::string& args) const {
    return runCommand(kHnowBinary + " --config " + client().string() + " " + args);
  }
};

}  // namespace

TEST_CASE("hnowd makes the local administrator's key on its first start, and a client config naming it uses hnow at once") {
  LoneHnowd lab;
  REQUIRE_MESSAGE(lab.started(), lab.log());
  struct stat info {};
  REQUIRE(::stat((lab.data / "admin.key").c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
  auto status = lab.hnow("status");
  CHECK_MESSAGE(status.status == 0, status.err);
  CHECK(lab.log().find("operator local-admin is whoever can read") != std::string::npos);
  CHECK(lab.log().find("no [[operators]]") == std::string::npos);  // it is one
  // Full rights: an enrollment token, which a read-only operator is refused.
  auto token = lab.hnow("agent token");
  CHECK_MESSAGE(token.status == 0, token.err);
  // The same key on the next start, not a fresh one.
  const std::string key = readWhole(lab.data / "admin.key");
  lab.hnowd->signal(SIGTERM);
  REQUIRE(lab.hnowd->waitExit(10000ms) == 0);
  fs::remove(lab.data / "hnowd.address");
  lab.hnowd = std::make_unique<ChildProcess>(
      std::vector<std::string>{HNOWD_BINARY, "--config", (lab.dir.path / "hnowd.toml").string()},
      std::vector<std::string>{}, (lab.dir.path / "hnowd.log").string());
  REQUIRE_MESSAGE(lab.started(), lab.log());
  CHECK(readWhole(lab.data / "admin.key") == key);
  CHECK(lab.hnow("status").status == 0);
}

TEST_CASE("a reload keeps the local administrator beside the operators it reads, and refuses one of its name") {
  LoneHnowd lab;
  REQUIRE_MESSAGE(lab.started(), lab.log());
  auto made = runCommand(kHnowBinary + " key new " + (lab.dir.path / "ana.key").string());
  REQUIRE(made.status == 0);
  std::string ana = made.out;
  while (!ana.empty() && ana.back() == '\n') ana.pop_back();
  std::ofstream(lab.dir.path / "hnowd.toml", std::ios::app)
      << "\n[[operators]]\nname = \"ana\"\nkey = \"" << ana << "\"\nrights = \"read\"\n";
  lab.hnowd->signal(SIGHUP);
  REQUIRE_MESSAGE(eventually([&] { return lab.log().find("operators: 2 (1 read-only)") != std::string::npos; }, 5s),
                  lab.log());
  CHECK(lab.hnow("status").status == 0);
  std::ofstream(lab.dir.path / "hnowd.toml", std::ios::app)
      << "\n[[operators]]\nname = \"local-admin\"\nkey = \"" << ana << "\"\nrights = \"full\"\n";
  lab.hnowd->signal(SIGHUP);
  REQUIRE_MESSAGE(eventually([&] { return lab.log().find("is hnowd's own for admin_key_file") != std::string::npos; }, 5s),
                  lab.log());
  CHECK(lab.hnow("status").status == 0);  // nothing changed
}

TEST_CASE("hnowd refuses to start with an operator named as its local administrator, saying what to rename") {
  const std::string key = "ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  LoneHnowd lab("\n[[operators]]\nname = \"local-admin\"\nkey = \"" + key + "\"\nrights = \"full\"\n");
  CHECK(lab.hnowd->waitExit(10000ms) == 2);
  CHECK_MESSAGE(lab.log().find("the operator local-admin is hnowd's own for admin_key_file: give yours another name") !=
                    std::string::npos,
                lab.log());
}
