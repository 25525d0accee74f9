#include "core/send/bundle_groups.h"

#include <algorithm>
#include <limits>
#include <map>

namespace hnow::daemon {

namespace {

// A group while merging: its files as ascending scan entries (what agents
// lack is usually few of a tree's files, so lists beat bitmaps here).
struct Forming {
  std::vector<std::size_t> agents;
  std::vector<std::size_t> files;
  std::uint64_t bytes = 0;
};

std::uint64_t bytesOf(const std::vector<std::size_t>& files, const std::vector<std::uint64_t>& sizes) {
  std::uint64_t sum = 0;
  for (std::size_t k : files) sum += sizes[k];
  return sum;
}

// What merging a and b wastes: each agent of a receives b's files a does
// not carry, and the other way round.
std::uint64_t mergeWaste(const Forming& a, const Forming& b, const std::vector<std::uint64_t>& sizes) {
  std::uint64_t onlyA = 0, onlyB = 0;
  std::size_t i = 0, j = 0;
  while (i < a.files.size() || j < b.files.size()) {
    if (j == b.files.size() || (i < a.files.size() && a.files[i] < b.files[j])) {
      onlyA += sizes[a.files[i++]];
    } else if (i == a.files.size() || b.files[j] < a.files[i]) {
      onlyB += sizes[b.files[j++]];
    } else {
      ++i, ++j;
    }
  }
  return a.agents.size() * onlyB + b.agents.size() * onlyA;
}

Forming merged(const Forming& a, const Forming& b, const std::vector<std::uint64_t>& sizes) {
  Forming out;
  std::merge(a.agents.begin(), a.agents.end(), b.agents.begin(), b.agents.end(), std::back_inserter(out.agents));
  std::set_union(a.files.begin(), a.files.end(), b.files.begin(), b.files.end(), std::back_inserter(out.files));
  out.bytes = bytesOf(out.files, sizes);
  return out;
}

}  // namespace

std::vector<BundleGroup> groupByMissing(const std::vector<std::vector<bool>>& agentMissing,
                                        const std::vector<std::uint64_t>& sizes, std::size_t maxGroups) {
  const std::size_t entries = sizes.size();
  // Exact groups: the agents lacking the same files.
  std::vector<Forming> groups;
  std::map<std::vector<std::size_t>, std::size_t> byFiles;
  std::uint64_t lacked = 0;  // what the agents lack, all summed: the least any grouping moves
  for (std::size_t a = 0; a < agentMissing.size(); ++a) {
    std::vector<std::size_t> files;
    for (std::size_t k = 0; k < entries && k < agentMissing[a].size(); ++k)
      if (agentMissing[a][k]) files.push_back(k);
    auto [at, added] = byFiles.try_emplace(files, groups.size());
    if (added) groups.push_back({{}, std::move(files), 0});
    Forming& g = groups[at->second];
    g.agents.push_back(a);
    if (added) g.bytes = bytesOf(g.files, sizes);
    lacked += g.bytes;
  }
  const std::uint64_t allowed = std::max<std::uint64_t>(
      kGroupWasteBytes, static_cast<std::uint64_t>(kGroupWasteShare * static_cast<double>(lacked)));
  // Each pair's waste, kept as groups merge: only the merged group's pairs change.
  const std::size_t n = groups.size();
  std::vector<std::vector<std::uint64_t>> waste(n, std::vector<std::uint64_t>(n, 0));
  std::vector<bool> alive(n, true);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) waste[i][j] = waste[j][i] = mergeWaste(groups[i], groups[j], sizes);
  std::uint64_t wasted = 0;  // by the merges so far
  for (std::size_t count = n; count > 1; --count) {
    std::uint64_t least = std::numeric_limits<std::uint64_t>::max();
    std::size_t bi = 0, bj = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; alive[i] && j < n; ++j)
        if (alive[j] && waste[i][j] < least) least = waste[i][j], bi = i, bj = j;
    if (count <= maxGroups && wasted + least > allowed) break;
    wasted += least;
    groups[bi] = merged(groups[bi], groups[bj], sizes);
    alive[bj] = false;
    groups[bj] = {};
    for (std::size_t k = 0; k < n; ++k)
      if (alive[k] && k != bi) waste[bi][k] = waste[k][bi] = mergeWaste(groups[bi], groups[k], sizes);
  }
  std::vector<BundleGroup> out;
  for (std::size_t i = 0; i < n; ++i) {
    if (!alive[i]) continue;
    BundleGroup g;
    g.agents = std::move(groups[i].agents);
    g.missing.assign(entries, false);
    for (std::size_t k : groups[i].files) g.missing[k] = true;
    g.bytes = groups[i].bytes;
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(),
            [](const BundleGroup& a, const BundleGroup& b) { return a.agents.front() < b.agents.front(); });
  return out;
}

std::uint64_t wastedBytes(const std::vector<BundleGroup>& groups, const std::vector<std::vector<bool>>& agentMissing,
                          const std::vector<std::uint64_t>& sizes) {
  std::uint64_t wasted = 0;
  for (const BundleGroup& g : groups)
    for (std::size_t a : g.agents)
      for (std::size_t k = 0; k < sizes.size(); ++k)
        if (g.missing[k] && !(k < agentMissing[a].size() && agentMissing[a][k])) wasted += sizes[k];
  return wasted;
}

}  // namespace hnow::daemon
