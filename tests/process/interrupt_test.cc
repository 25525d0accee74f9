// Ctrl-C on `hnow send` and `hnow run` typed on a terminal (a pty): the
// first cancels the operation in hnowd and the client waits for its end,
// exit 130 (docs/send.md, "Cancelling").
#include <doctest/doctest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "process/cancel_checks.h"

using hnow::testing::eventually;
using hnow::testing::filesUnder;
using hnow::testing::kHnowBinary;
using hnow::testing::newestOperation;
using hnow::testing::readWhole;
using hnow::testing::sendUnderWay;
using hnow::testing::slowSendArgs;
using Cluster = hnow::testing::TestCluster;
namespace fs = std::filesystem;

namespace {

// A program on a pty of its own, as on a terminal: what it writes is read
// all along (so it never blocks on a full pty), Ctrl-C typed as the byte
// a terminal sends for it.
class OnTerminal {
 public:
  explicit OnTerminal(const std::vector<std::string>& argv) {
    pid_ = ::forkpty(&master_, nullptr, nullptr, nullptr);
    if (pid_ == 0) {
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    reader_ = std::thread([this] {
      char buffer[4096];
      for (ssize_t n; (n = ::read(master_, buffer, sizeof buffer)) > 0;) {
        std::lock_guard<std::mutex> lock(mutex_);
        shown_.append(buffer, static_cast<std::size_t>(n));
      }
    });
  }
  ~OnTerminal() {
    if (!status_) ::kill(pid_, SIGKILL), ::waitpid(pid_, nullptr, 0);
    ::close(master_);
    reader_.join();
  }
  OnTerminal(const OnTerminal&) = delete;
  OnTerminal& operator=(const OnTerminal&) = delete;

  void typeCtrlC() { (void)!::write(master_, "\x03", 1); }
  std::string shown() {
    std::lock_guard<std::mutex> lock(mutex_);
    return shown_;
  }
  std::optional<int> waitExit(std::chrono::seconds limit) {
    eventually([&] {
      int raw = 0;
      if (::waitpid(pid_, &raw, WNOHANG) == pid_) status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
      return status_.has_value();
    }, limit);
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int master_ = -1;
  std::thread reader_;
  std::mutex mutex_;
  std::string shown_;
  std::optional<int> status_;
};

}  // namespace

TEST_CASE("Ctrl-C on hnow send cancels the send in hnowd: the client says so, waits for its end and exits 130, no partial copy left") {
  Cluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  OnTerminal send(slowSendArgs(cluster));
  const std::int64_t id = sendUnderWay(cluster, {1, 2});
  REQUIRE(id != 0);
  send.typeCtrlC();
  CHECK(send.waitExit(std::chrono::seconds(10)) == std::optional<int>(130));
  const std::string shown = send.shown();
  CHECK_MESSAGE(shown.find("cancelling send " + std::to_string(id) + " (Ctrl-C again to leave at once)") !=
                    std::string::npos, shown);
  CHECK(shown.find("send " + std::to_string(id) + " cancelled by local") != std::string::npos);
  auto op = newestOperation(cluster);
  CHECK(op["status"] == "cancelled");
  CHECK(op["summary"]["cancelled_by"] == "local");
  for (int agent : {1, 2})
    CHECK_MESSAGE(eventually([&] { return filesUnder(cluster.root(agent)).empty(); }, std::chrono::seconds(5)),
                  "agent-" << agent << " holds " << nlohmann::json(filesUnder(cluster.root(agent))).dump());
}

TEST_CASE("Ctrl-C on hnow run cancels the run in hnowd, its commands killed, and a second Ctrl-C leaves at once") {
  Cluster cluster("--agents 2 --uplink-mbps 400");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const fs::path input = cluster.dir.path / "input.txt", pids = cluster.dir.path / "pids.txt";
  std::ofstream(input) << "one\ntwo\nthree\n";
  OnTerminal run({kHnowBinary, "--config", (cluster.dir.path / "client.toml").string(), "run", "--input",
                  input.string(), "--shell", "--cmd", "echo $$ >> " + pids.string() + "; sleep 300", "--concat"});
  std::vector<pid_t> started;
  REQUIRE(eventually(
      [&] {
        started.clear();
        std::istringstream in(readWhole(pids));
        for (long pid; in >> pid;) started.push_back(static_cast<pid_t>(pid));
        return started.size() >= 2;
      },
      std::chrono::seconds(20)));
  // Under way once the client has heard of its record.
  REQUIRE(eventually([&] { return newestOperation(cluster)["status"] == "running"; }, std::chrono::seconds(5)));
  std::this_thread::sleep_for(std::chrono::seconds(2));  // a push or two: the client knows the record
  // hnowd stopped a while: the first Ctrl-C's cancel waits for it, the second leaves at once.
  const pid_t hnowd = cluster.pid("hnowd");
  REQUIRE(::kill(hnowd, SIGSTOP) == 0);
  run.typeCtrlC();
  const bool asked = eventually([&] { return run.shown().find("cancelling run") != std::string::npos; },
                                std::chrono::seconds(5));
  run.typeCtrlC();
  const std::optional<int> exited = run.waitExit(std::chrono::seconds(3));
  ::kill(hnowd, SIGCONT);
  REQUIRE_MESSAGE(asked, run.shown());
  CHECK(exited == std::optional<int>(130));
  CHECK_MESSAGE(run.shown().find("left; hnowd ends the run on its own") != std::string::npos, run.shown());
  // The cancel it sent is carried out once hnowd runs again.
  CHECK(eventually([&] { return newestOperation(cluster)["status"] == "cancelled"; }, std::chrono::seconds(10)));
  for (pid_t pid : started)
    CHECK_MESSAGE(eventually([&] { return !hnow::testing::processAlive(pid); }, std::chrono::seconds(5)),
                  "pid " << pid << " still runs");
}
