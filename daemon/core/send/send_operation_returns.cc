// A send's agents lost and back: one that reports again after it was lost
// (it kept its transfer), and one that logs in afresh, a new process that
// holds nothing of the send but what its earlier one left on disk.
#include "core/send/send_operation.h"

namespace hnow::daemon {

void SendOperation::lost(const std::string& node) {
  const int i = indexOf(node);
  if (i <= 0) return;
  const bool wasReceiving = copies_[static_cast<std::size_t>(i)].state == CopyStatus::State::kReceiving;
  fail(i, "agent lost");
  // Told twice (its connection ended, then the next tick found it silent):
  // the first time stands, or a copy lost while receiving could never resume.
  if (!wasReceiving) return;
  failedAsLost_[static_cast<std::size_t>(i)] = true;
  lostAt_[static_cast<std::size_t>(i)] = clock_.now();
}

// It reports again (seen in netns.replan_test: heartbeats queued behind
// data on a link cut with tc made hnowd declare a working agent lost). Its
// copy resumes where it is and it may serve again (its children, moved
// when it was lost, stay where they are); if its own parent cannot serve
// any more it pulls from the nearest one still standing, from its bytes.
void SendOperation::comeBack(std::size_t node, bool pullsNothing) {
  failedAsLost_[node] = false;
  cannotServe_[node] = barred_[node];
  CopyStatus& copy = copies_[node];
  copy.state = CopyStatus::State::kReceiving;
  copy.message.clear();
  note_ = names_[node] + " reports again after it was lost: its copy resumes";
  const int parent = standing(tree_.parent[node]);
  // While it was failed its parent may have changed in the tree without a
  // pull sent to it: it is told again unless it pulls from that one already.
  if (parent != pulledFrom_[node]) {
    tree_.parent[node] = pulledFrom_[node];
    moveTo(node, parent, pullsNothing ? "logged in afresh after being lost" : "back after being lost");
    return;
  }
  // Its stretch from this parent ended when it was lost; a new one begins.
  history_.moved(seconds(clock_.now() - started_), static_cast<int>(node), parent, copy.bytes,
                 pullsNothing ? "logged in afresh after being lost" : "back after being lost", replanning_.nodes);
  if (pullsNothing) {
    tree_.parent[node] = parent;
    flows_.moved(clock_.now(), static_cast<int>(node));
    commands_.pull(names_[node], addresses_[static_cast<std::size_t>(parent)]);
  }
}

bool SendOperation::awaitsReturn(const std::string& node) const {
  const int i = indexOf(node);
  return i > 0 && running_ && failedAsLost_[static_cast<std::size_t>(i)] && !finished();
}

// The same path as an agent that reports again, taken at once: its new
// process was given the receive order again (SendRuns), and takes over
// what its earlier one received, checked against the source's digests
// before it pulls (docs/send.md, "An agent that restarts mid-send").
bool SendOperation::rejoin(const std::string& node, const std::string& address) {
  const int i = indexOf(node);
  if (i <= 0) return false;
  const auto n = static_cast<std::size_t>(i);
  // Its new process listens elsewhere: children a later plan gives it connect there.
  if (!address.empty()) addresses_[n] = address;
  if (!awaitsReturn(node)) return false;
  // What its new process kept, it says at its first report (a chunk torn by the crash is not counted).
  copies_[n].bytes = 0;
  comeBack(n, true);
  note_ = node + " logged in afresh after it was lost: ordered again, it resumes from the bytes it kept";
  return true;
}

void SendOperation::refusedAgain(const std::string& node, const std::string& why) {
  const int i = indexOf(node);
  if (i <= 0 || !failedAsLost_[static_cast<std::size_t>(i)]) return;
  // Nothing more to wait for: the send may end without it.
  failedAsLost_[static_cast<std::size_t>(i)] = false;
  copies_[static_cast<std::size_t>(i)].message = "agent lost; logged in again, it refused the send: " + why;
  if (finished() && ended_ == TimePoint{}) ended_ = clock_.now();
}

}  // namespace hnow::daemon
