#include "cli/local_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "cli/coordinator_client.h"
#include "cli/local_processes.h"
#include "cli/text_file.h"
#include "transport/identity.h"

namespace hnow::cli {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The default lab: three classes of machines bought years apart, in three rooms.
struct LabClass {
  const char* site;
  double mbps;
  double computeFactor;
};
constexpr LabClass kLab[] = {{"room-a", 400, 1}, {"room-b", 100, 2}, {"room-c", 25, 4}};

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string findBinary(const std::string& name) {
  const fs::path here = ownDirectory();
  // Installed side by side, or the build tree (daemon/hnow, agent/hnow-agent).
  for (const fs::path& candidate : {here / name, here / ".." / "daemon" / name, here / ".." / "agent" / name})
    if (::access(candidate.c_str(), X_OK) == 0) return fs::weakly_canonical(candidate).string();
  return "";
}

std::vector<pid_t> readPids(const fs::path& dir, std::vector<fs::path>* files = nullptr) {
  std::vector<pid_t> pids;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir / "pids", error)) {
    if (entry.path().extension() != ".pid") continue;
    std::ifstream in(entry.path());
    long pid = 0;
    if (in >> pid && pid > 0) pids.push_back(static_cast<pid_t>(pid));
    if (files) files->push_back(entry.path());
  }
  return pids;
}

// The running processes of the cluster in `dir`: pids whose command line
// still names the directory.
std::vector<pid_t> livePids(const fs::path& dir, std::vector<fs::path>* files = nullptr) {
  std::vector<pid_t> live;
  for (pid_t pid : readPids(dir, files))
    if (commandLineContains(pid, dir.string())) live.push_back(pid);
  return live;
}

class Launcher {
 public:
  explicit Launcher(fs::path dir) : dir_(std::move(dir)) {}

  // Starts `binary --config config` and writes its pid file.
  bool start(const std::string& name, const std::string& binary, const fs::path& config, int niceness = 0) {
    pid_t pid =
        spawnDaemon({binary, "--config", config.string()}, (dir_ / "logs" / (name + ".log")).string(), niceness);
    if (pid < 0) return false;
    started_.push_back(pid);
    return writeFileAtomically((dir_ / "pids" / (name + ".pid")).string(), std::to_string(pid) + "\n").ok();
  }
  // A started process that already exited (a bad config, a taken port).
  bool anyExited() {
    for (pid_t pid : started_)
      if (reapIfExited(pid)) return true;
    return false;
  }
  void stopEverything() { stopAll(started_, std::chrono::milliseconds(3000)); }

 private:
  fs::path dir_;
  std::vector<pid_t> started_;
};

bool writeConfig(const fs::path& path, const std::string& text) {
  auto written = writeFileAtomically(path.string(), text);
  if (!written) std::fprintf(stderr, "hnow: %s\n", written.error().message.c_str());
  return written.ok();
}

std::string waitForAddress(const fs::path& file, Launcher& launcher) {
  auto deadline = Clock::now() + std::chrono::seconds(5);
  while (Clock::now() < deadline && !launcher.anyExited()) {
    std::ifstream in(file);
    std::string address;
    if (in >> address) return address;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return "";
}

// Polls hnowd until every agent in `names` is alive with rates and both
// links known (at once when emulated; after hnowd's survey otherwise).
bool waitForAgents(const conf::ClientConfig& client, const std::set<std::string>& names,
                   Launcher& launcher) {
  auto deadline = Clock::now() + std::chrono::seconds(20 + 2 * names.size());
  auto connection = CoordinatorClient::connect(client);
  if (!connection) {
    std::fprintf(stderr, "hnow: %s\n", connection.error().message.c_str());
    return false;
  }
  while (Clock::now() < deadline && !launcher.anyExited()) {
    auto status = connection.value()->status();
    if (!status) break;
    std::size_t ready = 0;
    for (const api::AgentStatus& a : status->agents)
      ready += names.count(a.name) && a.alive && a.ratesAgeSeconds && a.uplink.method != "unknown" &&
               a.downlink.method != "unknown";
    if (ready == names.size()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

int up(const LocalUpOptions& options, const fs::path& dir, Launcher& launcher) {
  const std::string hnowd = findBinary("hnowd"), agent = findBinary("hnow-agent");
  if (hnowd.empty() || agent.empty()) {
    std::fprintf(stderr, "hnow: cannot find hnowd and hnow-agent next to %s\n", ownDirectory().c_str());
    return 1;
  }
  for (const char* sub : {"pids", "logs", "agents", "hnowd"}) fs::create_directories(dir / sub);
  // Every identity of the lab is made here, before anything starts
  // (docs/security.md): hnowd's key, one operator with full rights (the
  // user), and each agent's key, listed in hnowd.toml as [[agents]], so no
  // enrollment is needed on one machine.
  auto hnowdKey = transport::loadOrCreateKeyFile((dir / "hnowd.key").string());
  auto operatorKey = transport::loadOrCreateKeyFile((dir / "operator.key").string());
  if (!hnowdKey || !operatorKey) {
    std::fprintf(stderr, "hnow: %s\n", (!hnowdKey ? hnowdKey : operatorKey).error().message.c_str());
    return 1;
  }
  const std::string coordinatorKey = transport::keyText(hnowdKey->publicKey());
  std::string identities = "\n[[operators]]\nname = \"local\"\nkey = " +
                           quoted(transport::keyText(operatorKey->publicKey())) + "\nrights = \"full\"\n";
  for (int i = 0; i < options.agents; ++i) {
    const std::string name = "agent-" + std::to_string(i + 1);
    fs::create_directories(dir / "agents" / name);
    auto key = transport::loadOrCreateKeyFile((dir / "agents" / name / "agent.key").string());
    if (!key) {
      std::fprintf(stderr, "hnow: %s\n", key.error().message.c_str());
      return 1;
    }
    identities += "\n[[agents]]\nname = " + quoted(name) + "\nkey = " + quoted(transport::keyText(key->publicKey())) + "\n";
  }

  // Port 0 first; once hnowd has bound, the config is pinned to that port.
  std::string hnowdHead = "data_dir = \"hnowd\"\nkey_file = \"hnowd.key\"\nlog_level = \"info\"\n";
  if (options.sourceUplinkMbps > 0) hnowdHead += "uplink_mbps = " + std::to_string(options.sourceUplinkMbps) + "\n";
  if (options.driftDwellSeconds >= 0) hnowdHead += "drift_dwell_s = " + std::to_string(options.driftDwellSeconds) + "\n";
  // One machine standing in for a whole lab: past 16 agents a core, the
  // agents' own work starves hnowd, which answers heartbeats late and calls
  // agents lost that are only waiting for a core. On a real lab hnowd has a
  // machine of its own, so here it keeps its share: the agents run at a
  // lower priority, and are given longer to be heard.
  const bool crowded = options.agents > 16 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (crowded) hnowdHead += "lost_timeout_s = 10\n";
  // Paced links on loopback ramp up at once: short rounds.
  const std::string survey =
      options.measureLinks ? "\n[survey]\nemulated_links = true\nwarm_s = 0.15\nwindow_s = 0.35\n" : "";
  // `hnow run` reads --input and writes --output on hnowd's host, inside
  // [run] roots only (server/run_paths.h), and `hnow send` reads inside
  // [send] roots only (server/send_paths.h). Here client and hnowd are one
  // user, so the lab lists what such a user works on: the lab's directory
  // and the directory `local up` ran in (other paths are uploaded by the
  // client). Edit hnowd.toml and restart hnowd (or the lab) for others.
  std::error_code cwdError;
  const fs::path lab = fs::absolute(dir).lexically_normal(), here = fs::current_path(cwdError);
  std::string roots = "roots = [" + quoted(lab.string());
  if (!cwdError && here != lab) roots += ", " + quoted(here.string());
  roots += "]\n";
  std::string runRoots = "\n[run]\n" + roots + "\n[send]\n" + roots;
  if (options.web) runRoots += "\n[web]\nlisten = \"127.0.0.1:0\"\n";
  if (!writeConfig(dir / "hnowd.toml", "listen = \"127.0.0.1:0\"\n" + hnowdHead + runRoots + survey + identities))
    return 1;
  if (!launcher.start("hnowd", hnowd, dir / "hnowd.toml")) return 1;
  const std::string address = waitForAddress(dir / "hnowd" / "hnowd.address", launcher);
  if (address.empty()) {
    std::fprintf(stderr, "hnow: hnowd did not start; see %s\n", (dir / "logs" / "hnowd.log").c_str());
    return 1;
  }
  if (!writeConfig(dir / "hnowd.toml", "listen = " + quoted(address) + "\n" + hnowdHead + runRoots + identities))
    return 1;
  if (!writeConfig(dir / "client.toml", "coordinator = " + quoted(address) +
                                            "\noperator = \"local\"\nkey_file = \"operator.key\"\ncoordinator_key = " +
                                            quoted(coordinatorKey) + "\n"))
    return 1;

  std::set<std::string> names;
  for (int i = 0; i < options.agents; ++i) {
    const std::string name = "agent-" + std::to_string(i + 1);
    const LabClass& lab = kLab[i % 3];
    const bool given = !options.uplinkMbps.empty();
    // A list of one applies to every agent.
    auto pick = [i](const auto& list) { return list[list.size() == 1 ? 0 : static_cast<std::size_t>(i)]; };
    const double mbps = given ? pick(options.uplinkMbps) : lab.mbps;
    const double down = options.downlinkMbps.empty() ? mbps : pick(options.downlinkMbps);
    const std::string site = !options.sites.empty() ? pick(options.sites) : given ? "local" : lab.site;
    const fs::path data = dir / "agents" / name;
    fs::create_directories(data / "files");
    std::string text = "name = " + quoted(name) + "\nsite = " + quoted(site) +
                       "\ncoordinator = " + quoted(address) + "\ndata_dir = " + quoted(name) +
                       "\ncoordinator_key = " + quoted(coordinatorKey) + "\nroots = [" + quoted((data / "files").string()) +
                       "]\nheartbeat_interval_s = 0.5\nprobe_interval_s = 30\n\n[emulate]\n" +
                       "uplink_mbps = " + std::to_string(mbps) + "\ndownlink_mbps = " + std::to_string(down) +
                       "\ncompute_factor = " + std::to_string(given ? 1.0 : lab.computeFactor) + "\n";
    if (!options.maxUplinkMbps.empty() && pick(options.maxUplinkMbps) > 0)
      text += "\n[limits]\nmax_uplink_mbps = " + std::to_string(pick(options.maxUplinkMbps)) + "\n";
    // The owner of a one-machine cluster is its user: any command, shells
    // too, at full priority, so that benches measure as before (docs/jobs.md).
    text += "\n[jobs]\nallow = [\"*\"]\nshell = true\nnice = 0\nidle = false\n";
    const fs::path config = dir / "agents" / (name + ".toml");
    if (!writeConfig(config, text) || !launcher.start(name, agent, config, crowded ? 5 : 0)) return 1;
    names.insert(name);
  }

  auto client = conf::loadClientConfig((dir / "client.toml").string());
  if (!client || !waitForAgents(*client, names, launcher)) {
    std::fprintf(stderr, "hnow: not every agent registered in time; see %s\n", (dir / "logs").c_str());
    return 1;
  }
  std::printf("hnowd at %s with %d agents registered\n", address.c_str(), options.agents);
  std::printf("hnow --config %s status\n", (dir / "client.toml").c_str());
  if (options.web)
    std::printf("web view at http://%s/ (its token: %s)\n", waitForAddress(dir / "hnowd" / "web.address", launcher).c_str(),
                (dir / "hnowd" / "web.token").c_str());
  return 0;
}

}  // namespace

Result<void> checkLocalUp(const LocalUpOptions& options) {
  if (options.agents < 1 || options.agents > 256) return Error{"--agents must be from 1 to 256"};
  const auto n = static_cast<std::size_t>(options.agents);
  auto badCount = [n](std::size_t size) { return size != 0 && size != 1 && size != n; };
  const std::string each = ", or one per agent (" + std::to_string(n) + ")";
  if (badCount(options.uplinkMbps.size())) return Error{"give one --uplink-mbps value" + each};
  if (badCount(options.downlinkMbps.size())) return Error{"give one --downlink-mbps value" + each};
  if (badCount(options.sites.size())) return Error{"give one --sites label" + each};
  if (badCount(options.maxUplinkMbps.size())) return Error{"give one --max-uplink-mbps value" + each};
  for (double r : options.maxUplinkMbps)
    if (!(r >= 0 && r <= 100000)) return Error{"--max-uplink-mbps must be from 0 (no cap) to 100000"};
  for (const auto* list : {&options.uplinkMbps, &options.downlinkMbps})
    for (double r : *list)
      if (!(r > 0 && r <= 100000)) return Error{"rates must be > 0 and at most 100000 Mbit/s"};
  if (!(options.sourceUplinkMbps >= 0 && options.sourceUplinkMbps <= 100000))
    return Error{"--source-uplink-mbps must be from 0 to 100000"};
  if (!(options.driftDwellSeconds < 0 || options.driftDwellSeconds <= 3600))
    return Error{"--drift-dwell-s must be from 0 to 3600"};
  for (const auto& site : options.sites)
    if (site.empty()) return Error{"a site label cannot be empty"};
  return {};
}

int runLocalUp(const LocalUpOptions& options) {
  if (auto valid = checkLocalUp(options); !valid) {
    std::fprintf(stderr, "hnow: %s\n", valid.error().message.c_str());
    return 2;
  }
  std::error_code error;
  const fs::path dir = fs::weakly_canonical(fs::absolute(options.dir), error);
  if (!livePids(dir).empty()) {
    std::fprintf(stderr, "hnow: a local cluster is already running in %s (hnow local down --dir %s)\n",
                 dir.c_str(), dir.c_str());
    return 1;
  }
  fs::remove_all(dir / "pids", error);
  Launcher launcher(dir);
  int status = up(options, dir, launcher);
  if (status != 0) {
    launcher.stopEverything();
    fs::remove_all(dir / "pids", error);
  }
  return status;
}

int runLocalDown(const LocalDownOptions& options) {
  std::error_code error;
  const fs::path dir = fs::weakly_canonical(fs::absolute(options.dir), error);
  std::vector<fs::path> files;
  std::vector<pid_t> live = livePids(dir, &files);
  int killed = stopAll(live, std::chrono::milliseconds(5000));
  std::size_t left = 0;
  for (pid_t pid : live) left += isRunning(pid);
  for (const fs::path& f : files) fs::remove(f, error);
  std::printf("stopped %zu processes%s\n", live.size(),
              killed ? (" (" + std::to_string(killed) + " needed SIGKILL)").c_str() : "");
  if (left) std::fprintf(stderr, "hnow: %zu processes would not stop\n", left);
  return left == 0 ? 0 : 1;
}

}  // namespace hnow::cli
