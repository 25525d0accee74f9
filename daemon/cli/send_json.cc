// The one file of the send command that includes nlohmann/json (slow to compile).
#include <nlohmann/json.hpp>

#include "cli/send_command.h"

namespace hnow::cli {

namespace {

nlohmann::ordered_json problemsJson(const std::vector<api::PathProblem>& problems) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& p : problems) out.push_back({{"path", p.path}, {"why", p.why}});
  return out;
}

}  // namespace

std::string sendJson(const api::SendStatus& s) {
  nlohmann::ordered_json copies = nlohmann::ordered_json::array(), failed = nlohmann::ordered_json::array();
  for (const auto& c : s.copies) {
    if (c.state == api::CopyStatus::State::kDone) {
      copies.push_back({{"node", c.node},
                        {"path", c.path},
                        {"sha256", c.sha256},
                        {"finished_s", c.finishedS},
                        {"planned_s", c.plannedS},
                        {"parent", c.parent},
                        {"corrupt_chunks", c.corruptChunks}});
      copies.back()["held_s"] = c.heldS;
      if (!c.stripeParents.empty()) {
        copies.back()["stripe_parents"] = c.stripeParents;
        copies.back()["stripe_held_s"] = c.stripeHeldS;
      }
      if (c.tree)
        copies.back()["tree"] = {{"files", c.tree->files},
                                 {"bytes", c.tree->bytes},
                                 {"held", c.tree->held},
                                 {"copied", c.tree->copied},
                                 {"replaced", c.tree->replaced},
                                 {"deleted", c.tree->deleted},
                                 {"failed_count", c.tree->failedCount},
                                 {"failed", problemsJson(c.tree->failed)}};
    } else {
      failed.push_back({{"node", c.node}, {"reason", c.message.empty() ? "not finished" : c.message}});
    }
  }
  nlohmann::ordered_json root;
  // The operation's ID, as `hnow ops` lists it and `hnow ops show`, `wait` and `hnow cancel` take it.
  root["id"] = s.record != 0 ? nlohmann::ordered_json(s.record) : nlohmann::ordered_json(nullptr);
  root["algo"] = s.algo;
  root["size"] = s.size;
  root["predicted_s"] = s.predictedS;
  root["actual_s"] = s.elapsedS;
  nlohmann::ordered_json considered = nlohmann::ordered_json::array();
  for (const auto& o : s.considered)
    considered.push_back({{"algo", o.algo}, {"mode", o.mode}, {"predicted_s", o.predictedSeconds}});
  root["considered"] = std::move(considered);
  root["fluid_bound_s"] = s.fluidBoundS;
  root["kumar_ross_bound_s"] = s.boundS > 0 ? nlohmann::ordered_json(s.boundS) : nlohmann::ordered_json(nullptr);
  root["why"] = s.why;
  // The plan's stripes: each one's bytes, and who fed whom in it.
  nlohmann::ordered_json stripes = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k + 1 < s.stripeOffsets.size(); ++k) {
    nlohmann::ordered_json parents = nlohmann::ordered_json::object();
    for (const auto& c : s.copies)
      if (k < c.stripeParents.size()) parents[c.node] = c.stripeParents[k];
    stripes.push_back({{"offset", s.stripeOffsets[k]},
                       {"length", s.stripeOffsets[k + 1] - s.stripeOffsets[k]},
                       {"parents", std::move(parents)}});
  }
  root["stripes"] = std::move(stripes);
  root["replanning"] = s.replanning;
  root["replans"] = s.replans;
  root["replanned_predicted_s"] = s.replannedPredictedS > 0 ? nlohmann::ordered_json(s.replannedPredictedS)
                                                            : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json changes = nlohmann::ordered_json::array();
  for (const auto& c : s.parentChanges)
    changes.push_back({{"node", c.node},
                       {"old_parent", c.oldParent},
                       {"new_parent", c.newParent},
                       {"at_s", c.atS},
                       {"reason", c.reason}});
  root["parent_changes"] = std::move(changes);
  root["rate_bounds"] = s.rateBounds;
  root["copies"] = std::move(copies);
  root["failed"] = std::move(failed);
  nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
  for (const auto& k : s.skipped) skipped.push_back({{"node", k.node}, {"why", k.why}});
  root["skipped"] = std::move(skipped);
  root["held"] = s.held;
  nlohmann::ordered_json copiedHere = nlohmann::ordered_json::array();
  for (const auto& c : s.copiedHere) copiedHere.push_back({{"agent", c.agent}, {"from", c.path}});
  root["copied_here"] = std::move(copiedHere);
  root["source"] = s.source.empty() ? std::string("hnowd") : s.source;
  root["replaced"] = s.replaced;
  if (s.tree)
    root["tree"] = {{"entries", s.tree->entries},     {"files", s.tree->files},
                    {"file_bytes", s.tree->fileBytes}, {"sent_files", s.tree->sentFiles},
                    {"sent_bytes", s.tree->sentBytes}, {"atomic", s.tree->atomic},
                    {"delete", s.tree->deleteOthers},  {"query_bytes", s.tree->queryBytes},
                    {"refused_count", s.tree->refusedCount}, {"refused", problemsJson(s.tree->refused)}};
  if (s.tree) {
    nlohmann::ordered_json groups = nlohmann::ordered_json::array();
    for (const auto& g : s.groups)
      groups.push_back({{"agents", g.agents},
                        {"sent_files", g.sentFiles},
                        {"sent_bytes", g.sentBytes},
                        {"size", g.size},
                        {"algo", g.algo},
                        {"predicted_s", g.predictedS},
                        {"actual_s", g.finished ? nlohmann::ordered_json(g.elapsedS) : nlohmann::ordered_json(nullptr)},
                        {"error", g.error.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(g.error)}});
    root["tree"]["groups"] = std::move(groups);
  }
  if (!s.compression.algo.empty())
    root["compression"] = {{"algo", s.compression.algo},
                           {"plain_bytes", s.compression.plainBytes},
                           {"sent_bytes", s.compression.sentBytes},
                           {"why", s.compression.why},
                           {"compress_s", s.compression.compressS}};
  root["max_rate_bps"] = s.maxRateBytesPerSecond > 0 ? nlohmann::ordered_json(s.maxRateBytesPerSecond * 8)
                                                     : nlohmann::ordered_json(nullptr);
  // Names are printable already (hnowd and the agents escape them); replace guards the rest.
  return root.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace hnow::cli
