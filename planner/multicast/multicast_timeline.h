#pragma once
// The state every multicast heuristic of seed 004 grows one transfer at a
// time: each node's task list with completion times.
// - Without preemption (§4) a new send or receive is appended to the list:
//   Avail_i is the completion of the last task.
// - With preemption (§5, Figures 13–16) a new send may be inserted before
//   a receive that is still waiting for its message, when it fits in the
//   wait without delaying the receive (Equation 10); sends stay in order
//   and after the receive of the message they relay.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "planner/multicast/multicast.h"

namespace hnow::planner {

class MulticastTimeline {
 public:
  // `instance` must be valid (checkInstance) and outlive the timeline.
  MulticastTimeline(const MulticastInstance& instance, bool preemptive);

  // Node v holds message k: it is the source or a receive of k is scheduled.
  bool holds(int v, int k) const { return holds_[k * n_ + v]; }
  // Node v is a destination of k whose receive is not scheduled yet.
  bool pending(int k, int v) const { return pending_[k * n_ + v]; }

  // When i could start sending m_k: Avail_i, or Figure 16's SendAvailable.
  // Without preemption this is the end of the list, O(1).
  double sendAvailable(int i, int k) const { return preemptive_ ? slotFor(i, k).start : tailEnd_[i]; }
  // When j could post a new receive: Avail_j, or Figure 15's ReceiveAvailable.
  double receiveAvailable(int j) const { return tailEnd_[j]; }
  // Equation 6 with the above: when j would finish receiving m_k from i.
  double completeTime(int i, int j, int k) const;
  // Equations 5 and 6 from their parts, the one place the arithmetic is
  // written: the fast heuristics cache the parts (S, X·l) and must get the
  // same bits as the reference. That holds while the compiler does not fuse
  // a product into an add (x86-64's baseline has no FMA; elsewhere build
  // with -ffp-contract=off); tests/planner/multicast_fast_test.cc checks it.
  static double arrival(double sendStart, double send, double wire) { return arrivalAfter(sendStart + send, wire); }
  static double arrivalAfter(double sendEnd, double wire) { return sendEnd + wire; }
  static double completion(double arrival, double receiveAvailable, double receive) {
    return std::max(arrival, receiveAvailable) + receive;
  }

  // How many commits have changed v's task list. Every time above that
  // involves v (as sender or receiver) is a function of v's list, so a value
  // computed when changes(v) was c is still exact while it is c: the
  // heuristics' caches are validated this way.
  std::uint32_t changes(int v) const { return changes_[v]; }
  bool preemptive() const { return preemptive_; }

  // Schedules (send, i, j, k) and (recv, j, i, k): Figures 13 and 14, or the
  // appends of §4. Requires holds(i, k) and pending(k, j).
  void commit(int i, int j, int k);
  // The same without preemption, with S(i, l_k), X(i, j)·l_k and R(j, l_k)
  // given by a caller that has them at hand (the same products, so the same
  // bits): the instance's tables are not read again.
  void append(int i, int j, int k, double send, double wire, double receive);

  // The transfers in scheduling order and each node's task list.
  MulticastPlan plan() const;
  // The same, moving the transfers out: the timeline is left empty.
  MulticastPlan takePlan();

 private:
  struct Task {
    bool send = false;
    int message = -1;
    int peer = -1;
    int transfer = -1;
    double end = 0.0;           // completion time
    double processStart = 0.0;  // receives: when processing starts (message arrived and posted)
    int next = -1;
  };
  struct Slot {
    int after;  // the task the new send follows
    double start;
  };

  Slot slotFor(int i, int k) const;
  int newTask(const Task& task);
  void commitPreemptive(int i, int j, int k, const Slot& slot, const MulticastTransfer& x);
  void fillTaskLists(MulticastPlan& out) const;

  const MulticastInstance& instance_;
  bool preemptive_;
  int n_;
  // Without preemption every task is appended, so the lists are the
  // transfers in order and only each list's end is kept (tailEnd_). With
  // preemption the lists are linked in a pool of tasks.
  std::vector<double> tailEnd_;    // [v]: completion of v's last task (0 if none)
  std::vector<Task> tasks_;        // pool; tasks_[v] is node v's list head (a sentinel ending at 0)
  std::vector<int> tail_;          // last task of each list
  std::vector<int> lastSend_;      // last send of each list, or its head
  std::vector<int> receiveTask_;   // [k * n + v]: v's receive of m_k, or -1
  std::vector<char> holds_, pending_;
  std::vector<std::uint32_t> changes_;
  std::vector<int> listLength_;    // tasks per node, to size the plan's lists
  std::vector<MulticastTransfer> transfers_;
};

}  // namespace hnow::planner
