#pragma once
// Multiple multicast in the non-blocking-send model of seed 004 §2–§3: a
// send of m bytes occupies its sender for S(i,m) = S_c + S_m·m, after which
// the sender may go on (the network finishes the transfer); the message
// arrives X(i,j)·m later; the receiver, whose receive is blocking, is then
// busy for R(j,m) = R_c + R_m·m. Several messages, each from its own source
// to its own destinations, are scheduled together; a destination that holds
// a message may relay it to other destinations of the same message (§3.1).
#include <string>
#include <vector>

#include "base/result.h"
#include "planner/transfer.h"

namespace hnow::planner {

struct MulticastNode {
  double sendOverhead = 0.0;  // S_c, seconds
  double sendPerByte = 0.0;   // S_m, seconds per byte
  double recvOverhead = 0.0;  // R_c
  double recvPerByte = 0.0;   // R_m
};

struct MulticastMessage {
  int source = 0;
  double bytes = 0.0;
  std::vector<int> destinations;  // distinct, never the source
};

struct MulticastInstance {
  std::vector<MulticastNode> nodes;
  std::vector<MulticastMessage> messages;
  // X(i,j) in seconds per byte, row-major n×n (the diagonal is unused).
  std::vector<double> linkPerByte;

  int nodeCount() const { return static_cast<int>(nodes.size()); }
  int messageCount() const { return static_cast<int>(messages.size()); }
  double link(int from, int to) const { return linkPerByte[from * nodes.size() + to]; }
  // Equations 2 and 3 for message k.
  double sendTime(int node, int k) const {
    return nodes[node].sendOverhead + nodes[node].sendPerByte * messages[k].bytes;
  }
  double recvTime(int node, int k) const {
    return nodes[node].recvOverhead + nodes[node].recvPerByte * messages[k].bytes;
  }
  double wireTime(int from, int to, int k) const { return link(from, to) * messages[k].bytes; }
};

// The same X on every link.
std::vector<double> uniformLinks(int nodeCount, double secondsPerByte);

// Done when `instance` can be planned; else the Error saying why not
// (indices out of range, a destination listed twice or equal to the source,
// overheads not positive, ...). Positive overheads keep each node's task
// completions strictly increasing, which the preemption rule of §5 relies
// on to order tasks.
Result<void> checkInstance(const MulticastInstance& instance);

// One point-to-point transfer of message k: the send occupies the sender
// over [sendStart, sendEnd]; the receiver posts its receive at `posted`
// (blocked from then on), processes it over [recvStart, recvEnd] once the
// message has arrived.
struct MulticastTransfer {
  int message = 0;
  int from = 0;
  int to = 0;
  double sendStart = 0.0;
  double sendEnd = 0.0;
  double posted = 0.0;
  double recvStart = 0.0;
  double recvEnd = 0.0;
};

// A task of seed 004 §3.1's TaskList: (send, i, peer, k) or (recv, i, peer, k).
struct MulticastTask {
  bool send = false;
  int message = 0;
  int peer = 0;
  int transfer = 0;  // index into MulticastPlan::transfers
};

struct MulticastPlan {
  std::vector<MulticastTransfer> transfers;          // in the order they were scheduled
  std::vector<std::vector<MulticastTask>> taskLists;  // per node, in execution order
  double makespan = 0.0;                              // the last receive's completion
};

// Plain transfers for the common report: send start to receive end.
Schedule asTransfers(const MulticastPlan& plan);

}  // namespace hnow::planner
