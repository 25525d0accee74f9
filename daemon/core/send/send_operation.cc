#include "core/send/send_operation.h"

#include <algorithm>

#include "core/send/send_picture.h"
#include "core/send/send_replan.h"

namespace hnow::daemon {

SendOperation::SendOperation(const Clock& clock, SendTree tree, std::vector<std::string> names,
                             std::vector<std::string> addresses, std::vector<std::string> paths,
                             std::uint64_t size, std::string sha256Hex, SendCommands& commands)
    : clock_(clock), tree_(std::move(tree)), names_(std::move(names)), addresses_(std::move(addresses)),
      size_(size), sha256Hex_(std::move(sha256Hex)), commands_(commands), copies_(names_.size()), cannotServe_(names_.size(), false),
      barred_(names_.size(), false), movedOff_(names_.size(), -1), leftBarred_(names_.size(), -1), receivedFrom_(names_.size(), -1), failedAsLost_(names_.size(), false), lostAt_(names_.size()), pulledFrom_(names_.size(), -1),
      flows_(names_.size()) {
  for (std::size_t i = 1; i < names_.size(); ++i) {
    copies_[i].node = names_[i];
    copies_[i].plannedS = tree_.finish[i];
    copies_[i].path = paths[i];
  }
}

int SendOperation::indexOf(const std::string& node) const {
  for (std::size_t i = 1; i < names_.size(); ++i)
    if (names_[i] == node) return static_cast<int>(i);
  return -1;
}

void SendOperation::start() {
  started_ = clock_.now();
  running_ = true;
  history_.start(tree_.parent, replanning_.nodes);
  for (std::size_t i = 1; i < names_.size(); ++i) {
    copies_[i].state = CopyStatus::State::kReceiving;
    pulledFrom_[i] = tree_.parent[i];
    commands_.pull(names_[i], addresses_[static_cast<std::size_t>(tree_.parent[i])]);
    flows_.held(started_, static_cast<int>(i), 0);
  }
}

std::vector<Flow> SendOperation::flows(Duration window) const {
  std::vector<bool> receiving(names_.size(), false), holdsAll(names_.size(), false);
  holdsAll[0] = true;
  for (std::size_t i = 1; i < names_.size(); ++i) {
    receiving[i] = copies_[i].state == CopyStatus::State::kReceiving;
    // All of this operation's bytes: a stripe held whole while its file waits for the other stripes.
    holdsAll[i] = copies_[i].state == CopyStatus::State::kDone || copies_[i].bytes >= size_;
  }
  std::vector<Flow> out;
  if (!running_) return out;
  for (const TreeFlow& f : flows_.flows(clock_.now(), window, tree_.parent, receiving, holdsAll))
    out.push_back({names_[static_cast<std::size_t>(f.from)], names_[static_cast<std::size_t>(f.to)], f.bytesPerSecond,
                   f.fed, f.starved});
  return out;
}

bool SendOperation::report(const std::string& node, const TransferReport& r) {
  const int i = indexOf(node);
  if (i < 0) return false;
  CopyStatus& copy = copies_[static_cast<std::size_t>(i)];
  const bool back = failedAsLost_[static_cast<std::size_t>(i)] && !finished() && r.state != TransferReport::State::kFailed;
  if (back) comeBack(static_cast<std::size_t>(i));
  if (copy.state == CopyStatus::State::kDone || copy.state == CopyStatus::State::kFailed) return back;
  copy.bytes = std::max(copy.bytes, r.bytes);
  if (copy.bytes >= size_ && copy.heldS == 0.0) {
    copy.heldS = seconds(clock_.now() - started_);
    history_.ended(copy.heldS, i, copy.bytes);
  }
  copy.corruptChunks = std::max(copy.corruptChunks, r.corruptChunks);
  flows_.held(clock_.now(), i, copy.bytes);
  switch (r.state) {
    case TransferReport::State::kProgress: break;
    case TransferReport::State::kParentLost: break;  // the agent retries; a lost parent is re-parented
    case TransferReport::State::kParentCorrupt: parentCorrupt(static_cast<std::size_t>(i), r); break;
    case TransferReport::State::kParentUnreachable: parentUnreachable(static_cast<std::size_t>(i), r); break;
    case TransferReport::State::kFailed: fail(i, r.message); break;
    case TransferReport::State::kDone:
      if (r.sha256 != sha256Hex_) {
        fail(i, "reported a SHA-256 that differs from the source's");
        return back;
      }
      copy.state = CopyStatus::State::kDone;
      copy.bytes = size_;
      copy.path = r.path;
      copy.sha256 = r.sha256;
      receivedFrom_[static_cast<std::size_t>(i)] = tree_.parent[static_cast<std::size_t>(i)];
      copy.finishedS = seconds(clock_.now() - started_);
      if (copy.heldS == 0.0) copy.heldS = copy.finishedS;
      history_.ended(copy.heldS, i, copy.bytes);
      break;
  }
  if (finished() && ended_ == TimePoint{}) ended_ = clock_.now();
  return back;
}

void SendOperation::fail(int node, const std::string& message) {
  CopyStatus& copy = copies_[static_cast<std::size_t>(node)];
  // Once: a node failed (or lost) already keeps its first reason. A barred
  // one still receiving fails like any other.
  if (copy.state == CopyStatus::State::kWaiting || copy.state == CopyStatus::State::kReceiving) {
    copy.state = CopyStatus::State::kFailed;
    copy.message = message;
    history_.ended(seconds(clock_.now() - started_), node, copy.bytes);
  }
  stopServing(node, names_[static_cast<std::size_t>(node)] + " failed (" + message + ")");
  if (finished() && ended_ == TimePoint{}) ended_ = clock_.now();
}

void SendOperation::stopServing(int node, const std::string& cause) {
  if (cannotServe_[static_cast<std::size_t>(node)]) return;  // its children moved then
  cannotServe_[static_cast<std::size_t>(node)] = true;
  // Re-plan the rest without it; its children move only once.
  if (replan("replan: " + cause)) return;
  // Its children pull from the nearest ancestor still standing; the source always is.
  const int ancestor = standing(tree_.parent[static_cast<std::size_t>(node)]);
  // A finished relay that is lost still has children that need a parent.
  for (std::size_t c = 1; c < names_.size(); ++c) {
    if (tree_.parent[c] != node) continue;
    if (copies_[c].state == CopyStatus::State::kReceiving)
      moveTo(c, ancestor, "nearest ancestor: " + cause);
    else
      tree_.parent[c] = ancestor;
  }
}

int SendOperation::standing(int node) const {
  while (node > 0 && cannotServe_[static_cast<std::size_t>(node)]) node = tree_.parent[static_cast<std::size_t>(node)];
  return node;
}

void SendOperation::bar(int node, const std::string& cause) {
  barred_[static_cast<std::size_t>(node)] = true;
  stopServing(node, cause);
}

// Every receiving agent checks each chunk against the digests hnowd took of
// the source (docs/security.md, "Data a relay alters"). A chunk that
// differs from a relay's convicts the relay: the
// reporter checked it against the source's digests, not the relay's word.
// From the source itself (hnowd, or the agent serving a held copy or a
// manifest item) it means the file changed after its digests were taken:
// nothing else holds the right bytes, so that copy fails.
void SendOperation::parentCorrupt(std::size_t node, const TransferReport& r) {
  const int accused = accusedBy(node, r.parentAddress);
  if (accused == 0) {
    fail(static_cast<int>(node), "the source's bytes differ from the digests taken of them: " + names_[0] +
                                     "'s file changed while it was sent (" + r.message + ")");
    return;
  }
  const int before = pulledFrom_[node];
  std::string reason = "corrupt: " + names_[node] + " dropped its parent, which sent bytes that differ from the source's";
  if (accused > 0) {
    const std::string& relay = names_[static_cast<std::size_t>(accused)];
    reason = "corrupt: " + relay + " relayed bytes that differ from the source's";
    if (!barred_[static_cast<std::size_t>(accused)]) faults_.push_back({relay, names_[node], r.bytes, r.message});
    bar(accused, reason);
  }
  // It waits to be told where to pull from: told again if barring its parent moved it nowhere.
  if (copies_[node].state == CopyStatus::State::kReceiving && pulledFrom_[node] == before) pullAgain(node, reason);
  // It reported this parent: its next report concerns the one it pulls from now.
  movedOff_[node] = leftBarred_[node] = -1;
}

// A parent its child cannot connect to (behind NAT or a firewall that drops
// inbound connections, docs/reachability.md) serves nobody for the rest of
// the send: the child is never sent back to it, its other children move
// with it, and its own copy goes on (it connects out to its own parent).
// The source cannot be replaced: that copy fails, saying which port to open.
void SendOperation::parentUnreachable(std::size_t node, const TransferReport& r) {
  int parent = pulledFrom_[node];
  if (!r.parentAddress.empty())
    for (std::size_t p = 0; p < addresses_.size(); ++p)
      if (addresses_[p] == r.parentAddress) parent = static_cast<int>(p);
  if (parent < 0) return;
  if (parent == 0) {
    // Nothing else holds the file: tried again a few times (a burst of
    // connections may have overflowed its accept queue), then the copy fails.
    if (++sourceRefusals_[node] < kSourceConnectTries) return pullAgain(node, "the source did not answer");
    fail(static_cast<int>(node), "cannot connect to " + names_[0] + "'s data plane at " + addresses_[0] + " (" +
                                     r.message + ", " + std::to_string(kSourceConnectTries) +
                                     " times): it must accept connections from the agents");
    return;
  }
  const std::string reason = "unreachable: " + names_[node] + " cannot connect to " +
                             names_[static_cast<std::size_t>(parent)] + " (" + r.message + ")";
  if (!barred_[static_cast<std::size_t>(parent)]) unreachable_.push_back(names_[static_cast<std::size_t>(parent)]);
  bar(parent, reason);
  // It waits to be told where to pull from: told now if barring the parent
  // moved it nowhere (a report about a parent it has left changes nothing).
  if (copies_[node].state == CopyStatus::State::kReceiving && pulledFrom_[node] == parent) pullAgain(node, reason);
}

// A relay that alters a chunk sends it to all its children at about the same
// time: the first report bars the relay and moves the others, whose own
// reports, sent before they heard, still concern it. A report that names its
// parent's address is taken at its word among the parents hnowd told it of
// lately (none of them: a parent left long ago, nobody to blame). Without
// it, a node's first report after it was moved off a barred parent is taken
// as that parent's; a new parent that alters bytes too is caught at the next.
int SendOperation::accusedBy(std::size_t node, const std::string& parentAddress) {
  const int current = pulledFrom_[node];
  const int former = std::exchange(movedOff_[node], -1);
  const int barredFormer = std::exchange(leftBarred_[node], -1);
  if (!parentAddress.empty()) {
    for (int parent : {current, former, barredFormer})
      if (parent >= 0 && addresses_[static_cast<std::size_t>(parent)] == parentAddress) return parent;
    return -1;
  }
  return barredFormer > 0 ? barredFormer : current;
}

void SendOperation::pullAgain(std::size_t node, const std::string& reason) {
  const int parent = standing(tree_.parent[node]);
  if (parent != tree_.parent[node]) return moveTo(node, parent, reason);
  pulledFrom_[node] = parent;
  flows_.moved(clock_.now(), static_cast<int>(node));
  commands_.pull(names_[node], addresses_[static_cast<std::size_t>(parent)]);
}

void SendOperation::setReplanning(ReplanSettings settings) {
  replanning_ = std::move(settings);
  canReplan_ = replanning_.enabled && replanning_.nodes.size() == names_.size();
}

bool SendOperation::ratesChanged(const std::string& node, const planner::NodeRates& rates,
                                 const std::string& reason) {
  // The source too: a manifest item's source is an agent whose uplink may drift.
  const int i = node == names_[0] ? 0 : indexOf(node);
  if (i < 0 || replanning_.nodes.size() != names_.size()) return false;
  replanning_.nodes[static_cast<std::size_t>(i)].rates = rates;
  return replan(reason);
}

bool SendOperation::trunkChanged(const std::string& room, const planner::Trunk& trunk, const std::string& reason) {
  if (replanning_.nodes.size() != names_.size()) return false;
  return setRoomTrunk(replanning_.nodes, room, trunk) && replan(reason);
}

bool SendOperation::replan(const std::string& reason) {
  if (!canReplan_ || !running_ || finished()) return false;
  ReplanInput in;
  in.algo = replanning_.algo;
  in.nodes = replanning_.nodes;
  in.parent = tree_.parent;
  in.size = size_;
  in.chunkBytes = replanning_.chunkBytes;
  in.minGain = replanning_.minGain;
  in.progress.resize(names_.size());
  for (std::size_t i = 1; i < names_.size(); ++i) {
    ReplanNode& p = in.progress[i];
    p.bytes = copies_[i].bytes;
    const CopyStatus::State state = copies_[i].state;
    // A barred relay still receiving is planned as a leaf; barred and done, it is out like a failed one.
    p.state = barred_[i] && state == CopyStatus::State::kReceiving ? ReplanNode::State::kReceivesOnly
              : cannotServe_[i] || state == CopyStatus::State::kFailed ? ReplanNode::State::kFailed
              : state == CopyStatus::State::kDone                      ? ReplanNode::State::kDone
                                                                       : ReplanNode::State::kReceiving;
  }
  ReplanAnswer answer = replanSend(in);
  const double now = seconds(clock_.now() - started_);
  note_ = reason + ": kept " + std::to_string(answer.keptSeconds) + " s, new " +
          std::to_string(answer.replannedSeconds) + " s" + (answer.adopt ? "" : " (" + answer.why + ")");
  if (!answer.adopt) return false;
  if (!adoptParents(answer.parent, reason)) {
    note_ += " (not adopted: it names a parent that may not serve)";
    return false;
  }
  ++replans_;
  replannedPredictedS_ = now + answer.replannedSeconds;
  return true;
}

bool SendOperation::adoptParents(const std::vector<int>& parent, const std::string& reason) {
  for (std::size_t i = 1; i < names_.size() && i < parent.size(); ++i)
    if (parent[i] > 0 && cannotServe_[static_cast<std::size_t>(parent[i])] &&
        copies_[i].state == CopyStatus::State::kReceiving)
      return false;
  for (std::size_t i = 1; i < names_.size() && i < parent.size(); ++i) {
    if (parent[i] < 0) continue;  // failed: nobody pulls from it, it pulls from nobody
    // A finished node pulls nothing: its new parent only keeps the relation a tree.
    if (copies_[i].state != CopyStatus::State::kReceiving) tree_.parent[i] = parent[i];
    else if (parent[i] != tree_.parent[i]) moveTo(i, parent[i], reason);
  }
  return true;
}


void SendOperation::moveTo(std::size_t node, int parent, const std::string& reason) {
  const int old = tree_.parent[node];
  const double atS = seconds(clock_.now() - started_);
  changes_.push_back({names_[node], names_[static_cast<std::size_t>(old)], names_[static_cast<std::size_t>(parent)],
                      atS, reason});
  history_.moved(atS, static_cast<int>(node), parent, copies_[node].bytes, reason, replanning_.nodes);
  tree_.parent[node] = parent;
  movedOff_[node] = pulledFrom_[node];
  if (movedOff_[node] > 0 && barred_[static_cast<std::size_t>(movedOff_[node])]) leftBarred_[node] = movedOff_[node];
  pulledFrom_[node] = parent;
  flows_.moved(clock_.now(), static_cast<int>(node));
  commands_.pull(names_[node], addresses_[static_cast<std::size_t>(parent)]);
}

// A copy failed only for its agent being lost may still come back: the
// send stays open kBackWithin for it (docs/reachability.md).
bool SendOperation::finished() const {
  const TimePoint now = clock_.now();
  for (std::size_t i = 1; i < copies_.size(); ++i) {
    if (copies_[i].state == CopyStatus::State::kWaiting || copies_[i].state == CopyStatus::State::kReceiving)
      return false;
    if (failedAsLost_[i] && now - lostAt_[i] < kBackWithin) return false;
  }
  if (ended_ == TimePoint{}) ended_ = now;
  return true;
}

SendStatus planStatus(const SendTree& tree, std::uint64_t size) {
  SendStatus s;
  s.algo = tree.algo;
  s.size = size;
  s.predictedS = tree.predictedSeconds;
  s.considered = tree.considered;
  s.fluidBoundS = tree.fluidBoundSeconds;
  s.rateBounds = tree.rateBounds;
  s.boundS = tree.boundSeconds;
  s.why = tree.why;
  s.stripeOffsets = tree.stripeOffsets;
  return s;
}

SendStatus SendOperation::status() const {
  SendStatus s = statusOfCopies();
  s.picture = sendPicture(s, {this});
  return s;
}

SendStatus SendOperation::statusOfCopies() const {
  SendStatus s = planStatus(tree_, size_);
  s.finished = finished();
  s.elapsedS = seconds((s.finished ? ended_ : clock_.now()) - started_);
  s.replanning = canReplan_;
  s.replans = replans_;
  s.replannedPredictedS = replannedPredictedS_;
  s.parentChanges = changes_;
  for (std::size_t i = 1; i < copies_.size(); ++i) {
    CopyStatus c = copies_[i];
    // A finished copy shows where it came from, not its place in a later plan.
    const int parent = c.state == CopyStatus::State::kDone && receivedFrom_[i] >= 0 ? receivedFrom_[i] : tree_.parent[i];
    c.parent = names_[static_cast<std::size_t>(parent)];
    s.copies.push_back(std::move(c));
  }
  return s;
}

}  // namespace hnow::daemon
