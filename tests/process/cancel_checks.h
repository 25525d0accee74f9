#pragma once
// What the cancel tests (cancel_test.cc, interrupt_test.cc) start and list:
// a send slow enough to be cancelled, the agents' files, the newest record.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "process/child_process.h"
#include "process/test_cluster.h"
#include "process/transfer_checks.h"

namespace hnow::testing {

namespace fs = std::filesystem;

// Every file under an agent's root, and every directory of hnow's own
// (a tree's staging, `.NAME.hnow-stage-...`), as paths relative to it.
inline std::vector<std::string> filesUnder(const fs::path& root) {
  std::vector<std::string> out;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(root, error); !error && it != fs::recursive_directory_iterator();
       it.increment(error))
    if (!it->is_directory() || it->path().filename().string().find(".hnow-stage-") != std::string::npos)
      out.push_back(fs::relative(it->path(), root).string());
  return out;
}

// The newest operation record, as `hnow ops --json` lists it.
inline nlohmann::json newestOperation(const TestCluster& cluster) {
  auto r = runCommand(cluster.hnow("ops --json"));
  if (r.status != 0) return {};
  auto ops = nlohmann::json::parse(r.out)["operations"];
  return ops.empty() ? nlohmann::json{} : ops[0];
}

// `hnow send FILE --dest in/copy.bin` paced at 8 Mbit/s (16 MiB: 16 s), FILE written here.
inline std::vector<std::string> slowSendArgs(const TestCluster& cluster) {
  const fs::path file = cluster.dir.path / "source.bin";
  writeRandomFile(file, 16 << 20);
  return {kHnowBinary, "--config", (cluster.dir.path / "client.toml").string(), "send", file.string(),
          "--dest", "in/copy.bin", "--compress", "none", "--max-rate", "8M"};
}

// That send started, its stderr in the cluster's dir.
inline std::unique_ptr<ChildProcess> slowSend(const TestCluster& cluster) {
  return std::make_unique<ChildProcess>(slowSendArgs(cluster), std::vector<std::string>{},
                                        (cluster.dir.path / "send.err").string());
}

// The record of the send under way once an agent holds a partial copy
// (a .part file); 0 if none within 15 s.
inline std::int64_t sendUnderWay(const TestCluster& cluster, const std::vector<int>& agents) {
  std::int64_t id = 0;
  const bool underWay = eventually(
      [&] {
        auto op = newestOperation(cluster);
        if (op.is_null() || op["kind"] != "send" || op["status"] != "running") return false;
        id = op["id"].get<std::int64_t>();
        for (int agent : agents)
          for (const std::string& f : filesUnder(cluster.root(agent)))
            if (f.find(".part") != std::string::npos) return true;
        return false;
      },
      std::chrono::seconds(15));
  return underWay ? id : 0;
}

}  // namespace hnow::testing
