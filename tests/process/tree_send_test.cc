// `hnow send DIR` on a local cluster: real hnowd and agents on 127.0.0.1.
// Every agent ends with the same tree (bytes, modes, mtimes, empty
// directories, symlinks inside it), the report says what was left out and
// what each agent published, and nothing of the staging stays behind.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <nlohmann/json.hpp>

#include "process/test_cluster.h"
#include "process/transfer_checks.h"

using hnow::testing::partFiles;
using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TestCluster;
using hnow::testing::writeRandomFile;
using hnow::testing::writeTextFile;
namespace fs = std::filesystem;

namespace {

// One entry of a tree as a comparison sees it.
struct Seen {
  char kind = '?';  // d, f, l
  mode_t mode = 0;
  std::int64_t mtimeNs = 0;
  std::string content;  // a file's bytes, a link's target
  bool operator==(const Seen& o) const {
    return kind == o.kind && mode == o.mode && mtimeNs == o.mtimeNs && content == o.content;
  }
};

// Every entry under `top`, by path relative to it (directories' mtimes
// too; a symlink's own mode is not compared: Linux gives them all 0777).
std::map<std::string, Seen> treeOf(const fs::path& top) {
  std::map<std::string, Seen> out;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(top, error); !error && it != fs::recursive_directory_iterator();
       it.increment(error)) {
    struct stat info {};
    REQUIRE(::lstat(it->path().c_str(), &info) == 0);
    Seen s;
    s.mtimeNs = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
    if (S_ISLNK(info.st_mode)) {
      s.kind = 'l';
      s.content = fs::read_symlink(it->path()).string();
      s.mtimeNs = 0;
    } else {
      s.kind = S_ISDIR(info.st_mode) ? 'd' : 'f';
      s.mode = info.st_mode & 07777;
      if (s.kind == 'f') s.content = readWhole(it->path());
    }
    out[it->path().lexically_relative(top).string()] = s;
  }
  return out;
}

// The paths whose entries differ between two trees, "" when none do.
std::string differences(const std::map<std::string, Seen>& got, const std::map<std::string, Seen>& want) {
  std::string out;
  for (const auto& [path, seen] : want) {
    auto it = got.find(path);
    if (it == got.end()) out += path + ": missing\n";
    else if (!(it->second == seen))
      out += path + ": " + it->second.kind + " mode " + std::to_string(it->second.mode) + " mtime " +
             std::to_string(it->second.mtimeNs) + ", want " + seen.kind + " mode " + std::to_string(seen.mode) +
             " mtime " + std::to_string(seen.mtimeNs) + "\n";
  }
  for (const auto& [path, seen] : got)
    if (!want.count(path)) out += path + ": not in the tree sent\n";
  return out;
}

void setMtime(const fs::path& path, std::int64_t seconds, long nanos) {
  struct timespec times[2] = {{seconds, nanos}, {seconds, nanos}};
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0);
}

// A course's tree in small: nested directories, an empty one, many small
// files, one of several chunks, modes, a newline and invalid UTF-8 in
// names, a symlink inside the tree and one leading out of it.
fs::path makeCourseTree(const fs::path& at) {
  const fs::path top = at / "course";
  fs::create_directories(top / "lib" / "deep" / "er");
  fs::create_directories(top / "empty");
  for (int i = 0; i < 300; ++i) std::ofstream(top / "lib" / ("small-" + std::to_string(i) + ".txt")) << "file " << i;
  writeRandomFile(top / "lib" / "deep" / "er" / "big.bin", 3 << 20);
  std::ofstream(top / "run.sh") << "#!/bin/sh\necho hi\n";
  fs::permissions(top / "run.sh", fs::perms(0750));
  std::ofstream(top / "secret.txt") << "only the owner";
  fs::permissions(top / "secret.txt", fs::perms(0600));
  std::ofstream(top / "two\nlines") << "a name with a newline";
  std::ofstream(top / "bad\xff.txt") << "a name that is not UTF-8";
  fs::create_symlink("lib/deep/er/big.bin", top / "latest");
  fs::create_symlink("/etc/passwd", top / "outside");
  setMtime(top / "lib" / "small-7.txt", 1600000000, 123456789);
  setMtime(top / "lib" / "deep", 1500000000, 5);
  return top;
}

}  // namespace

TEST_CASE("a directory sent to every agent arrives as the same tree, and a symlink leading out of it is left out and said") {
  TestCluster cluster("--agents 3 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path top = makeCourseTree(cluster.dir.path);

  for (const std::string algo : {"tree", "striped"}) {
    CAPTURE(algo);
    const std::string name = "c-" + algo;
    auto r = runCommand(cluster.hnow("send " + top.string() + " --dest courses/" + name + " --json --algo " + algo));
    REQUIRE_MESSAGE(r.status == 0, (r.err + r.out));
    auto report = nlohmann::json::parse(r.out);
    CHECK(report["failed"].empty());
    CHECK(report["tree"]["files"] == 305);
    CHECK(report["tree"]["refused_count"] == 1);
    REQUIRE(report["tree"]["refused"].size() == 1);
    CHECK(report["tree"]["refused"][0]["path"] == "outside");
    CHECK(report["tree"]["refused"][0]["why"].get<std::string>().find("outside the tree") != std::string::npos);
    auto expected = treeOf(top);
    expected.erase("outside");
    REQUIRE(report["copies"].size() == 3);
    for (const auto& copy : report["copies"]) {
      const fs::path dest = copy["path"].get<std::string>();
      CHECK(dest.filename() == name);
      CHECK(copy["tree"]["files"] == 305);
      CHECK(copy["tree"]["held"] == 0);
      CHECK(copy["tree"]["failed_count"] == 0);
      CHECK(differences(treeOf(dest), expected) == "");
      CHECK(partFiles(dest.parent_path()) == 0);  // no bundle, no staging directory left
    }
    // Gone before the next algorithm's send: an agent would copy the files it holds under its root.
    for (int a = 1; a <= 3; ++a) fs::remove_all(cluster.root(a) / "courses");
  }
  // hnowd's bundles go with their sends.
  std::size_t bundles = 0;
  std::error_code error;
  for (const auto& e : fs::recursive_directory_iterator(cluster.dir.path / "hnowd", error))
    bundles += e.path().extension() == ".bundle";
  CHECK(bundles == 0);
}

TEST_CASE("a tree sent with --compress zstd arrives as the same tree on every agent, its bundle compressed at hnowd and expanded at each") {
  TestCluster cluster("--agents 3 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path top = makeCourseTree(cluster.dir.path);
  writeTextFile(top / "logs" / "build.log", 3 << 20);
  auto r = runCommand(cluster.hnow("send " + top.string() + " --dest courses/z --json --compress zstd"));
  REQUIRE_MESSAGE(r.status == 0, (r.err + r.out));
  auto report = nlohmann::json::parse(r.out);
  CHECK(report["failed"].empty());
  CHECK(report["compression"]["algo"] == "zstd");
  const auto plain = report["compression"]["plain_bytes"].get<std::uint64_t>();
  CHECK(plain > (6u << 20));  // the bundle: 3 MiB of random bytes, 3 MiB of text, the rest
  CHECK(report["compression"]["sent_bytes"].get<std::uint64_t>() < plain * 3 / 4);
  CHECK(report["size"] == report["compression"]["sent_bytes"]);
  auto expected = treeOf(top);
  expected.erase("outside");
  REQUIRE(report["copies"].size() == 3);
  for (const auto& copy : report["copies"]) {
    const fs::path dest = copy["path"].get<std::string>();
    CHECK(copy["tree"]["files"] == 306);
    CHECK(differences(treeOf(dest), expected) == "");
    CHECK(partFiles(dest.parent_path()) == 0);  // neither the compressed nor the expanded bundle is left
  }
  std::size_t scratch = 0;
  std::error_code error;
  for (const auto& e : fs::recursive_directory_iterator(cluster.dir.path / "hnowd", error))
    scratch += e.path().extension() == ".bundle" || e.path().extension() == ".zst";
  CHECK(scratch == 0);
}

TEST_CASE("a tree sent again moves only the files that changed, keeps what it does not name, and --delete removes that") {
  TestCluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path top = cluster.dir.path / "site";
  fs::create_directories(top / "a");
  std::ofstream(top / "a" / "index.html") << "version 1";
  writeRandomFile(top / "a" / "video.bin", 2 << 20);
  auto first = runCommand(cluster.hnow("send " + top.string() + " --dest www --json"));
  REQUIRE_MESSAGE(first.status == 0, (first.err + first.out));
  const fs::path dest = nlohmann::json::parse(first.out)["copies"][0]["path"].get<std::string>();
  std::ofstream(dest / "local-notes.txt") << "written on the agent";

  // The same tree again: nothing to carry, every file held.
  auto same = runCommand(cluster.hnow("send " + top.string() + " --dest www --json"));
  REQUIRE_MESSAGE(same.status == 0, (same.err + same.out));
  auto unchanged = nlohmann::json::parse(same.out);
  CHECK(unchanged["tree"]["sent_files"] == 0);
  CHECK(unchanged["size"].get<std::uint64_t>() < 4096);  // the index alone
  for (const auto& copy : unchanged["copies"]) {
    CHECK(copy["tree"]["held"] == 2);
    CHECK(copy["tree"]["files"] == 0);
  }
  // Asking the two agents took a few compressed bytes each.
  const auto asked = unchanged["tree"]["query_bytes"].get<std::uint64_t>();
  CHECK(asked > 0);
  CHECK(asked < 1024);

  // The same bytes with another mtime on one agent: asked again with the
  // digest, held, and its mtime set back to the source's.
  const auto videoMtime = fs::last_write_time(dest / "a" / "video.bin");
  fs::last_write_time(dest / "a" / "video.bin", videoMtime - std::chrono::hours(1));
  auto touched = runCommand(cluster.hnow("send " + top.string() + " --dest www --json"));
  REQUIRE_MESSAGE(touched.status == 0, (touched.err + touched.out));
  auto byDigest = nlohmann::json::parse(touched.out);
  CHECK(byDigest["tree"]["sent_files"] == 0);
  CHECK(byDigest["tree"]["query_bytes"].get<std::uint64_t>() > asked);  // the second round
  for (const auto& copy : byDigest["copies"]) CHECK(copy["tree"]["held"] == 2);
  CHECK(fs::last_write_time(dest / "a" / "video.bin") == videoMtime);

  std::ofstream(top / "a" / "index.html") << "version 2";
  auto second = runCommand(cluster.hnow("send " + top.string() + " --dest www --json"));
  REQUIRE_MESSAGE(second.status == 0, (second.err + second.out));
  auto report = nlohmann::json::parse(second.out);
  CHECK(report["tree"]["sent_files"] == 1);
  CHECK(report["size"].get<std::uint64_t>() < 8192);  // the changed file, not the 2 MiB one
  CHECK(report["copies"][0]["tree"]["files"] == 1);
  CHECK(report["copies"][0]["tree"]["replaced"] == 1);
  CHECK(report["copies"][0]["tree"]["held"] == 1);
  CHECK(readWhole(dest / "a" / "index.html") == "version 2");
  CHECK(fs::exists(dest / "local-notes.txt"));  // not named by the tree: left alone

  auto pruned = runCommand(cluster.hnow("send " + top.string() + " --dest www --delete --json"));
  REQUIRE_MESSAGE(pruned.status == 0, (pruned.err + pruned.out));
  CHECK(nlohmann::json::parse(pruned.out)["copies"][0]["tree"]["deleted"] == 1);
  CHECK_FALSE(fs::exists(dest / "local-notes.txt"));
  CHECK(readWhole(dest / "a" / "index.html") == "version 2");
  std::ofstream(dest / "local-notes.txt") << "written on the agent";

  std::ofstream(top / "a" / "index.html") << "version 3";
  auto atomic = runCommand(cluster.hnow("send " + top.string() + " --dest www --atomic --json"));
  REQUIRE_MESSAGE(atomic.status == 0, (atomic.err + atomic.out));
  CHECK(nlohmann::json::parse(atomic.out)["tree"]["atomic"] == true);
  CHECK(readWhole(dest / "a" / "index.html") == "version 3");
  CHECK_FALSE(fs::exists(dest / "local-notes.txt"));  // the old tree went whole
  CHECK(partFiles(dest.parent_path()) == 0);
}

TEST_CASE("a tree whose destination is a file on an agent is refused before a byte moves, and --atomic of a file is refused too") {
  TestCluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path top = cluster.dir.path / "t";
  fs::create_directories(top);
  std::ofstream(top / "f") << "x";
  const fs::path root = cluster.dir.path / "agents" / "agent-1" / "files";
  fs::create_directories(root);
  std::ofstream(root / "taken") << "a file, not a directory";

  auto r = runCommand(cluster.hnow("send " + top.string() + " --dest taken"));
  CHECK(r.status == 1);
  CHECK(r.err.find("is not a directory") != std::string::npos);
  CHECK(readWhole(root / "taken") == "a file, not a directory");

  auto file = runCommand(cluster.hnow("send " + (top / "f").string() + " --dest g --atomic"));
  CHECK(file.status == 1);
  CHECK(file.err.find("--atomic") != std::string::npos);
}

TEST_CASE("an agent writes a tree's files into its staging while the bundle is still landing, and publishes them once it matched") {
  // 12 MiB over 40 Mbit/s links: some 2.5 s of landing to watch.
  TestCluster cluster("--agents 2 --uplink-mbps 40 --downlink-mbps 40 --source-uplink-mbps 40");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path top = cluster.dir.path / "slow-tree";
  constexpr std::uintmax_t kFileBytes = 256 << 10, kFiles = 48;
  for (std::uintmax_t i = 0; i < kFiles; ++i)
    writeRandomFile(top / ("d" + std::to_string(i % 4)) / ("f" + std::to_string(i)), kFileBytes);
  const fs::path parent = cluster.dir.path / "agents" / "agent-1" / "files" / "courses";
  // Watched from a second thread while the send runs: a staging that
  // holds a file while the bundle's temp file is not yet whole.
  std::atomic<bool> sending{true}, seen{false};
  std::thread watcher([&] {
    while (sending && !seen) {
      std::uintmax_t staged = 0, partial = 0;
      std::error_code error;
      for (const auto& e : fs::directory_iterator(parent, error)) {
        const std::string name = e.path().filename().string();
        if (name.find(".hnow-stage-") != std::string::npos) {
          for (auto it = fs::recursive_directory_iterator(e.path(), error); !error && it != fs::recursive_directory_iterator();
               it.increment(error))
            staged += it->is_regular_file(error) ? 1 : 0;
        } else if (name.size() > 5 && name.compare(name.size() - 5, 5, ".part") == 0) {
          const std::uintmax_t size = fs::file_size(e.path(), error);
          partial += !error && size < kFiles * kFileBytes ? 1 : 0;
        }
      }
      if (staged > 0 && partial > 0) seen = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  auto r = runCommand(cluster.hnow("send " + top.string() + " --dest courses/slow --json --compress none"));
  sending = false;
  watcher.join();
  REQUIRE_MESSAGE(r.status == 0, (r.err + r.out));
  CHECK(seen);
  auto report = nlohmann::json::parse(r.out);
  REQUIRE(report["copies"].size() == 2);
  for (const auto& copy : report["copies"]) {
    CHECK(copy["tree"]["files"] == kFiles);
    CHECK(differences(treeOf(copy["path"].get<std::string>()), treeOf(top)) == "");
    CHECK(partFiles(fs::path(copy["path"].get<std::string>()).parent_path()) == 0);
  }
  CHECK(cluster.log("agent-1").find("files written as it landed") != std::string::npos);
}

TEST_CASE("a directory hnowd does not see at the client's path is packed, uploaded and sent as a tree, and sent again uploads and moves only what changed") {
  TestCluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path top = makeCourseTree(cluster.dir.path);
  auto seen = runCommand(cluster.hnow("send " + top.string() + " --dest courses/seen --json"));
  REQUIRE_MESSAGE(seen.status == 0, seen.err);
  CHECK(seen.err.find("packing") == std::string::npos);  // hnowd lists the same tree there: read in place
  // The client on "another machine": a private mount namespace whose /mnt
  // holds a copy of the tree hnowd cannot see. Needs root and unshare.
  if (::geteuid() != 0 || runCommand("unshare --mount true").status != 0) {
    MESSAGE("skipped the upload of an unseen directory: needs root and unshare (a private mount namespace)");
    return;
  }
  // The client keeps its digests under XDG_CACHE_HOME: the test's own directory, not the tester's home.
  const std::string laptop = "export XDG_CACHE_HOME=" + (cluster.dir.path / "cache").string() +
                             " && mount -t tmpfs none /mnt && cp -a " + top.string() + " /mnt/course && ";
  const std::string send = cluster.hnow("send /mnt/course --dest courses/laptop --json");
  auto first = runCommand("unshare --mount sh -c '" + laptop + send + "'");
  REQUIRE_MESSAGE(first.status == 0, (first.err + first.out));
  CHECK(first.err.find("packing /mnt/course to upload it to hnowd, which does not read it there: refused "
                       "/mnt/course: /mnt/course is outside hnowd's roots") != std::string::npos);
  CHECK(first.err.find("left out of /mnt/course: outside") != std::string::npos);
  auto expected = treeOf(top);
  expected.erase("outside");
  auto report = nlohmann::json::parse(first.out);
  REQUIRE(report["copies"].size() == 2);
  for (const auto& copy : report["copies"]) CHECK(differences(treeOf(copy["path"].get<std::string>()), expected) == "");
  const std::size_t files = report["tree"]["files"].get<std::size_t>();
  // Again after one file changed on the laptop: hnowd kept its copy of the
  // tree, so only the changed file is uploaded, and only it moves to the agents.
  auto second = runCommand("unshare --mount sh -c '" + laptop + "echo changed > /mnt/course/secret.txt && " + send + "'");
  REQUIRE_MESSAGE(second.status == 0, (second.err + second.out));
  CHECK(second.err.find("uploading /mnt/course (1 of its " + std::to_string(files) +
                        " files, ") != std::string::npos);
  CHECK(second.err.find("hnowd holds the rest from the last upload") != std::string::npos);
  report = nlohmann::json::parse(second.out);
  CHECK(report["tree"]["sent_files"] == 1);
  for (const auto& copy : report["copies"])
    CHECK(readWhole(fs::path(copy["path"].get<std::string>()) / "secret.txt") == "changed\n");
  // Its record names the directory as the client did, not hnowd's scratch copy.
  auto ops = nlohmann::json::parse(runCommand(cluster.hnow("ops --json")).out)["operations"];
  REQUIRE(ops.size() >= 1);
  CHECK(ops[0]["summary"]["file"] == "/mnt/course");
  CHECK(ops[0]["summary"]["uploaded"] == true);
  // hnowd keeps no bundle, upload or scratch tree once the sends ended:
  // only its copy of the client's tree, for the next upload.
  std::size_t left = 0, kept = 0;
  std::error_code error;
  const fs::path keptDir = cluster.dir.path / "hnowd" / "trees" / "kept";
  for (auto e = fs::recursive_directory_iterator(cluster.dir.path / "hnowd", error);
       e != fs::recursive_directory_iterator(); e.increment(error)) {
    if (e->path() == keptDir) {
      e.disable_recursion_pending();
      continue;
    }
    left += e->path().extension() == ".tree" || e->path().extension() == ".bundle" ||
            e->path().parent_path().filename() == "uploads";
  }
  CHECK(left == 0);
  fs::path copy;
  for (const auto& e : fs::directory_iterator(keptDir, error))
    if (e.is_directory()) ++kept, copy = e.path();
  REQUIRE(kept == 1);
  // The copy is hnowd's mirror of the laptop's tree, the changed file included.
  auto mirrored = expected;
  CHECK(readWhole(copy / "secret.txt") == "changed\n");
  mirrored.erase("secret.txt");
  auto held = treeOf(copy);
  held.erase("secret.txt");
  CHECK(differences(held, mirrored) == "");
}

TEST_CASE("while a send runs from hnowd's copy of a client's directory, another upload of it goes whole, and both land") {
  TestCluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  if (::geteuid() != 0 || runCommand("unshare --mount true").status != 0) {
    MESSAGE("skipped: needs root and unshare (a private mount namespace)");
    return;
  }
  const fs::path top = cluster.dir.path / "course";
  fs::create_directories(top / "lib");
  std::ofstream(top / "lib" / "notes.txt") << "week 1";
  writeRandomFile(top / "a.bin", 4 << 20, 1);
  // The client keeps its digests under XDG_CACHE_HOME: the test's own directory, not the tester's home.
  const std::string laptop = "export XDG_CACHE_HOME=" + (cluster.dir.path / "cache").string() +
                             " && mount -t tmpfs none /mnt && cp -a " + top.string() + " /mnt/course && ";
  auto fromLaptop = [&](const std::string& dest, const std::string& extra) {
    return runCommand("unshare --mount sh -c '" + laptop +
                      cluster.hnow("send /mnt/course --dest " + dest + " --json " + extra) + "'");
  };
  auto first = fromLaptop("courses/a", "");
  REQUIRE_MESSAGE(first.status == 0, (first.err + first.out));

  // a.bin changed; sent at 8 Mbit/s to a new --dest, about 4 s from hnowd's copy.
  const std::string bytes = writeRandomFile(top / "a.bin", 4 << 20, 2);
  hnow::testing::ProcessResult slow;
  std::thread slowSend([&] { slow = fromLaptop("courses/slow", "--max-rate 8M"); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool running = false;
  while (!running && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto ops = nlohmann::json::parse(runCommand(cluster.hnow("ops --json")).out)["operations"];
    running = !ops.empty() && ops[0]["kind"] == "send" && ops[0]["status"] == "running";
  }
  auto meanwhile = fromLaptop("courses/b", "");
  slowSend.join();
  CHECK(running);
  REQUIRE_MESSAGE(meanwhile.status == 0, (meanwhile.err + meanwhile.out));
  CHECK(meanwhile.err.find("uploading /mnt/course whole: a send of this directory from this machine is running") !=
        std::string::npos);
  REQUIRE_MESSAGE(slow.status == 0, (slow.err + slow.out));
  CHECK(slow.err.find("(1 of its 2 files, ") != std::string::npos);
  for (int a = 1; a <= 2; ++a)
    for (const char* dest : {"courses/slow", "courses/b"}) {
      CHECK(readWhole(cluster.root(a) / dest / "a.bin") == bytes);
      CHECK(readWhole(cluster.root(a) / dest / "lib" / "notes.txt") == "week 1");
    }
}

TEST_CASE("a tree's files an agent holds elsewhere under its root are copied there, not sent: a course sent again under a new --dest") {
  TestCluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path top = cluster.dir.path / "course";
  fs::create_directories(top / "v1");
  const std::string video = writeRandomFile(top / "v1" / "video.bin", 3 << 20, 11);
  auto first = runCommand(cluster.hnow("send " + top.string() + " --dest terms/fall --json"));
  REQUIRE_MESSAGE(first.status == 0, (first.err + first.out));

  // Next term's tree: the same video under another name, one new file.
  const fs::path next = cluster.dir.path / "next";
  fs::create_directories(next / "lectures");
  fs::copy_file(top / "v1" / "video.bin", next / "lectures" / "week1.bin");
  std::ofstream(next / "lectures" / "notes.txt") << "new this term";
  auto again = runCommand(cluster.hnow("send " + next.string() + " --dest terms/spring --json"));
  REQUIRE_MESSAGE(again.status == 0, (again.err + again.out));
  auto report = nlohmann::json::parse(again.out);
  CHECK(report["tree"]["sent_files"] == 1);  // notes.txt alone
  CHECK(report["size"].get<std::uint64_t>() < (1 << 20));
  REQUIRE(report["copies"].size() == 2);
  for (const auto& copy : report["copies"]) {
    CHECK(copy["tree"]["copied"] == 1);
    CHECK(copy["tree"]["failed_count"] == 0);
    const fs::path dest = copy["path"].get<std::string>();
    CHECK(readWhole(dest / "lectures" / "week1.bin") == video);
    CHECK(readWhole(dest / "lectures" / "notes.txt") == "new this term");
    CHECK(readWhole(dest.parent_path() / "fall" / "v1" / "video.bin") == video);  // the source stays
  }
}

TEST_CASE("a directory renamed in the source tree is not sent again: each agent copies its files from their old paths, and --delete removes those") {
  TestCluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path top = cluster.dir.path / "course";
  fs::create_directories(top / "v1");
  const std::string video = writeRandomFile(top / "v1" / "video.bin", 3 << 20);
  const std::string slides = writeRandomFile(top / "v1" / "slides.pdf", 1 << 20);
  auto first = runCommand(cluster.hnow("send " + top.string() + " --dest course --json"));
  REQUIRE_MESSAGE(first.status == 0, (first.err + first.out));

  fs::rename(top / "v1", top / "v2");
  auto renamed = runCommand(cluster.hnow("send " + top.string() + " --dest course --delete --json"));
  REQUIRE_MESSAGE(renamed.status == 0, (renamed.err + renamed.out));
  auto report = nlohmann::json::parse(renamed.out);
  CHECK(report["tree"]["sent_files"] == 0);
  CHECK(report["size"].get<std::uint64_t>() < 4096);  // the index alone, not 4 MiB
  REQUIRE(report["copies"].size() == 2);
  for (const auto& copy : report["copies"]) {
    CHECK(copy["tree"]["copied"] == 2);
    CHECK(copy["tree"]["files"] == 0);
    CHECK(copy["tree"]["failed_count"] == 0);
    const fs::path dest = copy["path"].get<std::string>();
    CHECK(readWhole(dest / "v2" / "video.bin") == video);
    CHECK(readWhole(dest / "v2" / "slides.pdf") == slides);
    CHECK_FALSE(fs::exists(dest / "v1"));  // --delete: the old paths go once copied from
  }
}

TEST_CASE("an agent that lacks more of a tree than the others gets its own bundle: the others receive only what they lack") {
  TestCluster cluster("--agents 3 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path top = cluster.dir.path / "course";
  fs::create_directories(top / "videos");
  std::ofstream(top / "index.html") << "week 1";
  writeRandomFile(top / "videos" / "lecture.bin", 4 << 20, 31);
  auto first = runCommand(cluster.hnow("send " + top.string() + " --dest course --json"));
  REQUIRE_MESSAGE(first.status == 0, (first.err + first.out));
  std::map<std::string, fs::path> dest;
  const auto firstReport = nlohmann::json::parse(first.out);
  for (const auto& copy : firstReport["copies"])
    dest[copy["node"].get<std::string>()] = copy["path"].get<std::string>();
  REQUIRE_MESSAGE(dest.size() == 3, first.out);

  // agent-3 lost the lecture; this week the index changed everywhere.
  fs::remove(dest["agent-3"] / "videos" / "lecture.bin");
  std::ofstream(top / "index.html") << "week 2";
  auto second = runCommand(cluster.hnow("send " + top.string() + " --dest course --json"));
  REQUIRE_MESSAGE(second.status == 0, (second.err + second.out));
  const auto report = nlohmann::json::parse(second.out);
  REQUIRE(report["tree"]["groups"].size() == 2);
  for (const auto& group : report["tree"]["groups"]) {
    const bool lagging = group["agents"] == nlohmann::json::array({"agent-3"});
    CHECK(group["sent_files"] == (lagging ? 2 : 1));
    if (!lagging) CHECK(group["size"].get<std::uint64_t>() < 8192);  // the index, not the 4 MiB lecture
    CHECK(group["error"].is_null());
  }
  CHECK(report["tree"]["sent_files"] == 2);  // some agent lacked each
  CHECK(report["failed"].empty());
  CHECK(report["copies"].size() == 3);
  for (const auto& copy : report["copies"]) {
    CHECK(copy["tree"]["files"] == (copy["node"] == "agent-3" ? 2 : 1));
  }
  const auto want = treeOf(top);
  for (const auto& [agent, path] : dest) CHECK_MESSAGE(differences(treeOf(path), want) == "", agent);

  // The text report names each bundle and its agents.
  std::ofstream(top / "index.html") << "week 3";
  fs::remove(dest["agent-1"] / "videos" / "lecture.bin");
  auto text = runCommand(cluster.hnow("send " + top.string() + " --dest course"));
  REQUIRE_MESSAGE(text.status == 0, (text.err + text.out));
  CHECK_MESSAGE(text.out.find("bundle 1 of 2, to agent-1: 2 files") != std::string::npos, text.out);
  CHECK_MESSAGE(text.out.find("bundle 2 of 2, to agent-2, agent-3: 1 files") != std::string::npos, text.out);
}
