// Real processes on 127.0.0.1 with ports the OS chose: hnowd and agents
// started by `hnow local up`, stopped by a guard even when a check fails.
#include <doctest/doctest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/host_key.h"
#include "base/host_networks.h"
#include "cli/run_process.h"
#include "process/transfer_checks.h"

using hnow::testing::readWhole;
using hnow::testing::runCommand;
using hnow::testing::TempDir;
using hnow::testing::writeRandomFile;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

const std::string kHnow = HNOW_BINARY;
const std::string kHnowd = HNOWD_BINARY;
const std::string kAgent = HNOW_AGENT_BINARY;

pid_t pidOf(const std::filesystem::path& file) {
  return static_cast<pid_t>(std::stol("0" + readWhole(file)));
}

bool running(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::string stat = readWhole("/proc/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  return close == std::string::npos || stat[close + 2] != 'Z';
}

// Waits for `done` until `deadline`; true if it became true.
template <class F>
bool eventually(F done, Clock::duration within) {
  auto deadline = Clock::now() + within;
  while (Clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return done();
}

// `hnow local up` in a fresh directory; `hnow local down` when destroyed,
// then SIGKILL to anything of ours still running.
struct LocalCluster {
  TempDir dir;
  hnow::testing::ProcessResult up;

  explicit LocalCluster(const std::string& options) {
    up = runCommand(kHnow + " local up --dir " + dir.path.string() + " " + options);
  }
  ~LocalCluster() {
    auto pids = allPids();
    runCommand(kHnow + " local down --dir " + dir.path.string());
    for (pid_t pid : pids)
      if (running(pid)) ::kill(pid, SIGKILL);
  }
  std::vector<pid_t> allPids() const {
    std::vector<pid_t> pids;
    std::error_code error;
    for (const auto& e : std::filesystem::directory_iterator(dir.path / "pids", error))
      pids.push_back(pidOf(e.path()));
    return pids;
  }
  std::string client() const { return " --config " + (dir.path / "client.toml").string(); }
  nlohmann::json status() const {
    auto r = runCommand(kHnow + client() + " status --json");
    return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json{};
  }
  std::string stateOf(const std::string& name) const {
    auto s = status();
    if (!s.contains("agents")) return "";
    for (const auto& a : s["agents"])
      if (a["name"] == name) return a["state"];
    return "";
  }
  int countAlive() const {
    auto s = status();
    int alive = 0;
    if (s.contains("agents"))
      for (const auto& a : s["agents"]) alive += a["state"] == "alive";
    return alive;
  }
  std::string address() const {
    std::string a = readWhole(dir.path / "hnowd" / "hnowd.address");
    if (!a.empty()) a.pop_back();
    return a;
  }
  // A new machine `name` as an operator would add it: a token from `hnow
  // agent token`, then hnow-agent --enroll-file (run through `launcher`,
  // e.g. "env VAR=1 "), its config `name`, `coordinator` and `data_dir`
  // followed by `more`. False when the token could not be made.
  bool enroll(const std::string& name, const std::string& more = "", const std::string& launcher = "") {
    auto token = runCommand(kHnow + client() + " agent token --name " + name + " --ttl-s 600");
    if (token.status != 0) return false;
    std::ofstream(dir.path / (name + ".token")) << token.out;
    const auto config = dir.path / "agents" / (name + ".toml");
    std::ofstream(config) << "name = \"" << name << "\"\ncoordinator = \"" << address() << "\"\ndata_dir = \"" << name
                          << "\"\n" << more;
    startDaemon(launcher + kAgent, config.string(), name, " --enroll-file " + (dir.path / (name + ".token")).string());
    return true;
  }
  // Starts a daemon in the background as `hnow local` would, with a pid file.
  void startDaemon(const std::string& binary, const std::string& config, const std::string& name,
                   const std::string& extra = "") {
    auto r = runCommand("(setsid " + binary + " --config " + config + extra + " 2>>" +
                        (dir.path / "logs" / (name + ".log")).string() +
                        " </dev/null >/dev/null & echo $!)");
    std::ofstream(dir.path / "pids" / (name + ".pid")) << r.out;
  }
};

}  // namespace

TEST_CASE("hnowd and 4 agents register, their emulated links taken as told, each with this host's networks") {
  LocalCluster cluster("--agents 4 --uplink-mbps 20,50,100,200");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  auto s = cluster.status();
  REQUIRE(s["agents"].size() == 4);
  const double mbps[] = {20, 50, 100, 200};
  for (int i = 0; i < 4; ++i) {
    const auto& a = s["agents"][i];
    CHECK(a["name"] == "agent-" + std::to_string(i + 1));
    CHECK(a["state"] == "alive");
    CHECK(a["age_s"].is_number());
    double expected = mbps[i] * 1e6 / 8;
    CHECK(a["rates"]["uplink_bytes_per_s"].get<double>() == doctest::Approx(expected).epsilon(0.2));
    CHECK(a["rates"]["downlink_bytes_per_s"].get<double>() == doctest::Approx(expected).epsilon(0.2));
    CHECK(a["links"]["uplink"]["method"] == "emulated");
    CHECK(a["links"]["downlink"]["method"] == "emulated");
    CHECK(a["rates"]["send_overhead_s"].get<double>() > 0);
    CHECK(a["rates"]["compute_s_per_unit"].get<double>() > 0);
    REQUIRE(a["roots"].size() == 1);
  }
  // Their data planes listen on 127.0.0.1, which no network holds: the
  // host's networks come in their own order.
  const hnow::HostNetworks here = hnow::hostNetworks();
  std::string networks;
  for (const std::string& n : here.networks) networks += (networks.empty() ? "" : " ") + n;
  const std::string told = ", networks " + (networks.empty() ? "none" : networks) + ", gateway " +
                           (here.gateway.empty() ? "none" : here.gateway);
  const std::string log = readWhole(cluster.dir.path / "logs" / "hnowd.log");
  const std::size_t line = log.find("agent agent-1 (site ");
  REQUIRE(line != std::string::npos);
  CHECK_MESSAGE(log.substr(line, log.find('\n', line) - line).find(told) != std::string::npos, told);
  // All four run on this machine: one shared host, its intake not known
  // before a send fills it (docs/host-intake.md).
  REQUIRE(s["hosts"].size() == 1);
  CHECK(s["hosts"][0]["key"] == hnow::hostKey());
  CHECK(s["hosts"][0]["agents"] == 4);
  CHECK(s["hosts"][0]["intake"]["method"] == "unknown");
  const auto table = runCommand(kHnow + cluster.client() + " status");
  CHECK(table.out.find("machine " + hnow::hostKey() + ": 4 agents; they take in together not known yet") !=
        std::string::npos);
  for (pid_t pid : cluster.allPids()) CHECK(running(pid));
  auto pids = cluster.allPids();
  CHECK(pids.size() == 5);
  auto down = runCommand(kHnow + " local down --dir " + cluster.dir.path.string());
  CHECK(down.status == 0);
  for (pid_t pid : pids) CHECK_FALSE(running(pid));
}

TEST_CASE("with --measure-links hnowd surveys the paced links: each within 10% of its pacing, hnowd's own a bound - hnow measure names what it cannot measure") {
  LocalCluster cluster("--agents 3 --uplink-mbps 40,80,20 --downlink-mbps 160 --measure-links");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  auto check = [](const nlohmann::json& s) {
    const double up[] = {40, 80, 20};
    REQUIRE(s["agents"].size() == 3);
    for (int i = 0; i < 3; ++i) {
      const auto& links = s["agents"][i]["links"];
      INFO(s["agents"][i]["name"]);
      CHECK(links["uplink"]["method"] == "probe");
      CHECK(links["uplink"]["bytes_per_s"].get<double>() == doctest::Approx(up[i] * 1e6 / 8).epsilon(0.1));
      CHECK(links["downlink"]["method"] == "probe");
      CHECK(links["downlink"]["bytes_per_s"].get<double>() == doctest::Approx(160e6 / 8).epsilon(0.1));
      CHECK(links["uplink"]["age_s"].is_number());
    }
    // hnowd is not paced here: the agents' downlinks together are the most it could show.
    CHECK(s["coordinator"]["links"]["uplink"]["method"] == "bound");
  };
  check(cluster.status());
  auto again = runCommand(kHnow + cluster.client() + " measure agent-2 --json");
  REQUIRE_MESSAGE(again.status == 0, again.err);
  check(nlohmann::json::parse(again.out));
  auto unknown = runCommand(kHnow + cluster.client() + " measure agent-9");
  CHECK(unknown.status == 1);
  CHECK(unknown.err.find("no connected agent named 'agent-9'") != std::string::npos);
  auto table = runCommand(kHnow + cluster.client() + " status");
  CHECK(table.out.find("probe") != std::string::npos);
  CHECK(table.out.find(">= ") != std::string::npos);  // hnowd's bound
}

TEST_CASE("a killed agent is lost within 3 s and can be forgotten, set-rate changes another's reported uplink") {
  LocalCluster cluster("--agents 3");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  ::kill(pidOf(cluster.dir.path / "pids" / "agent-2.pid"), SIGKILL);
  auto killedAt = Clock::now();
  CHECK(eventually([&]() { return cluster.stateOf("agent-2") == "lost"; }, 3s));
  CHECK(Clock::now() - killedAt < 3s);
  CHECK(cluster.stateOf("agent-1") == "alive");

  auto r = runCommand(kHnow + cluster.client() + " agent set-rate agent-3 --uplink-mbps 60");
  CHECK(r.status == 0);
  auto uplinkOf3 = [&]() {
    auto s = cluster.status();  // kept: iterating a temporary's member would dangle
    for (const auto& a : s["agents"])
      if (a["name"] == "agent-3") return a["rates"]["uplink_bytes_per_s"].get<double>();
    return 0.0;
  };
  CHECK(eventually([&]() { return std::abs(uplinkOf3() / (60e6 / 8) - 1) < 0.2; }, 3s));
  auto unknown = runCommand(kHnow + cluster.client() + " agent set-rate nobody --uplink-mbps 60");
  CHECK(unknown.status == 1);
  CHECK(unknown.err.find("no agent named 'nobody'") != std::string::npos);

  // A machine gone for good leaves status; one still connected cannot be forgotten.
  auto connected = runCommand(kHnow + cluster.client() + " agent forget agent-1");
  CHECK(connected.status == 1);
  CHECK(connected.err.find("agent 'agent-1' is connected") != std::string::npos);
  auto forgotten = runCommand(kHnow + cluster.client() + " agent forget agent-2");
  CHECK_MESSAGE(forgotten.status == 0, forgotten.err);
  CHECK(cluster.stateOf("agent-2").empty());
  CHECK(cluster.status()["agents"].size() == 2);
}

TEST_CASE("a client or an agent that trusts another hnowd key, or holds no enrolled key, is refused, and hnowd logs it") {
  LocalCluster cluster("--agents 1");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const auto& dir = cluster.dir.path;
  std::string address = readWhole(dir / "hnowd" / "hnowd.address");
  address.pop_back();
  std::string hnowdKey = readWhole(dir / "hnowd" / "hnowd.pub");
  hnowdKey.pop_back();
  REQUIRE(runCommand(kHnow + " key new " + (dir / "other.key").string()).status == 0);
  const std::string otherKey = runCommand(kHnow + " key new " + (dir / "other2.key").string()).out;

  // A client that expects another hnowd stops before it proves anything.
  std::ofstream(dir / "wrong-client.toml") << "coordinator = \"" << address << "\"\noperator = \"local\"\n"
                                           << "key_file = \"operator.key\"\ncoordinator_key = \""
                                           << otherKey.substr(0, otherKey.size() - 1) << "\"\n";
  auto r = runCommand(kHnow + " --config " + (dir / "wrong-client.toml").string() + " status");
  CHECK(r.status == 1);
  CHECK(r.err.find("not the one we trust") != std::string::npos);
  // A client with a key hnowd does not list for the operator is refused.
  std::ofstream(dir / "stranger.toml") << "coordinator = \"" << address << "\"\noperator = \"local\"\n"
                                       << "key_file = \"other.key\"\ncoordinator_key = \"" << hnowdKey << "\"\n";
  r = runCommand(kHnow + " --config " + (dir / "stranger.toml").string() + " status");
  CHECK(r.status == 1);
  CHECK(r.err.find("login refused") != std::string::npos);
  // The old shared-secret client config says what to do instead.
  std::ofstream(dir / "old-client.toml") << "coordinator = \"" << address << "\"\nsecret_file = \"secret\"\n";
  r = runCommand(kHnow + " --config " + (dir / "old-client.toml").string() + " status");
  CHECK(r.status != 0);
  CHECK(r.err.find("no longer opens a client session") != std::string::npos);

  // A second machine taking agent-1's name with its own key.
  std::ofstream(dir / "agents" / "intruder.toml")
      << "name = \"agent-1\"\ncoordinator = \"" << address << "\"\ndata_dir = \"intruder\"\ncoordinator_key = \""
      << hnowdKey << "\"\n";
  cluster.startDaemon(kAgent, (dir / "agents" / "intruder.toml").string(), "intruder");
  CHECK(eventually([&]() {
    return readWhole(dir / "logs" / "hnowd.log").find("refused agent login as agent-1 from 127.0.0.1:") !=
           std::string::npos;
  }, 5s));
  CHECK(readWhole(dir / "logs" / "hnowd.log").find("enrolled with another key") != std::string::npos);
  CHECK(readWhole(dir / "logs" / "intruder.log").find("enrolled with another key") != std::string::npos);
  CHECK(cluster.stateOf("agent-1") == "alive");
  CHECK(readWhole(dir / "logs" / "hnowd.log").find("refused operator login as local") != std::string::npos);
}

TEST_CASE("a new machine enrolls with hnow agent token, keeps hnowd's key, and hnow agent revoke cuts it off at once") {
  LocalCluster cluster("--agents 1");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const auto& dir = cluster.dir.path;
  const std::string address = cluster.address();
  // No coordinator_key: the agent learns whom to trust from the token.
  REQUIRE(cluster.enroll("pc-9"));
  REQUIRE(eventually([&]() { return cluster.stateOf("pc-9") == "alive"; }, 5s));
  CHECK(readWhole(dir / "agents" / "pc-9" / "hnowd.pub") == readWhole(dir / "hnowd" / "hnowd.pub"));
  struct stat key {};
  REQUIRE(::stat((dir / "agents" / "pc-9" / "agent.key").c_str(), &key) == 0);
  CHECK((key.st_mode & 0777) == 0600);
  auto keys = runCommand(kHnow + cluster.client() + " agent keys");
  CHECK(keys.out.find("pc-9") != std::string::npos);
  CHECK(keys.out.find("token") != std::string::npos);
  // The same token again, from another machine, enrolls nothing.
  std::ofstream(dir / "agents" / "pc-10.toml")
      << "name = \"pc-10\"\ncoordinator = \"" << address << "\"\ndata_dir = \"pc-10\"\n";
  cluster.startDaemon(kAgent, (dir / "agents" / "pc-10.toml").string(), "pc-10",
                      " --enroll-file " + (dir / "pc-9.token").string());
  CHECK(eventually([&]() {
    return readWhole(dir / "logs" / "pc-10.log").find("unknown or was used already") != std::string::npos;
  }, 5s));
  CHECK(readWhole(dir / "logs" / "hnowd.log").find("refused agent login as pc-10 from 127.0.0.1:") != std::string::npos);

  auto revoked = runCommand(kHnow + cluster.client() + " agent revoke pc-9");
  REQUIRE_MESSAGE(revoked.status == 0, revoked.err);
  CHECK(revoked.out.find("1 session closed") != std::string::npos);
  CHECK(eventually([&]() { return cluster.stateOf("pc-9") != "alive"; }, 5s));
  CHECK(eventually([&]() {
    return readWhole(dir / "logs" / "hnowd.log").find("refused agent login as pc-9 from 127.0.0.1:") !=
           std::string::npos;
  }, 10s));
  CHECK(readWhole(dir / "logs" / "pc-9.log").find("its key was revoked") != std::string::npos);
  // The revoked machine's log says what its owner must do to come back.
  CHECK(readWhole(dir / "logs" / "pc-9.log").find("delete its key file") != std::string::npos);
  CHECK(cluster.stateOf("agent-1") == "alive");
  // A normal send still lands.
  writeRandomFile(dir / "after.bin", 1 << 16);
  auto sent = runCommand(kHnow + cluster.client() + " send " + (dir / "after.bin").string() + " --dest after.bin");
  CHECK_MESSAGE(sent.status == 0, sent.err);
}

TEST_CASE("hnow agent token --count --out writes a room's tokens, each in a file of its own that only its owner reads, and agent keys lists those not used yet") {
  LocalCluster cluster("--agents 1");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const auto& dir = cluster.dir.path;
  const fs::path room = dir / "room-b" / "tokens";
  auto made = runCommand(kHnow + cluster.client() + " agent token --count 3 --ttl-s 600 --out " + room.string());
  REQUIRE_MESSAGE(made.status == 0, made.err);
  struct stat st {};
  REQUIRE(::stat(room.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  for (const char* file : {"token-01.token", "token-02.token", "token-03.token"}) {
    INFO(file);
    CHECK(made.out.find((room / file).string()) != std::string::npos);
    REQUIRE(::stat((room / file).c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
  }
  auto unused = [&] {
    const std::string keys = runCommand(kHnow + cluster.client() + " agent keys").out;
    int n = 0;
    for (auto at = keys.find("unused-token"); at != std::string::npos; at = keys.find("unused-token", at + 1)) ++n;
    return n;
  };
  CHECK(unused() == 3);
  // One PC of the room enrolls with its file: two are left.
  const auto config = dir / "agents" / "pc-b1.toml";
  std::ofstream(config) << "name = \"pc-b1\"\ncoordinator = \"" << cluster.address() << "\"\ndata_dir = \"pc-b1\"\n";
  cluster.startDaemon(kAgent, config.string(), "pc-b1", " --enroll-file " + (room / "token-01.token").string());
  REQUIRE(eventually([&]() { return cluster.stateOf("pc-b1") == "alive"; }, 5s));
  CHECK(unused() == 2);
  // The same directory again never overwrites a token; a name and a count together are refused.
  auto again = runCommand(kHnow + cluster.client() + " agent token --count 2 --out " + room.string());
  CHECK(again.status == 1);
  CHECK(again.err.find("never replaced") != std::string::npos);
  auto both = runCommand(kHnow + cluster.client() + " agent token --count 2 --name pc-b9");
  CHECK(both.status == 2);
}

TEST_CASE("an agent with a fixed data_port listens there, and another agent asking for that port says it is taken and how to go on") {
  LocalCluster cluster("--agents 1");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const auto& dir = cluster.dir.path;
  // A port free a moment ago: the OS's choice, let go.
  int port = 0;
  {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof a;
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length) == 0);
    port = ntohs(a.sin_port);
    ::close(fd);
  }
  const std::string fixed = "data_port = " + std::to_string(port) + "\n";
  REQUIRE(cluster.enroll("pc-5", fixed));
  REQUIRE(eventually([&]() { return cluster.stateOf("pc-5") == "alive"; }, 5s));
  CHECK(readWhole(dir / "logs" / "pc-5.log").find("data plane listening on 127.0.0.1:" + std::to_string(port)) !=
        std::string::npos);
  REQUIRE(cluster.enroll("pc-6", fixed));
  CHECK(eventually([&]() {
    return readWhole(dir / "logs" / "pc-6.log").find("set data_port to a free one") != std::string::npos;
  }, 5s));
}

TEST_CASE("hnow key new makes the directory of its key, private, on a new machine") {
  TempDir home;
  const fs::path key = home.path / ".config" / "hnow" / "operator.key";
  auto made = runCommand(kHnow + " key new " + key.string());
  REQUIRE_MESSAGE(made.status == 0, made.err);
  CHECK(made.out.rfind("ed25519:", 0) == 0);
  struct stat st {};
  REQUIRE(::stat(key.parent_path().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  REQUIRE(::stat(key.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("an agent that reports 100 times the uplink it achieves is planned with what it achieves and flagged in hnow status") {
  // hnowd's uplink is slow, so every plan relays through the fastest agent
  // it knows: the liar, until its own transfers belie it.
  LocalCluster cluster("--agents 3 --uplink-mbps 200 --source-uplink-mbps 40");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const auto& dir = cluster.dir.path;
  std::filesystem::create_directories(dir / "agents" / "liar" / "files");
  REQUIRE(cluster.enroll("liar",
                         "roots = [\"" + (dir / "agents" / "liar" / "files").string() +
                             "\"]\nheartbeat_interval_s = 0.5\n\n[emulate]\nuplink_mbps = 16\ndownlink_mbps = 200\n",
                         "env HNOW_TEST_TELL_UPLINK_TIMES=100 "));
  auto uplinkOf = [&](const std::string& name) {
    auto s = cluster.status();
    if (s.contains("agents"))
      for (const auto& a : s["agents"])
        if (a["name"] == name) return a["links"]["uplink"];
    return nlohmann::json::object();  // not registered yet
  };
  REQUIRE(eventually([&]() { return uplinkOf("liar").value("method", "") == "emulated"; }, 10s));
  CHECK(uplinkOf("liar")["bytes_per_s"].get<double>() == doctest::Approx(1600e6 / 8));

  writeRandomFile(dir / "image.bin", 6 << 20);
  auto sent = runCommand(kHnow + cluster.client() + " send " + (dir / "image.bin").string() +
                         " --dest image.bin --algo fnf");
  CHECK_MESSAGE(sent.status == 0, sent.err);
  auto up = uplinkOf("liar");
  REQUIRE(up.is_object());
  CHECK(up["told_bytes_per_s"].get<double>() == doctest::Approx(1600e6 / 8));
  CHECK(up["method"] == "passive");
  CHECK(up["bytes_per_s"].get<double>() < 0.05 * 1600e6 / 8);  // about 16 Mbit/s, not 1600
  auto text = runCommand(kHnow + cluster.client() + " status");
  CHECK(text.out.find("! liar: its uplink achieves") != std::string::npos);
  CHECK(text.out.find("not the 1600.0 it reports; planned with what it achieves") != std::string::npos);
  CHECK(readWhole(dir / "agents" / "liar" / "files" / "image.bin") == readWhole(dir / "image.bin"));
  CHECK(readWhole(dir / "agents" / "agent-1" / "files" / "image.bin") == readWhole(dir / "image.bin"));
}

TEST_CASE("agents come back on their own when hnowd restarts") {
  LocalCluster cluster("--agents 3");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const auto& dir = cluster.dir.path;
  pid_t hnowd = pidOf(dir / "pids" / "hnowd.pid");
  ::kill(hnowd, SIGTERM);
  REQUIRE(eventually([&]() { return !running(hnowd); }, 3s));
  CHECK(readWhole(dir / "logs" / "hnowd.log").find("stopping on signal 15") != std::string::npos);
  cluster.startDaemon(kHnowd, (dir / "hnowd.toml").string(), "hnowd");
  CHECK(eventually([&]() { return cluster.countAlive() == 3; }, 5s));
}

TEST_CASE("hnowd exits 0 on SIGTERM") {
  TempDir dir;
  std::ofstream(dir.path / "hnowd.toml") << "listen = \"127.0.0.1:0\"\ndata_dir = \"data\"\n";
  // The shell is hnowd's parent here, so it can report the exit status.
  auto r = runCommand("sh -c '" + kHnowd + " --config " + (dir.path / "hnowd.toml").string() +
                      " & pid=$!; i=0; while [ ! -f " + (dir.path / "data" / "hnowd.address").string() +
                      " ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; kill -TERM $pid; wait $pid; echo $?'");
  CHECK(r.out == "0\n");
}

TEST_CASE("a config with a typo stops either daemon with file:line:column and exit 2") {
  TempDir dir;
  std::ofstream(dir.path / "hnowd.toml")
      << "data_dir = \"data\"\nkey_file = \"hnowd.key\"\nlost_timout_s = 3\n";
  auto r = runCommand(kHnowd + " --config " + (dir.path / "hnowd.toml").string());
  CHECK(r.status == 2);
  CHECK(r.err.find("hnowd.toml:3:17: unknown key 'lost_timout_s'") != std::string::npos);

  std::ofstream(dir.path / "agent.toml") << "coordinator = \"127.0.0.1:7411\"\ndata_dir = \"d\"\n"
                                         << "key_file = \"k\"\n[emulate]\nuplink = 10\n";
  r = runCommand(kAgent + " --config " + (dir.path / "agent.toml").string());
  CHECK(r.status == 2);
  CHECK(r.err.find("agent.toml:5:10: unknown key 'uplink' in [emulate]") != std::string::npos);

  r = runCommand(kHnow + " local up --dir " + (dir.path / "x").string() + " --agents 2 --uplink-mbps 1,2,3");
  CHECK(r.status == 2);
}

TEST_CASE("a hung (SIGSTOPped) agent is lost within 3 s and alive again after SIGCONT") {
  LocalCluster cluster("--agents 2");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  pid_t agent = pidOf(cluster.dir.path / "pids" / "agent-1.pid");
  ::kill(agent, SIGSTOP);  // its connection stays open: only silence tells
  auto stoppedAt = Clock::now();
  CHECK(eventually([&]() { return cluster.stateOf("agent-1") == "lost"; }, 3s));
  CHECK(Clock::now() - stoppedAt < 3s);
  CHECK(cluster.stateOf("agent-2") == "alive");
  ::kill(agent, SIGCONT);
  CHECK(eventually([&]() { return cluster.stateOf("agent-1") == "alive"; }, 3s));
}

TEST_CASE("operation records in hnowd's state.db survive a restart (hnow ops --json)") {
  LocalCluster cluster("--agents 1");
  REQUIRE_MESSAGE(cluster.up.status == 0, cluster.up.err);
  const auto& dir = cluster.dir.path;
  REQUIRE(runCommand(kHnow + cluster.client() + " agent set-rate agent-1 --uplink-mbps 60").status == 0);
  auto ops = [&]() {
    auto r = runCommand(kHnow + cluster.client() + " ops --json");
    return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json{};
  };
  auto doneSetRate = [&]() {
    auto o = ops();
    return o.contains("operations") && o["operations"].size() == 1 &&
           o["operations"][0]["status"] == "done";
  };
  REQUIRE(eventually(doneSetRate, 3s));

  pid_t hnowd = pidOf(dir / "pids" / "hnowd.pid");
  ::kill(hnowd, SIGTERM);
  REQUIRE(eventually([&]() { return !running(hnowd); }, 3s));
  CHECK(std::filesystem::exists(dir / "hnowd" / "state.db"));
  cluster.startDaemon(kHnowd, (dir / "hnowd.toml").string(), "hnowd");
  REQUIRE(eventually(doneSetRate, 3s));
  auto record = ops()["operations"][0];
  CHECK(record["id"] == 1);
  CHECK(record["kind"] == "set-rate");
  CHECK(record["summary"]["agent"] == "agent-1");
  CHECK(record["summary"]["uplink_mbps"].get<double>() == 60);
  CHECK(record["finished_unix_s"].get<double>() >= record["started_unix_s"].get<double>());
  auto table = runCommand(kHnow + cluster.client() + " ops");
  CHECK(table.out.find("set-rate") != std::string::npos);
  CHECK(eventually([&]() { return cluster.countAlive() == 1; }, 5s));
}
