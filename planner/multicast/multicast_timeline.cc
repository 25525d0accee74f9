#include "planner/multicast/multicast_timeline.h"

#include <algorithm>

namespace hnow::planner {

MulticastTimeline::MulticastTimeline(const MulticastInstance& instance, bool preemptive)
    : instance_(instance), preemptive_(preemptive), n_(instance.nodeCount()) {
  size_t deliveries = 0;
  for (const MulticastMessage& m : instance.messages) deliveries += m.destinations.size();
  transfers_.reserve(deliveries);
  tailEnd_.assign(n_, 0.0);
  changes_.assign(n_, 0);
  listLength_.assign(n_, 0);
  const size_t cells = static_cast<size_t>(instance.messageCount()) * n_;
  if (preemptive_) {
    tasks_.reserve(n_ + 2 * deliveries);
    tasks_.resize(n_);  // the heads
    tail_.resize(n_);
    lastSend_.resize(n_);
    for (int v = 0; v < n_; ++v) tail_[v] = lastSend_[v] = v;
    receiveTask_.assign(cells, -1);
  }
  holds_.assign(cells, 0);
  pending_.assign(cells, 0);
  for (int k = 0; k < instance.messageCount(); ++k) {
    holds_[k * n_ + instance.messages[k].source] = 1;
    for (int d : instance.messages[k].destinations) pending_[k * n_ + d] = 1;
  }
}

MulticastTimeline::Slot MulticastTimeline::slotFor(int i, int k) const {
  // Figure 16: after the last send (sends keep their order) and after the
  // receive of m_k (a node relays only what it holds)...
  int target = lastSend_[i];
  if (i != instance_.messages[k].source) {
    int received = receiveTask_[k * n_ + i];
    // Completions strictly increase along a list (positive overheads), so
    // the later completion is the later task.
    if (tasks_[received].end > tasks_[target].end) target = received;
  }
  // ...everything after `target` is a receive. Skip those whose wait for
  // their message is shorter than the send (Equation 10).
  const double send = instance_.sendTime(i, k);
  for (int next = tasks_[target].next; next != -1; next = tasks_[next].next) {
    if (tasks_[next].processStart - tasks_[target].end >= send) break;
    target = next;
  }
  return {target, tasks_[target].end};
}

double MulticastTimeline::completeTime(int i, int j, int k) const {
  return completion(arrival(sendAvailable(i, k), instance_.sendTime(i, k), instance_.wireTime(i, j, k)),
                    receiveAvailable(j), instance_.recvTime(j, k));
}

int MulticastTimeline::newTask(const Task& task) {
  tasks_.push_back(task);
  return static_cast<int>(tasks_.size()) - 1;
}

void MulticastTimeline::commit(int i, int j, int k) {
  const Slot slot = preemptive_ ? slotFor(i, k) : Slot{-1, tailEnd_[i]};
  // Filled in place: a transfer built on the stack and copied was read back
  // with wider loads than it was written with, a store-forwarding stall
  // that cost a tenth of the receiver-first heuristics' time.
  MulticastTransfer& x = transfers_.emplace_back();
  x.message = k;
  x.from = i;
  x.to = j;
  x.sendStart = slot.start;
  x.sendEnd = x.sendStart + instance_.sendTime(i, k);
  x.posted = receiveAvailable(j);
  x.recvStart = std::max(arrivalAfter(x.sendEnd, instance_.wireTime(i, j, k)), x.posted);
  x.recvEnd = x.recvStart + instance_.recvTime(j, k);
  if (preemptive_) {
    commitPreemptive(i, j, k, slot, x);
  } else {  // §4: both tasks are appended
    tailEnd_[i] = x.sendEnd;
    tailEnd_[j] = x.recvEnd;
  }
  holds_[k * n_ + j] = 1;
  pending_[k * n_ + j] = 0;
  ++changes_[i], ++changes_[j];
  ++listLength_[i], ++listLength_[j];
}

void MulticastTimeline::append(int i, int j, int k, double send, double wire, double receive) {
  MulticastTransfer& x = transfers_.emplace_back();
  x.message = k;
  x.from = i;
  x.to = j;
  x.sendStart = tailEnd_[i];
  x.sendEnd = x.sendStart + send;
  x.posted = tailEnd_[j];
  x.recvStart = std::max(arrivalAfter(x.sendEnd, wire), x.posted);
  x.recvEnd = x.recvStart + receive;
  tailEnd_[i] = x.sendEnd;
  tailEnd_[j] = x.recvEnd;
  holds_[k * n_ + j] = 1;
  pending_[k * n_ + j] = 0;
  ++changes_[i], ++changes_[j];
  ++listLength_[i], ++listLength_[j];
}

void MulticastTimeline::commitPreemptive(int i, int j, int k, const Slot& slot, const MulticastTransfer& x) {
  const int transfer = static_cast<int>(transfers_.size()) - 1;  // x, the last one

  // Figure 13: the send goes right after `slot.after`. A receive that now
  // follows it is posted when the send ends; its processing is unchanged
  // because the send fits in its wait.
  const int send = newTask({true, k, j, transfer, x.sendEnd, 0.0, tasks_[slot.after].next});
  tasks_[slot.after].next = send;
  if (tail_[i] == slot.after) tail_[i] = send;
  lastSend_[i] = send;
  if (int following = tasks_[send].next; following != -1)
    transfers_[tasks_[following].transfer].posted = x.sendEnd;
  tailEnd_[i] = tasks_[tail_[i]].end;

  // Figure 14: the receive is appended.
  const int receive = newTask({false, k, i, transfer, x.recvEnd, x.recvStart, -1});
  tasks_[tail_[j]].next = receive;
  tail_[j] = receive;
  tailEnd_[j] = x.recvEnd;
  receiveTask_[k * n_ + j] = receive;
}

void MulticastTimeline::fillTaskLists(MulticastPlan& out) const {
  out.taskLists.resize(n_);
  for (int v = 0; v < n_; ++v) out.taskLists[v].reserve(listLength_[v]);
  if (!preemptive_) {  // appended in scheduling order
    for (int t = 0; t < static_cast<int>(transfers_.size()); ++t) {
      const MulticastTransfer& x = transfers_[t];
      out.taskLists[x.from].push_back({true, x.message, x.to, t});
      out.taskLists[x.to].push_back({false, x.message, x.from, t});
    }
  } else {
    for (int v = 0; v < n_; ++v)
      for (int t = tasks_[v].next; t != -1; t = tasks_[t].next)
        out.taskLists[v].push_back({tasks_[t].send, tasks_[t].message, tasks_[t].peer, tasks_[t].transfer});
  }
  for (const MulticastTransfer& x : transfers_) out.makespan = std::max(out.makespan, x.recvEnd);
}

MulticastPlan MulticastTimeline::plan() const {
  MulticastPlan out;
  fillTaskLists(out);
  out.transfers = transfers_;
  return out;
}

MulticastPlan MulticastTimeline::takePlan() {
  MulticastPlan out;
  fillTaskLists(out);
  out.transfers = std::move(transfers_);
  transfers_.clear();
  return out;
}

}  // namespace hnow::planner
