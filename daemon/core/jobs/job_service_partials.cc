// A --reduce job's reduction outlives hnowd. Each partial a combine makes
// is written to state.db (StoredPartial: who made it, its file, the two it
// combines) before the combine is acknowledged, that is before its inputs
// are dropped on the agent. A restarted hnowd asks each agent which of
// those it still holds (claimHeld) and, newest first, takes every held
// partial whose shares no partial taken before covers: a top. The shares
// combined into a top are neither adopted nor computed again; they enter
// the run as done (JobRun::keepDone) and the reduction as kept partials
// under the top (JobReduction::addKeptCombined), so that the top, should
// its agent then be lost, stands for its shares as any partial does. So
// when only hnowd died, no accepted share is computed again.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>

#include "core/jobs/job_service.h"
#include "core/jobs/job_state.h"
#include "core/operation_log.h"

namespace hnow::daemon {

void JobService::keepPartial(Job& job, const StoredPartial& partial) {
  if (!job.resumable) return;
  if (auto kept = coordinator_.operationLog().keepPartial(job.record, partial); !kept)
    spdlog::error("run {}: keeping the partial combined on {} in state.db (a restart computes its shares again): {}",
                  job.record, partial.agent, kept.error().message);
}

namespace {

// The partials of an earlier reduction by token, and the share results
// (attempts) they combine.
struct KeptTree {
  std::map<std::string, const StoredPartial*> made;
  std::map<std::string, const StoredAttempt*> leaves;

  // The share results under `token` (itself, if it is one), and the
  // partials on the way; false if one is not known (or a loop, in a
  // damaged state.db).
  bool walk(const std::string& token, std::vector<std::string>& shares, std::vector<std::string>& partials,
            std::size_t depth = 0) const {
    if (leaves.count(token)) return shares.push_back(token), true;
    auto m = made.find(token);
    if (m == made.end() || depth > made.size()) return false;
    partials.push_back(token);
    return walk(m->second->input, shares, partials, depth + 1) && walk(m->second->other, shares, partials, depth + 1);
  }
};

bool overlaps(const UnitRange& a, const std::vector<UnitRange>& taken) {
  return std::any_of(taken.begin(), taken.end(), [&a](const UnitRange& b) { return a.first < b.second && b.first < a.second; });
}

}  // namespace

void JobService::restorePartials(Job& job) {
  if (!job.reduce || job.partials.empty()) return;
  KeptTree tree;
  for (const StoredPartial& p : job.partials) tree.made[p.token] = &p;
  for (const StoredAttempt& h : job.held) tree.leaves[h.resultToken] = &h;
  std::vector<UnitRange> covered;
  std::set<std::string> needed;  // held partials under a top, the top included
  // Newest first: a later partial combines earlier ones, so the largest held one is taken.
  for (auto p = job.partials.rbegin(); p != job.partials.rend(); ++p) {
    if (!heldTasks_[p->agent].count(p->token)) continue;
    std::vector<std::string> shares, partials;
    if (!tree.walk(p->token, shares, partials)) continue;
    std::vector<UnitRange> ranges;
    bool apart = true;
    for (const std::string& s : shares) {
      const StoredAttempt& h = *tree.leaves.at(s);
      const UnitRange r{h.firstUnit, h.firstUnit + h.units};
      apart = apart && !overlaps(r, covered) && !overlaps(r, ranges) && r.second <= job.units.units();
      ranges.push_back(r);
    }
    if (!apart) continue;
    covered.insert(covered.end(), ranges.begin(), ranges.end());
    job.restoredTops.push_back(p->token);
    for (const std::string& s : shares) job.restoredLeaves[s] = *tree.leaves.at(s);
    for (const std::string& t : partials)
      if (heldTasks_[tree.made.at(t)->agent].count(t)) needed.insert(t);
  }
  std::reverse(job.restoredTops.begin(), job.restoredTops.end());  // in the order made
  std::map<std::string, std::vector<std::string>> unused;
  for (const StoredPartial& p : job.partials) {
    if (!heldTasks_[p.agent].count(p.token)) continue;
    if (!needed.count(p.token)) {
      unused[p.agent].push_back(p.token);
      continue;
    }
    job.heldPartials.insert(p.token);
    job.agentTokens[p.agent].push_back(p.token);  // dropped at the job's end
  }
  for (const auto& [agent, tokens] : unused)
    if (AgentLink* link = coordinator_.link(agent)) link->dropJobFiles(tokens);
  if (!covered.empty()) {
    std::vector<UnitRange> done = covered;
    for (const auto& k : job.kept) done.push_back({k.firstUnit, k.firstUnit + k.units});
    job.todo = UnitGaps::of(job.units.units(), done);
    spdlog::info("run {}: {} partial result(s) its reduction combined before hnowd stopped are held by its agents: "
                 "their {} share(s) are reduced, not computed again",
                 job.record, job.restoredTops.size(), job.restoredLeaves.size());
  }
}

void JobService::restoreIntoRun(Job& job) {
  for (const auto& [token, h] : job.restoredLeaves) {
    auto from = job.unitStart(h.firstUnit);
    auto to = from ? job.unitStart(h.firstUnit + h.units) : from;
    if (!to) return finish(job, Error{"cannot read --input " + job.request.input + ": " + to.error().message});
    serveShare(job, job.shareTokens.size(), *from, *to - *from);  // should it be computed again
    JobShare share;
    share.firstUnit = h.firstUnit;
    share.units = h.units;
    share.agent = h.agent;
    job.restoredShare[token] = job.run->keepDone(share);
  }
}

void JobService::restoreReduction(Job& job) {
  std::map<std::string, const StoredPartial*> made;
  for (const StoredPartial& p : job.partials) made[p.token] = &p;
  // Children first, as the reduction made them.
  std::function<int(const std::string&)> add = [&](const std::string& token) -> int {
    if (auto leaf = job.restoredLeaves.find(token); leaf != job.restoredLeaves.end())
      return job.reduction->addKeptLeaf(job.restoredShare.at(token), leaf->second.agent);
    const StoredPartial& p = *made.at(token);
    const std::vector<int> children{add(p.input), add(p.other)};
    return job.reduction->addKeptCombined(children, p.agent, job.heldPartials.count(token) > 0,
                                          CombinedFile{p.size, p.token, p.digest});
  };
  for (const std::string& top : job.restoredTops) add(top);
}

}  // namespace hnow::daemon
