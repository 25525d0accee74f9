#include "planner/multicast/multicast_check.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <unordered_map>

namespace hnow::planner {

namespace {

std::string describe(const MulticastTransfer& x) {
  std::ostringstream out;
  out << "message " << x.message << " " << x.from << "->" << x.to << " (send [" << x.sendStart
      << ", " << x.sendEnd << "], receive posted " << x.posted << ", [" << x.recvStart << ", "
      << x.recvEnd << "])";
  return out.str();
}

bool notBefore(double a, double b) { return a >= b || sameTime(a, b); }

// (message, from, to) identifies a transfer: each destination receives a message once.
long long keyOf(const MulticastInstance& instance, int k, int from, int to) {
  const long long n = instance.nodeCount();
  return (static_cast<long long>(k) * n + from) * n + to;
}

struct Busy {
  double start;
  double end;
  int transfer;
};

}  // namespace

Result<double> checkMulticast(const MulticastInstance& instance,
                              std::span<const MulticastTransfer> transfers) {
  const int n = instance.nodeCount();
  const int messages = instance.messageCount();
  std::vector<char> isDestination(static_cast<size_t>(messages) * n, 0);
  for (int k = 0; k < messages; ++k)
    for (int d : instance.messages[k].destinations) isDestination[k * n + d] = 1;
  // When each (message, node) receive ends; -1: never.
  std::vector<double> receivedAt(static_cast<size_t>(messages) * n, -1.0);
  std::vector<std::vector<Busy>> busy(n);
  double makespan = 0.0;

  for (int t = 0; t < static_cast<int>(transfers.size()); ++t) {
    const MulticastTransfer& x = transfers[t];
    if (x.message < 0 || x.message >= messages) return Error{describe(x) + ": no such message"};
    if (x.from < 0 || x.from >= n || x.to < 0 || x.to >= n)
      return Error{describe(x) + ": node index out of range"};
    if (x.from == x.to) return Error{describe(x) + ": a node cannot send to itself"};
    const int k = x.message;
    if (!isDestination[k * n + x.to])
      return Error{describe(x) + ": the receiver is not a destination of the message"};
    if (receivedAt[k * n + x.to] >= 0) return Error{describe(x) + ": the receiver already got the message"};
    for (double time : {x.sendStart, x.sendEnd, x.posted, x.recvStart, x.recvEnd})
      if (!std::isfinite(time)) return Error{describe(x) + ": a time is not finite"};
    if (!notBefore(x.sendStart, 0.0)) return Error{describe(x) + ": starts before time 0"};
    if (!sameTime(x.sendEnd - x.sendStart, instance.sendTime(x.from, k)))
      return Error{describe(x) + ": the send must last S = " + std::to_string(instance.sendTime(x.from, k))};
    if (!sameTime(x.recvEnd - x.recvStart, instance.recvTime(x.to, k)))
      return Error{describe(x) + ": the receive must last R = " + std::to_string(instance.recvTime(x.to, k))};
    const double arrival = x.sendEnd + instance.wireTime(x.from, x.to, k);
    if (!notBefore(x.posted, 0.0)) return Error{describe(x) + ": posted before time 0"};
    if (!sameTime(x.recvStart, std::max(arrival, x.posted)))
      return Error{describe(x) + ": a blocking receive processes the message when it is both posted and arrived (at " +
                   std::to_string(std::max(arrival, x.posted)) + ")"};
    receivedAt[k * n + x.to] = x.recvEnd;
    busy[x.from].push_back({x.sendStart, x.sendEnd, t});
    busy[x.to].push_back({x.posted, x.recvEnd, t});
    makespan = std::max(makespan, x.recvEnd);
  }

  // Relays: a sender other than the source holds the message before sending it.
  for (const MulticastTransfer& x : transfers) {
    if (x.from == instance.messages[x.message].source) continue;
    double held = receivedAt[x.message * n + x.from];
    if (held < 0)
      return Error{describe(x) + ": the sender never receives the message (only the source and its destinations relay)"};
    if (!notBefore(x.sendStart, held))
      return Error{describe(x) + ": the sender relays before its receive ends at " + std::to_string(held)};
  }

  for (int v = 0; v < n; ++v) {
    auto& tasks = busy[v];
    std::sort(tasks.begin(), tasks.end(),
              [](const Busy& a, const Busy& b) { return a.start < b.start || (a.start == b.start && a.end < b.end); });
    for (size_t i = 1; i < tasks.size(); ++i)
      if (!notBefore(tasks[i].start, tasks[i - 1].end))
        return Error{"node " + std::to_string(v) + " runs two tasks at once: " +
                     describe(transfers[tasks[i - 1].transfer]) + " and " + describe(transfers[tasks[i].transfer])};
  }

  for (int k = 0; k < messages; ++k)
    for (int d : instance.messages[k].destinations)
      if (receivedAt[k * n + d] < 0)
        return Error{"node " + std::to_string(d) + " never receives message " + std::to_string(k)};
  return makespan;
}

Result<std::vector<MulticastTransfer>> simulateTaskLists(
    const MulticastInstance& instance, const std::vector<std::vector<MulticastTask>>& taskLists) {
  const int n = instance.nodeCount();
  if (static_cast<int>(taskLists.size()) != n) return Error{"one task list per node is needed"};
  // Every send must be matched by exactly one receive, and the reverse.
  std::unordered_map<long long, int> sends, receives;
  for (int v = 0; v < n; ++v) {
    for (const MulticastTask& task : taskLists[v]) {
      if (task.message < 0 || task.message >= instance.messageCount() || task.peer < 0 ||
          task.peer >= n || task.peer == v)
        return Error{"node " + std::to_string(v) + " has a task with a bad message or peer"};
      long long key = task.send ? keyOf(instance, task.message, v, task.peer)
                                : keyOf(instance, task.message, task.peer, v);
      if ((task.send ? sends : receives)[key]++)
        return Error{"node " + std::to_string(v) + " lists the same task twice"};
    }
  }
  for (auto& [key, count] : sends)
    if (!receives.count(key)) return Error{"a send task has no matching receive task"};
  for (auto& [key, count] : receives)
    if (!sends.count(key)) return Error{"a receive task has no matching send task"};

  std::unordered_map<long long, double> sendEnded, sendStarted;
  std::vector<size_t> next(n, 0);
  std::vector<double> clock(n, 0.0);
  std::vector<char> holds(static_cast<size_t>(instance.messageCount()) * n, 0);
  for (int k = 0; k < instance.messageCount(); ++k) holds[k * n + instance.messages[k].source] = 1;
  std::vector<MulticastTransfer> out;
  size_t remaining = 0;
  for (const auto& list : taskLists) remaining += list.size();

  while (remaining > 0) {
    bool progress = false;
    for (int v = 0; v < n; ++v) {
      while (next[v] < taskLists[v].size()) {
        const MulticastTask& task = taskLists[v][next[v]];
        const int k = task.message;
        if (task.send) {
          if (!holds[k * n + v])
            return Error{"node " + std::to_string(v) + " sends message " + std::to_string(k) +
                             " before it holds it"};
          long long key = keyOf(instance, k, v, task.peer);
          sendStarted[key] = clock[v];
          clock[v] += instance.sendTime(v, k);
          sendEnded[key] = clock[v];
        } else {
          long long key = keyOf(instance, k, task.peer, v);
          auto sent = sendEnded.find(key);
          if (sent == sendEnded.end()) break;  // the sender has not reached this send yet
          MulticastTransfer x;
          x.message = k;
          x.from = task.peer;
          x.to = v;
          x.sendStart = sendStarted[key];
          x.sendEnd = sent->second;
          x.posted = clock[v];
          x.recvStart = std::max(x.sendEnd + instance.wireTime(x.from, v, k), x.posted);
          x.recvEnd = x.recvStart + instance.recvTime(v, k);
          clock[v] = x.recvEnd;
          holds[k * n + v] = 1;
          out.push_back(x);
        }
        ++next[v];
        --remaining;
        progress = true;
      }
    }
    if (!progress) return Error{"the task lists wait on each other forever"};
  }
  std::stable_sort(out.begin(), out.end(), [](const MulticastTransfer& a, const MulticastTransfer& b) {
    return a.recvEnd < b.recvEnd;
  });
  return out;
}

Result<double> checkMulticastPlan(const MulticastInstance& instance, const MulticastPlan& plan) {
  auto simulated = simulateTaskLists(instance, plan.taskLists);
  if (!simulated) return Error{"the task lists cannot run: " + simulated.error().message};
  if (simulated->size() != plan.transfers.size())
    return Error{"the task lists hold " + std::to_string(simulated->size()) + " transfers, the plan " +
                 std::to_string(plan.transfers.size())};
  std::unordered_map<long long, int> planned;
  for (int t = 0; t < static_cast<int>(plan.transfers.size()); ++t) {
    const MulticastTransfer& x = plan.transfers[t];
    if (x.from < 0 || x.from >= instance.nodeCount() || x.to < 0 || x.to >= instance.nodeCount() ||
        x.message < 0 || x.message >= instance.messageCount())
      return Error{describe(x) + ": index out of range"};
    planned[keyOf(instance, x.message, x.from, x.to)] = t;
  }
  for (int v = 0; v < instance.nodeCount(); ++v) {
    for (const MulticastTask& task : plan.taskLists[v]) {
      const int t = task.transfer;
      if (t < 0 || t >= static_cast<int>(plan.transfers.size())) return Error{"a task names no transfer"};
      const MulticastTransfer& x = plan.transfers[t];
      bool matches = x.message == task.message &&
                     (task.send ? (x.from == v && x.to == task.peer) : (x.to == v && x.from == task.peer));
      if (!matches) return Error{"node " + std::to_string(v) + "'s task list names the wrong transfer for " + describe(x)};
    }
  }
  for (const MulticastTransfer& s : *simulated) {
    auto it = planned.find(keyOf(instance, s.message, s.from, s.to));
    if (it == planned.end()) return Error{describe(s) + ": in the task lists but not in the plan"};
    const MulticastTransfer& x = plan.transfers[it->second];
    if (!sameTime(x.sendStart, s.sendStart) || !sameTime(x.sendEnd, s.sendEnd) ||
        !sameTime(x.posted, s.posted) || !sameTime(x.recvStart, s.recvStart) ||
        !sameTime(x.recvEnd, s.recvEnd))
      return Error{"the plan says " + describe(x) + " but its task lists run it as " + describe(s)};
  }
  Result<double> check = checkMulticast(instance, plan.transfers);
  if (check && !sameTime(*check, plan.makespan))
    return Error{"the plan reports makespan " + std::to_string(plan.makespan) + " but its last receive ends at " +
                 std::to_string(*check)};
  return check;
}

}  // namespace hnow::planner
