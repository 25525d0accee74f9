#pragma once
// The local lab the fault tests break things in: `hnow local up`,
// daemons killed and started again by hand, a send or run watched from the
// side (its tree from the client's stderr, its progress from the bytes at
// the agents' destinations), and the checks every fault case ends with.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli/run_process.h"
#include "process/child_process.h"
#include "process/raw_peer.h"  // eventually
#include "process/transfer_checks.h"

namespace hnow::testing {

namespace fs = std::filesystem;

inline bool processRunning(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::string stat = readWhole("/proc/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  return close == std::string::npos || stat[close + 2] != 'Z';
}

// The bytes the receive temp file of `name` in `dir` holds on disk (a
// striped one is written at several offsets, with holes between); 0 none.
// Whether one line of `log` starts its message with `head` ("run 3: ") and holds `text`.
inline bool logLineHas(const std::string& log, const std::string& head, const std::string& text) {
  for (std::size_t at = 0; at < log.size();) {
    std::size_t end = log.find('\n', at);
    if (end == std::string::npos) end = log.size();
    const std::string line = log.substr(at, end - at);
    if (line.find(": " + head) != std::string::npos && line.find(text) != std::string::npos) return true;
    at = end + 1;
  }
  return false;
}

inline std::uintmax_t partialOf(const std::filesystem::path& dir, const std::string& name) {
  std::uintmax_t most = 0;
  std::error_code error;
  for (const auto& e : std::filesystem::directory_iterator(dir, error)) {
    struct stat info {};
    if (e.path().filename().string().rfind("." + name + ".hnow-", 0) == 0 && ::stat(e.path().c_str(), &info) == 0)
      most = std::max(most, std::min<std::uintmax_t>(static_cast<std::uintmax_t>(info.st_blocks) * 512,
                                                     static_cast<std::uintmax_t>(info.st_size)));
  }
  return most;
}

class FaultLab {
 public:
  // `env` is put before `hnow local up`, so every daemon it starts inherits it.
  FaultLab(int agents, const std::string& options, const std::string& env = "") : agents_(agents) {
    up = runCommand(env + " " + HNOW_BINARY + std::string(" local up --dir ") + dir.path.string() +
                    " --agents " + std::to_string(agents) + " " + options);
  }
  ~FaultLab() {
    std::vector<pid_t> pids;
    std::error_code error;
    for (const auto& e : fs::directory_iterator(dir.path / "pids", error))
      pids.push_back(static_cast<pid_t>(std::stol("0" + readWhole(e.path()))));
    runCommand(std::string(HNOW_BINARY) + " local down --dir " + dir.path.string());
    for (pid_t pid : pids)
      if (processRunning(pid)) ::kill(pid, SIGKILL);
    restarted_.clear();  // reaps what this test started
  }

  TempDir dir;
  ProcessResult up;

  int agents() const { return agents_; }
  static std::string name(int k) { return "agent-" + std::to_string(k); }
  fs::path root(int k) const { return dir.path / "agents" / name(k) / "files"; }
  fs::path rootOf(const std::string& agent) const { return dir.path / "agents" / agent / "files"; }
  std::string hnow() const { return std::string(HNOW_BINARY) + " --config " + (dir.path / "client.toml").string(); }
  pid_t pidOf(const std::string& daemon) const {
    return static_cast<pid_t>(std::stol("0" + readWhole(dir.path / "pids" / (daemon + ".pid"))));
  }
  // SIGKILL (a crash) or SIGTERM (a stop); true once it is gone.
  bool kill(const std::string& daemon, int signal = SIGKILL) {
    const pid_t pid = pidOf(daemon);
    ::kill(pid, signal);
    return eventually([pid] { return !processRunning(pid); }, std::chrono::seconds(5));
  }

  // Starts `hnowd` or an agent again as `hnow local` did (same config, its
  // log appended, its pid file rewritten so `local down` stops it).
  void restart(const std::string& daemon, const std::vector<std::string>& env = {}) {
    const bool coordinator = daemon == "hnowd";
    const fs::path config = coordinator ? dir.path / "hnowd.toml" : dir.path / "agents" / (daemon + ".toml");
    auto child = std::make_unique<ChildProcess>(
        std::vector<std::string>{coordinator ? HNOWD_BINARY : HNOW_AGENT_BINARY, "--config", config.string()}, env,
        (dir.path / "logs" / (daemon + ".log")).string());
    std::ofstream(dir.path / "pids" / (daemon + ".pid")) << child->pid() << "\n";
    restarted_.push_back(std::move(child));
  }

  // Agent `agent` killed and started again with `env` (a test hook in its
  // own environment only); true once every agent is ready. hnowd must see
  // the old one go first: until then it counts that one alive, and a send
  // planned meanwhile would go to a session that is gone.
  bool restartWithEnv(const std::string& agent, const std::vector<std::string>& env) {
    if (!kill(agent) || !eventually([&] { return stateOf(agent) == "lost"; }, std::chrono::seconds(10))) return false;
    restart(agent, env);
    return allReady();
  }

  nlohmann::json status() const {
    auto r = runCommand(hnow() + " status --json");
    return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
  }
  // hnowd's operation records, newest first.
  nlohmann::json ops() const {
    auto r = runCommand(hnow() + " ops --json");
    return r.status == 0 ? nlohmann::json::parse(r.out)["operations"] : nlohmann::json::array();
  }
  // Every agent alive with measured rates (what `local up` waits for).
  // An agent's state in hnowd's status ("alive", "lost"), "" unknown.
  std::string stateOf(const std::string& agent) const {
    auto s = status();
    if (s.contains("agents"))
      for (const auto& a : s["agents"])
        if (a["name"] == agent) return a["state"];
    return "";
  }
  bool allReady(std::chrono::seconds within = std::chrono::seconds(15)) const {
    return eventually(
        [this] {
          auto s = status();
          int ready = 0;
          if (s.contains("agents"))
            for (const auto& a : s["agents"]) ready += a["state"] == "alive" && a["age_s"].is_number();
          return ready == agents_;
        },
        within);
  }

  // Temp files of receives anywhere under an agent's root, and files in its
  // .hnow-jobs/ and .hnow-receives/: what no finished operation may leave behind.
  static int leftoversUnder(const fs::path& root) {
    int n = 0;
    std::error_code error;
    for (const auto& e : fs::recursive_directory_iterator(root, error)) {
      const std::string name = e.path().filename().string();
      const bool temp = name.find(".hnow-") != std::string::npos && name.size() > 5 &&
                        name.compare(name.size() - 5, 5, ".part") == 0;
      const std::string dir = e.path().parent_path().filename().string();
      n += temp || (e.is_regular_file(error) && (dir == ".hnow-jobs" || dir == ".hnow-receives"));
    }
    return n;
  }
  int leftovers() const {
    int n = 0;
    for (int k = 1; k <= agents_; ++k) n += leftoversUnder(root(k));
    return n;
  }

  // `hnow ARGS` in the background, stdout and stderr to files under the lab.
  std::unique_ptr<ChildProcess> startClient(const std::string& args, const std::string& label) const {
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{"/bin/sh", "-c", "exec " + hnow() + " " + args + " > " + outPath(label).string()},
        std::vector<std::string>{}, errPath(label).string());
  }
  fs::path outPath(const std::string& label) const { return dir.path / (label + ".out"); }
  fs::path errPath(const std::string& label) const { return dir.path / (label + ".err"); }

  // The tree `hnow send` printed ("tree (parent>node): hnowd>agent-1 ..."):
  // node -> parent; empty until it is printed.
  std::map<std::string, std::string> treeOf(const std::string& label) const {
    auto trees = treesOf(label);
    return trees.empty() ? std::map<std::string, std::string>{} : trees.front();
  }
  // Every tree it printed: one, or a striped send's, one per stripe
  // ("stripe 2 tree (parent>node): ...").
  std::vector<std::map<std::string, std::string>> treesOf(const std::string& label) const {
    std::vector<std::map<std::string, std::string>> trees;
    const std::string err = readWhole(errPath(label));
    const std::string head = "tree (parent>node):";
    for (auto at = err.find(head); at != std::string::npos; at = err.find(head, at + head.size())) {
      auto end = err.find('\n', at);
      if (end == std::string::npos) break;
      std::map<std::string, std::string> parent;
      std::istringstream words(err.substr(at + head.size(), end - at - head.size()));
      for (std::string edge; words >> edge;)
        if (auto gt = edge.find('>'); gt != std::string::npos) parent[edge.substr(gt + 1)] = edge.substr(0, gt);
      trees.push_back(std::move(parent));
    }
    return trees;
  }

  // Bytes of `dest` (relative to each root) the agents hold, finished or
  // not, over agents x size: the send's progress as the disks see it (the
  // blocks a part file holds: a striped one is written at several offsets).
  double progress(const std::string& dest, std::uintmax_t size) const {
    std::uintmax_t held = 0;
    const fs::path rel(dest);
    const std::string prefix = "." + rel.filename().string() + ".hnow-";
    for (int k = 1; k <= agents_; ++k) {
      std::error_code error;
      const fs::path final = root(k) / rel;
      if (fs::exists(final, error)) {
        held += size;
        continue;
      }
      std::uintmax_t best = 0;
      for (const auto& e : fs::directory_iterator(final.parent_path(), error))
        if (e.path().filename().string().rfind(prefix, 0) == 0) {
          struct stat info {};
          if (::stat(e.path().c_str(), &info) == 0)
            best = std::max(best, std::min<std::uintmax_t>(size, static_cast<std::uintmax_t>(info.st_blocks) * 512));
        }
      held += best;
    }
    return static_cast<double>(held) / static_cast<double>(size * static_cast<std::uintmax_t>(agents_));
  }

  // A small send to every agent alive now: the daemons serve the next request.
  // Checks every copy; true when it all worked.
  bool followUpSend(const std::string& dest, int expectedCopies) {
    const std::string bytes = writeRandomFile(dir.path / "small.bin", 64 * 1024 + expectedCopies, ++followUps_);
    auto r = runCommand(hnow() + " send " + (dir.path / "small.bin").string() + " --dest " + dest + " --json");
    if (r.status != 0) {
      MESSAGE("the follow-up send failed (" << r.status << "): " << r.err);
      return false;
    }
    auto report = nlohmann::json::parse(r.out);
    bool ok = report["copies"].size() == static_cast<std::size_t>(expectedCopies) && report["failed"].empty();
    for (const auto& copy : report["copies"]) ok = ok && readWhole(copy["path"].get<std::string>()) == bytes;
    return ok;
  }

 private:
  int agents_;
  std::uint64_t followUps_ = 0;  // each follow-up's bytes are new: sent, not copied from an earlier one
  std::vector<std::unique_ptr<ChildProcess>> restarted_;
};

}  // namespace hnow::testing
