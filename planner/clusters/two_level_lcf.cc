#include "planner/clusters/two_level_lcf.h"

#include <algorithm>
#include <queue>
#include <set>

#include "planner/schedule_check.h"

namespace hnow::planner {

namespace {

struct Event {
  enum Kind { kArrive, kFree, kGlobalEnd };
  double time;
  Kind kind;
  int node;
  bool operator>(const Event& o) const { return time > o.time; }
};

// Clusters other than K0 in the order they are sent a copy: larger `key`
// first, then larger size, then lower index.
std::vector<int> clusterOrder(const TwoLevelInstance& instance, const std::vector<int>& key) {
  std::vector<int> order;
  for (int c = 1; c < static_cast<int>(instance.sizes.size()); ++c) order.push_back(c);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (key[a] != key[b]) return key[a] > key[b];
    return instance.sizes[a] > instance.sizes[b];
  });
  return order;
}

class LcfEngine {
 public:
  LcfEngine(const TwoLevelInstance& instance, const LcfPhases& phases)
      : in_(instance),
        phases_(phases),
        layout_(instance.sizes),
        lcfOrder_(clusterOrder(instance, instance.sizes)),
        spreadOrder_(clusterOrder(instance, instance.needed)),
        holding_(layout_.clusters(), 0),
        nextFresh_(layout_.clusters(), 0),
        reached_(layout_.clusters(), 0) {
    reached_[0] = 1;
    nextFresh_[0] = 1;
    holding_[0] = 1;
    holders_ = 1;
    unreached_ = layout_.clusters() - 1;
    for (int c = 1; c < layout_.clusters(); ++c)
      if (in_.needed[c] > 0) ++spreadUnreached_;
  }

  Schedule run() {
    events_.push({0.0, Event::kFree, 0});
    while (!events_.empty()) {
      const double now = events_.top().time;
      while (!events_.empty() && (events_.top().time <= now || sameTime(events_.top().time, now))) {
        apply(events_.top());
        events_.pop();
      }
      lcfPhase_ = lcfPhase_ && holders_ < phases_.lcfCopies;
      // Holders with no local work left take the global transfers first, so
      // that a cluster's local broadcast is not held up by its own senders.
      std::vector<int> ready(idle_.begin(), idle_.end());
      std::stable_partition(ready.begin(), ready.end(), [&](int v) { return !localWorkLeft(v); });
      for (int v : ready) {
        Decision d = decide(v, now);
        if (d != Decision::kWait) idle_.erase(v);
      }
    }
    return std::move(schedule_);
  }

 private:
  enum class Decision { kBusy, kWait, kRetire };

  void apply(const Event& e) {
    switch (e.kind) {
      case Event::kArrive:
        ++holders_;
        ++holding_[layout_.clusterOf(e.node)];
        idle_.insert(e.node);
        break;
      case Event::kFree: idle_.insert(e.node); break;
      case Event::kGlobalEnd: --globalsInFlight_; break;
    }
  }

  bool localWorkLeft(int v) const {
    const int c = layout_.clusterOf(v);
    return nextFresh_[c] < (lcfPhase_ ? layout_.size(c) : in_.needed[c]);
  }

  bool globalSlotFree() const {
    return phases_.maxGlobal <= 0 || globalsInFlight_ < phases_.maxGlobal;
  }

  // The first cluster in `order` not sent a copy yet; advances `cursor`.
  int nextUnreached(const std::vector<int>& order, size_t& cursor) {
    while (cursor < order.size() && reached_[order[cursor]]) ++cursor;
    return order[cursor];
  }

  void send(int from, int to, double now) {
    const bool isGlobal = layout_.clusterOf(from) != layout_.clusterOf(to);
    const double length = isGlobal ? in_.globalTime : in_.localTime;
    const bool postal = in_.model == TwoLevelModel::kPostal;
    schedule_.push_back({from, to, now, now + length});
    events_.push({now + length, Event::kArrive, to});
    events_.push({now + (postal ? in_.localTime : length), Event::kFree, from});
    if (isGlobal) {
      ++globalsInFlight_;
      events_.push({now + length, Event::kGlobalEnd, to});
    }
  }

  void sendGlobal(int from, int cluster, double now) {
    reached_[cluster] = 1;
    --unreached_;
    if (in_.needed[cluster] > 0) --spreadUnreached_;
    nextFresh_[cluster] = 1;
    send(from, layout_.firstNode(cluster), now);
  }

  // A local transfer to the lowest untargeted node among the cluster's first `limit`.
  bool trySendLocal(int from, int limit, double now) {
    const int c = layout_.clusterOf(from);
    if (nextFresh_[c] >= limit) return false;
    send(from, layout_.firstNode(c) + nextFresh_[c]++, now);
    return true;
  }

  Decision decide(int v, double now) {
    const int c = layout_.clusterOf(v);
    if (lcfPhase_) {
      // §3 step 2(a): a cluster whose nodes all hold the message sends to the
      // largest clusters without one; footnote 1: so does everyone once the
      // holders can cover every cluster still without a copy.
      const bool complete = holding_[c] == layout_.size(c);
      const bool interrupt = phases_.footnoteInterrupt && unreached_ > 0 && holders_ >= unreached_;
      if ((complete || interrupt) && unreached_ > 0 && globalSlotFree()) {
        sendGlobal(v, nextUnreached(lcfOrder_, lcfCursor_), now);
        return Decision::kBusy;
      }
      // §3 step 2(b): local broadcast of the whole cluster (reached only
      // without an interrupt, or when max_global leaves no global slot).
      if (trySendLocal(v, layout_.size(c), now)) return Decision::kBusy;
      return complete && unreached_ == 0 ? Decision::kRetire : Decision::kWait;
    }
    // §4 phase 2 / §5.3 phase 2: one copy to each cluster that needs one.
    if (spreadUnreached_ > 0 && globalSlotFree()) {
      sendGlobal(v, nextUnreached(spreadOrder_, spreadCursor_), now);
      return Decision::kBusy;
    }
    // §4 phase 3: local broadcast to the cluster's members.
    if (trySendLocal(v, in_.needed[c], now)) return Decision::kBusy;
    return spreadUnreached_ > 0 ? Decision::kWait : Decision::kRetire;
  }

  const TwoLevelInstance& in_;
  LcfPhases phases_;
  ClusterLayout layout_;
  std::vector<int> lcfOrder_, spreadOrder_;
  size_t lcfCursor_ = 0, spreadCursor_ = 0;
  std::vector<int> holding_;    // per cluster: nodes holding the message
  std::vector<int> nextFresh_;  // per cluster: positions below were sent to (a prefix)
  std::vector<char> reached_;   // per cluster: a copy was sent to it
  long long holders_ = 0;
  int unreached_ = 0, spreadUnreached_ = 0, globalsInFlight_ = 0;
  bool lcfPhase_ = true;
  std::set<int> idle_;  // holders free to send, in index order
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  Schedule schedule_;
};

}  // namespace

Schedule runLcfPhases(const TwoLevelInstance& instance, const LcfPhases& phases) {
  if (instance.sizes.empty()) return {};
  return LcfEngine(instance, phases).run();
}

int clustersNeedingCopy(const TwoLevelInstance& instance) {
  int count = 0;
  for (size_t c = 1; c < instance.needed.size(); ++c)
    if (instance.needed[c] > 0) ++count;
  return count;
}

Schedule largestClusterFirst(const TwoLevelInstance& instance) {
  const ClusterLayout layout(instance.sizes);
  return runLcfPhases(instance, {.lcfCopies = layout.nodes()});
}

Schedule lcfMulticast(const TwoLevelInstance& instance) {
  return runLcfPhases(instance, {.lcfCopies = clustersNeedingCopy(instance)});
}

Schedule boundedSizeLcf(const TwoLevelInstance& instance, int maxGlobal) {
  if (maxGlobal <= 0) {  // no bound: the unbounded algorithms
    return instance.needed == instance.sizes ? largestClusterFirst(instance) : lcfMulticast(instance);
  }
  const ClusterLayout layout(instance.sizes);
  const int kPrime = clustersNeedingCopy(instance);
  // §5.3: B <= floor(N/2) without loss; §5.4: k' <= B is LCF Multicast.
  const long long copies = std::max(1, std::min(maxGlobal, layout.nodes() / 2));
  // A multicast to every node is a broadcast: §5.3, not §5.4.
  const bool multicastFits = instance.needed != instance.sizes && kPrime <= maxGlobal;
  return runLcfPhases(instance,
                      {.lcfCopies = multicastFits ? kPrime : copies, .maxGlobal = maxGlobal});
}

}  // namespace hnow::planner
