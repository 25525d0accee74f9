#pragma once
// A local cluster started by `hnow local up` and stopped by a guard, its
// logs, pids and addresses (the security and soak tests).
#include <filesystem>
#include <string>
#include <vector>

#include "cli/run_process.h"
#include "process/raw_peer.h"

namespace hnow::testing {

inline const std::string kHnowBinary = HNOW_BINARY;

// How many times `what` stands in `text` (log lines, `agent keys` rows).
inline std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// `hnow local up` in a fresh directory; `hnow local down` when destroyed,
// then SIGKILL to anything of ours that would not stop.
struct TestCluster {
  TempDir dir;
  ProcessResult up;
  explicit TestCluster(const std::string& options) {
    up = runCommand(kHnowBinary + " local up --dir " + dir.path.string() + " " + options);
  }
  ~TestCluster() {
    std::vector<pid_t> pids;
    std::error_code error;
    for (const auto& e : std::filesystem::directory_iterator(dir.path / "pids", error)) pids.push_back(pidOf(e.path()));
    runCommand(kHnowBinary + " local down --dir " + dir.path.string());
    for (pid_t pid : pids)
      if (processAlive(pid)) ::kill(pid, SIGKILL);
  }
  TestCluster(const TestCluster&) = delete;
  TestCluster& operator=(const TestCluster&) = delete;

  static pid_t pidOf(const std::filesystem::path& file) {
    return static_cast<pid_t>(std::stol("0" + readWhole(file)));
  }
  pid_t pid(const std::string& name) const { return pidOf(dir.path / "pids" / (name + ".pid")); }
  std::string hnow(const std::string& args) const {
    return kHnowBinary + " --config " + (dir.path / "client.toml").string() + " " + args;
  }
  std::filesystem::path root(int agent) const {
    return dir.path / "agents" / ("agent-" + std::to_string(agent)) / "files";
  }
  std::string log(const std::string& name) const { return readWhole(dir.path / "logs" / (name + ".log")); }
  bool logHas(const std::string& name, const std::string& text,
              std::chrono::steady_clock::duration within = std::chrono::seconds(3)) const {
    return eventually([&]() { return log(name).find(text) != std::string::npos; }, within);
  }
  std::string hnowdAddress() const {
    std::string a = readWhole(dir.path / "hnowd" / "hnowd.address");
    while (!a.empty() && (a.back() == '\n' || a.back() == ' ')) a.pop_back();
    return a;
  }
  // host:port of an agent's data plane, from its start-up log line.
  std::string dataAddress(const std::string& agent) const {
    const std::string marker = "data plane listening on ";
    std::string text = log(agent);
    auto at = text.find(marker);
    if (at == std::string::npos) return "";
    auto end = text.find('\n', at);
    return text.substr(at + marker.size(), end - at - marker.size());
  }
};

}  // namespace hnow::testing
