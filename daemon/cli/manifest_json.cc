// The one file of the manifest command that includes nlohmann/json (slow to compile).
#include <nlohmann/json.hpp>

#include "cli/manifest_command.h"

namespace hnow::cli {

std::string manifestJson(const api::ManifestStatus& s) {
  using Json = nlohmann::ordered_json;
  Json items = Json::array();
  for (const auto& item : s.items) {
    Json copies = Json::array(), failed = Json::array();
    for (const auto& c : item.send.copies) {
      if (c.state == api::CopyStatus::State::kDone)
        copies.push_back({{"node", c.node},
                          {"path", c.path},
                          {"sha256", c.sha256},
                          {"finished_s", c.finishedS},
                          {"planned_s", c.plannedS},
                          {"parent", c.parent},
                          {"corrupt_chunks", c.corruptChunks}});
      else
        failed.push_back({{"node", c.node}, {"reason", c.message.empty() ? "not finished" : c.message}});
    }
    items.push_back({{"source", item.source},
                     {"file", item.file},
                     {"dest", item.dest},
                     {"size", item.send.size},
                     {"predicted_s", item.send.predictedS},
                     {"actual_s", item.send.elapsedS},
                     {"copies", std::move(copies)},
                     {"failed", std::move(failed)}});
    Json skipped = Json::array();
    for (const auto& k : item.send.skipped) skipped.push_back({{"node", k.node}, {"why", k.why}});
    items.back()["skipped"] = std::move(skipped);
  }
  Json considered = Json::array();
  for (const auto& o : s.considered)
    considered.push_back({{"algo", o.algo}, {"mode", o.mode}, {"predicted_s", o.predictedSeconds}});
  Json root;
  root["algo"] = s.algo;
  root["predicted_s"] = s.predictedS;
  root["actual_s"] = s.elapsedS;
  root["replans"] = s.replans;
  root["sequential_predicted_s"] = s.sequentialS;
  root["lower_bound_s"] = s.lowerBoundS;
  root["considered"] = std::move(considered);
  root["items"] = std::move(items);
  return root.dump(2) + "\n";
}

}  // namespace hnow::cli
