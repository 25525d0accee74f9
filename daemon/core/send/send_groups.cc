// SendService's trees whose agents lack different files (bundle_groups.h):
// one bundle for all, or one per group of agents, sent at once, answered
// under one id.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "core/send/bundle_groups.h"
#include "core/send/send_family.h"
#include "core/send/send_service_state.h"

namespace hnow::daemon {

// Per-group bundles are taken while predicted no slower than one bundle
// for all by more than this: they move fewer bytes (each agent receives
// only what its group lacks), but every byte hnowd sends twice leaves its
// uplink twice.
inline constexpr double kGroupsSlower = 0.10;

namespace {

std::uint64_t bytesOf(const std::vector<bool>& files, const std::vector<std::uint64_t>& sizes) {
  std::uint64_t sum = 0;
  for (std::size_t k = 0; k < files.size() && k < sizes.size(); ++k) sum += files[k] ? sizes[k] : 0;
  return sum;
}

// A group's share of hnowd's uplink: its bundle's share of the bytes the
// groups' bundles take from hnowd together (a group that needs only the
// listing still gets a little).
double shareOf(std::uint64_t bytes, std::uint64_t total, std::size_t groups) {
  if (total == 0) return 1.0 / static_cast<double>(groups);
  return std::max(1e-3, static_cast<double>(bytes) / static_cast<double>(total));
}

// Kumar & Ross's bound where each agent lacks its own files: hnowd sends
// every byte some agent lacks at least once, each agent receives all it
// lacks, and every byte received is sent by hnowd or an agent:
// max(U/u_s, max L_a/d_a, Sum L_a/(u_s + Sum u_a)), L_a what agent a
// lacks, U their union. `nodes`: hnowd, then the agents as `agentMissing`.
double lackedBound(const std::vector<TreeNode>& nodes, const std::vector<std::vector<bool>>& agentMissing,
                   const std::vector<bool>& missing, const std::vector<std::uint64_t>& sizes) {
  const double up = nodes[0].rates.uplinkBytesPerSecond;
  double bound = up > 0 ? static_cast<double>(bytesOf(missing, sizes)) / up : 0.0;
  double lacked = 0.0, uploads = up;
  for (std::size_t a = 0; a < agentMissing.size() && a + 1 < nodes.size(); ++a) {
    const double l = static_cast<double>(bytesOf(agentMissing[a], sizes));
    const planner::NodeRates& r = nodes[a + 1].rates;
    if (r.downlinkBytesPerSecond > 0) bound = std::max(bound, l / r.downlinkBytesPerSecond);
    lacked += l;
    if (nodes[a + 1].relays) uploads += r.uplinkBytesPerSecond;  // a relay suspect uploads nothing
  }
  return uploads > 0 ? std::max(bound, lacked / uploads) : bound;
}

}  // namespace

void SendService::packFor(SendRequest request, std::vector<AgentView> chosen, std::shared_ptr<const TreeScan> scan,
                          const HeldTree& held, Started started) {
  if (request.cancelled()) {
    plane_.dropScan(scan->id);
    return endCancelled(request, started);
  }
  std::vector<BundleGroup> groups;
  if (scan->sizes.size() == scan->entries && held.agentMissing.size() == chosen.size())
    groups = groupByMissing(held.agentMissing, scan->sizes);
  std::vector<std::vector<AgentView>> agents;
  if (groups.size() > 1) {
    // Weighed as they would run: each group's broadcast at once, on its share of hnowd's uplink.
    auto predicted = [this](const SendRequest& r, const std::vector<AgentView>& to, std::uint64_t bytes) {
      auto plan = planSendTree(r.algo, planNodes(r, to), std::max<std::uint64_t>(bytes, 1), chunkBytes_, true);
      return plan ? plan->predictedSeconds : INFINITY;
    };
    std::uint64_t total = 0;
    for (const BundleGroup& g : groups) total += g.bytes;
    double apart = 0.0;
    for (const BundleGroup& g : groups) {
      agents.emplace_back();
      for (std::size_t a : g.agents) agents.back().push_back(chosen[a]);
      SendRequest r = request;
      r.sourceShare = shareOf(g.bytes, total, groups.size());
      apart = std::max(apart, predicted(r, agents.back(), g.bytes));
    }
    const std::uint64_t unionBytes = bytesOf(held.missing, scan->sizes);
    const double together = predicted(request, chosen, unionBytes);
    spdlog::info("send {}: {} groups of agents by the files they lack: {:.2f} s predicted with a bundle each "
                 "({} bytes from hnowd), {:.2f} s with one bundle for all ({} bytes each)",
                 request.path, groups.size(), apart, total, together, unionBytes);
    if (apart > together * (1 + kGroupsSlower)) groups.clear(), agents.clear();
  }
  std::vector<std::vector<bool>> sends;
  for (const BundleGroup& g : groups) sends.push_back(g.missing);
  if (sends.empty()) sends.push_back(held.missing);
  const std::uint64_t queryBytes = held.queryBytes;
  TreeSummary lacked;  // what some agent lacked, whichever bundles carry it
  for (std::size_t k = 0; k < held.missing.size(); ++k) lacked.sentFiles += held.missing[k];
  lacked.sentBytes = bytesOf(held.missing, scan->sizes);
  const double boundS =
      sends.size() > 1 ? lackedBound(planNodes(request, chosen), held.agentMissing, held.missing, scan->sizes) : 0.0;
  plane_.packScanned(scan->id, sends, held.byDigest,
                     [this, request, chosen, agents, started, queryBytes, lacked,
                      boundS](const Result<std::vector<TreeBundle>>& packed) mutable {
    if (!packed) return started(packed.error());
    if (request.cancelled()) {
      for (const TreeBundle& b : *packed) plane_.dropScratch(b.path);
      return endCancelled(request, started);
    }
    std::vector<TreeBundle> bundles = *packed;
    for (TreeBundle& b : bundles) {
      b.summary.atomic = request.copy.atomic;
      b.summary.deleteOthers = request.copy.deleteOthers;
      b.summary.queryBytes = queryBytes;
    }
    const TreeSummary& s = bundles.front().summary;
    if (bundles.size() == 1) {
      spdlog::info("packed {}: {} of its {} files ({} of {} bytes) some agent lacks, {} entries, {} left out, "
                   "{} bytes of queries",
                   request.path, s.sentFiles, s.files, s.sentBytes, s.fileBytes, s.entries, s.refusedCount,
                   s.queryBytes);
      return startPlanned(request, chosen, std::unique_ptr<HeldBundle>(new HeldBundle{plane_, bundles.front()}),
                          started);
    }
    TreeSummary whole = s;
    whole.sentFiles = lacked.sentFiles;
    whole.sentBytes = lacked.sentBytes;
    for (std::size_t g = 0; g < bundles.size(); ++g)
      spdlog::info("packed {} for group {} of {} ({} agents): {} of its {} files ({} bytes)", request.path, g + 1,
                   bundles.size(), agents[g].size(), bundles[g].summary.sentFiles, whole.files,
                   bundles[g].summary.sentBytes);
    startGroups(request, std::move(agents), std::move(bundles), whole, boundS, started);
  });
}

void SendService::startGroups(SendRequest request, std::vector<std::vector<AgentView>> agents,
                              std::vector<TreeBundle> bundles, TreeSummary whole, double boundS,
                              Started started) {
  auto family = std::make_shared<Family>();
  family->id = runs_.nextId();
  family->request = request;
  family->end.request = request;
  family->end.record = request.record;
  family->whole = whole;
  family->boundS = boundS;
  family->skipped = skippedOf(request);
  family->waiting = bundles.size();
  family->started = std::move(started);
  family->cancel = request.cancel;
  family->children.assign(bundles.size(), 0);
  std::uint64_t total = 0;
  for (const TreeBundle& b : bundles) total += b.size;
  for (std::size_t g = 0; g < bundles.size(); ++g) {
    BundleGroupStatus group;
    for (const AgentView& a : agents[g]) group.agents.push_back(a.record.name);
    group.sentFiles = bundles[g].summary.sentFiles;
    group.sentBytes = bundles[g].summary.sentBytes;
    group.size = bundles[g].size;
    family->groups.push_back(std::move(group));
  }
  families_[family->id] = family;
  for (std::size_t g = 0; g < bundles.size(); ++g) {
    SendRequest r = request;
    r.group = g + 1;
    r.groups = bundles.size();
    r.sourceShare = shareOf(bundles[g].size, total, bundles.size());
    auto bundle = std::unique_ptr<HeldBundle>(new HeldBundle{plane_, bundles[g]});
    startPlanned(r, agents[g], std::move(bundle),
                 [this, family, g, request](const Result<std::pair<std::uint64_t, SendStatus>>& s) {
                   const std::string& path = request.path;
                   if (s && runs_.knows(s->first)) {
                     family->children[g] = s->first;
                   } else if (s) {  // cancelled before it started (endCancelled)
                     family->groups[g].error = "cancelled by " + s->second.cancelledBy + " before it started";
                   } else {
                     family->groups[g].error = s.error().message;
                     spdlog::warn("send {}: group {} of {} did not start: {}", path, g + 1, family->groups.size(),
                                  s.error().message);
                   }
                   if (family->children[g] == 0) {  // its agents got nothing: missed (owed with --until-all)
                     const std::vector<std::string>& agents = family->groups[g].agents;
                     family->end.missed.insert(family->end.missed.end(), agents.begin(), agents.end());
                   }
                   if (--family->waiting > 0) return;
                   if (std::none_of(family->children.begin(), family->children.end(),
                                    [](std::uint64_t id) { return id != 0; })) {
                     families_.erase(family->id);
                     if (request.cancelled()) return endCancelled(request, family->started);
                     std::string why;
                     for (const BundleGroupStatus& k : family->groups) why += (why.empty() ? "" : "; ") + k.error;
                     return family->started(Error{why});
                   }
                   familyStarted(*family);
                 });
  }
}

std::uint64_t SendService::operationOf(OperationId record) const {
  if (record == 0) return 0;
  for (const auto& [id, family] : families_)
    for (std::uint64_t child : family->children)
      if (auto s = runs_.status(child); child != 0 && s && s->record == static_cast<std::uint64_t>(record)) return id;
  return runs_.withRecord(record);
}

bool SendService::cancel(OperationId record, const std::string& who) {
  if (auto p = preparing_.find(record); p != preparing_.end()) {
    const std::shared_ptr<SendCancel> flag = p->second.cancel;
    cancelPreparing(flag, who);
    // A tree's groups that run already stop too.
    for (const auto& [id, family] : families_)
      if (family->cancel == flag)
        for (std::uint64_t child : family->children)
          if (child != 0) runs_.cancel(child, who);
    return true;
  }
  const std::uint64_t send = runs_.runningWithRecord(record);
  if (send == 0) return false;
  for (const auto& [id, family] : families_) {
    const std::vector<std::uint64_t>& children = family->children;
    if (std::find(children.begin(), children.end(), send) == children.end()) continue;
    for (std::uint64_t child : children)
      if (child != 0) runs_.cancel(child, who);
    // Its groups still prepared never start.
    cancelPreparing(family->cancel, who);
    return true;
  }
  return runs_.cancel(send, who);
}

void SendService::forgetFamilies() {
  std::erase_if(families_, [this](const auto& entry) {
    const Family& f = *entry.second;
    return f.waiting == 0 && std::none_of(f.children.begin(), f.children.end(),
                                          [this](std::uint64_t id) { return runs_.knows(id); });
  });
}

}  // namespace hnow::daemon
