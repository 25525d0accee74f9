#pragma once
// The exact optimum of a tiny two-level instance (seed 001), written out
// independently of planner/: a breadth-first search over whole-round states
// with local time 1 and an integer global time C. With integer durations an
// optimal schedule can start every transfer at an integer time (each start
// can be moved back to the end of whatever it waits for), so rounds suffice.
// Every round each free holder may idle or send to any free node without the
// message; nodes of a cluster are interchangeable except for group
// membership, so states are sorted within (cluster, member) groups.
#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

namespace hnow::testing {

struct TinyTwoLevel {
  std::vector<int> sizes;
  std::vector<int> needed;  // the first needed[i] nodes of cluster i need the message
  int C = 2;
  bool postal = false;
  std::vector<int> degree;  // per cluster, 0 = no limit (blocking only)
  int maxGlobal = 0;        // 0 = no limit (blocking only)
  // Only schedules of seed 001 §6.2's set S: exactly one global transfer
  // into each cluster but K0, none into K0.
  bool oneCopyPerCluster = false;
};

namespace detail {

// A node: what it is doing this round and for how many more rounds.
enum Kind : uint8_t { kWithout = 0, kHolder = 1, kSending = 2, kReceiving = 3, kIncoming = 4 };
// kind in the top three bits, a global flag, then up to 15 rounds left.
inline uint8_t code(int kind, bool global, int rounds) {
  return static_cast<uint8_t>(kind * 32 + (global ? 16 : 0) + rounds);
}
inline int kindOf(uint8_t c) { return c / 32; }
inline bool globalOf(uint8_t c) { return (c / 16) % 2; }
inline int roundsOf(uint8_t c) { return c % 16; }

struct Search {
  const TinyTwoLevel& in;
  std::vector<int> clusterOf, first;
  int nodes = 0;

  explicit Search(const TinyTwoLevel& instance) : in(instance) {
    for (int c = 0; c < static_cast<int>(in.sizes.size()); ++c) {
      first.push_back(nodes);
      for (int j = 0; j < in.sizes[c]; ++j) clusterOf.push_back(c);
      nodes += in.sizes[c];
    }
  }

  // The state: one code per node, then one "has its copy" flag per cluster.
  void canonical(std::vector<uint8_t>& s) const {
    for (int c = 0; c < static_cast<int>(in.sizes.size()); ++c) {
      auto begin = s.begin() + first[c];
      std::sort(begin, begin + in.needed[c]);
      std::sort(begin + in.needed[c], begin + in.sizes[c]);
    }
  }

  bool done(const std::vector<uint8_t>& s) const {
    for (int c = 0; c < static_cast<int>(in.sizes.size()); ++c)
      for (int j = 0; j < in.needed[c]; ++j) {
        int k = kindOf(s[first[c] + j]);
        if (k != kHolder && k != kSending) return false;
      }
    return true;
  }

  // Applies `sends` (sender, receiver) and advances one round.
  std::vector<uint8_t> step(std::vector<uint8_t> s, const std::vector<std::pair<int, int>>& sends) const {
    for (auto [from, to] : sends) {
      const bool global = clusterOf[from] != clusterOf[to];
      const int length = global ? in.C : 1;
      if (global) s[nodes + clusterOf[to]] = 1;
      if (in.postal) {
        s[to] = code(kIncoming, global, length);
      } else {
        s[from] = code(kSending, global, length);
        s[to] = code(kReceiving, global, length);
      }
    }
    for (int v = 0; v < nodes; ++v) {
      int k = kindOf(s[v]);
      if (k == kSending || k == kReceiving || k == kIncoming) {
        int left = roundsOf(s[v]) - 1;
        s[v] = left == 0 ? code(kHolder, false, 0) : code(k, globalOf(s[v]), left);
      }
    }
    canonical(s);
    return s;
  }

  bool allowed(const std::vector<uint8_t>& s, const std::vector<std::pair<int, int>>& sends) const {
    const int k = static_cast<int>(in.sizes.size());
    std::vector<int> inGlobal(k, 0), copiesInto(k, 0);
    int globals = 0;
    for (int v = 0; v < nodes; ++v) {
      int kind = kindOf(s[v]);
      if ((kind == kSending || kind == kReceiving) && globalOf(s[v])) {
        ++inGlobal[clusterOf[v]];
        if (kind == kSending) ++globals;
      }
    }
    for (auto [from, to] : sends) {
      if (clusterOf[from] == clusterOf[to]) continue;
      ++globals;
      ++inGlobal[clusterOf[from]];
      ++inGlobal[clusterOf[to]];
      ++copiesInto[clusterOf[to]];
    }
    if (in.maxGlobal > 0 && globals > in.maxGlobal) return false;
    for (int c = 0; c < k; ++c) {
      if (c < static_cast<int>(in.degree.size()) && in.degree[c] > 0 && inGlobal[c] > in.degree[c])
        return false;
      if (in.oneCopyPerCluster && copiesInto[c] > 0 && (c == 0 || copiesInto[c] > 1 || s[nodes + c]))
        return false;
    }
    return true;
  }

  // Every choice of (idle or receiver) for each free holder, holders of one
  // cluster choosing in non-decreasing order (they are interchangeable).
  void expand(const std::vector<uint8_t>& s, std::set<std::vector<uint8_t>>& next) const {
    std::vector<int> senders;
    std::vector<int> receivers;  // first free node without the message of each group
    std::vector<std::vector<int>> groupFree;
    for (int v = 0; v < nodes; ++v)
      if (kindOf(s[v]) == kHolder) senders.push_back(v);
    for (int c = 0; c < static_cast<int>(in.sizes.size()); ++c)
      for (int member = 0; member < 2; ++member) {
        std::vector<int> free;
        int lo = member ? 0 : in.needed[c], hi = member ? in.needed[c] : in.sizes[c];
        for (int j = lo; j < hi; ++j)
          if (kindOf(s[first[c] + j]) == kWithout) free.push_back(first[c] + j);
        if (!free.empty()) groupFree.push_back(free);
      }
    std::vector<int> used(groupFree.size(), 0);
    std::vector<std::pair<int, int>> sends;
    recurse(s, senders, 0, -1, groupFree, used, sends, next);
  }

  void recurse(const std::vector<uint8_t>& s, const std::vector<int>& senders, size_t i, int lastChoice,
               const std::vector<std::vector<int>>& groupFree, std::vector<int>& used,
               std::vector<std::pair<int, int>>& sends, std::set<std::vector<uint8_t>>& next) const {
    if (i == senders.size()) {
      if (allowed(s, sends)) next.insert(step(s, sends));
      return;
    }
    const bool sameClusterAsPrevious = i > 0 && clusterOf[senders[i - 1]] == clusterOf[senders[i]];
    const int from = sameClusterAsPrevious ? lastChoice : -1;
    for (int choice = std::max(from, -1); choice < static_cast<int>(groupFree.size()); ++choice) {
      if (choice < 0) {
        recurse(s, senders, i + 1, -1, groupFree, used, sends, next);
        continue;
      }
      if (used[choice] == static_cast<int>(groupFree[choice].size())) continue;
      sends.push_back({senders[i], groupFree[choice][used[choice]++]});
      recurse(s, senders, i + 1, choice, groupFree, used, sends, next);
      --used[choice];
      sends.pop_back();
    }
  }
};

}  // namespace detail

// The optimal makespan in rounds, or -1 if it exceeds `horizon`.
inline int bruteForceTwoLevel(const TinyTwoLevel& in, int horizon = 40) {
  if (in.C < 1 || in.C > 15) return -1;
  detail::Search search(in);
  std::vector<uint8_t> start(search.nodes + in.sizes.size(), 0);
  start[0] = detail::code(detail::kHolder, false, 0);
  search.canonical(start);
  std::set<std::vector<uint8_t>> layer{start};
  for (int t = 0; t <= horizon; ++t) {
    for (const auto& s : layer)
      if (search.done(s)) return t;
    std::set<std::vector<uint8_t>> next;
    for (const auto& s : layer) search.expand(s, next);
    layer = std::move(next);
  }
  return -1;
}

}  // namespace hnow::testing
