// What hnowd reads and what agents write, against an operator who plays
// with paths, on real hnowd and agents on 127.0.0.1 (docs/security-tests.md
// lists them): a directory swapped for a symlink while hnowd sends from it,
// setuid and setgid bits in what is sent.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "process/test_cluster.h"
#include "process/transfer_checks.h"

using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TempDir;
using hnow::testing::TestCluster;
using hnow::testing::writeRandomFile;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST_CASE("a directory inside [send] roots flipped to a symlink while sends run never delivers what it leads to") {
  if (::geteuid() != 0 || runCommand("unshare --mount true").status != 0) {
    MESSAGE("skipped: needs root and unshare (the operator who cannot read the private directory is a client in a "
            "mount namespace where it is hidden)");
    return;
  }
  TestCluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  // share/d is inside the lab's [send] roots; private/ outside, as a root-only directory would be.
  TempDir outside;
  const fs::path share = cluster.dir.path / "share", priv = outside.path / "private";
  const std::string mine = writeRandomFile(share / "d" / "data.bin", 64 << 10, 1);
  const std::string secret = writeRandomFile(priv / "data.bin", 64 << 10, 2);
  fs::create_symlink(priv, share / "flip");
  // The operator's loop: d and the symlink swap places, atomically, over and over.
  std::atomic<bool> stop{false};
  std::thread flipper([&] {
    while (!stop) {
      ::renameat2(AT_FDCWD, (share / "d").c_str(), AT_FDCWD, (share / "flip").c_str(), RENAME_EXCHANGE);
      std::this_thread::sleep_for(200us);
    }
  });
  // The client cannot read private/: over it, in its own mount namespace, an empty tmpfs.
  const std::string send = "unshare --mount sh -c 'mount -t tmpfs none " + priv.string() + " && " +
                           cluster.hnow("send " + (share / "d" / "data.bin").string() + " --dest in/data.bin --force") +
                           "'";
  int delivered = 0, refused = 0, leaked = 0;
  std::string why;  // the first refusal, for the log
  for (int i = 0; i < 25; ++i) {
    auto r = runCommand(send);
    if (r.status != 0) {
      ++refused;
      if (why.empty()) why = r.err;
      continue;
    }
    ++delivered;
    for (int a = 1; a <= 2; ++a) leaked += readWhole(cluster.root(a) / "in" / "data.bin") == secret;
  }
  stop = true;
  flipper.join();
  MESSAGE(delivered << " sends delivered, " << refused << " refused: " << why);
  CHECK(leaked == 0);
  CHECK(delivered + refused == 25);
  for (int a = 1; a <= 2; ++a) {
    const std::string held = readWhole(cluster.root(a) / "in" / "data.bin");
    CHECK((held.empty() || held == mine));
  }
}

TEST_CASE("a setuid copy of /usr/bin/id sent in a tree or alone lands on every agent without the bit, logged by the agent") {
  TestCluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path tree = cluster.dir.path / "tools";
  fs::create_directories(tree / "shared");
  fs::copy_file("/usr/bin/id", tree / "id");
  fs::copy_file("/usr/bin/id", cluster.dir.path / "id-alone");
  ::chmod((tree / "id").c_str(), 04755);
  ::chmod((tree / "shared").c_str(), 02775);
  ::chmod((cluster.dir.path / "id-alone").c_str(), 06755);
  auto sent = runCommand(cluster.hnow("send " + tree.string() + " --dest tools"));
  REQUIRE_MESSAGE(sent.status == 0, sent.err);
  auto alone = runCommand(cluster.hnow("send " + (cluster.dir.path / "id-alone").string() + " --dest id-alone"));
  REQUIRE_MESSAGE(alone.status == 0, alone.err);
  for (int a = 1; a <= 2; ++a) {
    const std::string agent = "agent-" + std::to_string(a);
    CAPTURE(agent);
    struct stat id {}, shared {}, single {};
    REQUIRE(::stat((cluster.root(a) / "tools" / "id").c_str(), &id) == 0);
    REQUIRE(::stat((cluster.root(a) / "tools" / "shared").c_str(), &shared) == 0);
    REQUIRE(::stat((cluster.root(a) / "id-alone").c_str(), &single) == 0);
    CHECK((id.st_mode & 07777) == 0755);
    CHECK((shared.st_mode & 07777) == 0775);
    CHECK((single.st_mode & (S_ISUID | S_ISGID | S_ISVTX)) == 0);
    CHECK(readWhole(cluster.root(a) / "tools" / "id") == readWhole("/usr/bin/id"));
    CHECK(cluster.logHas(agent, "2 entries came setuid, setgid or (a file) sticky and were written without those bits"));
  }
}
