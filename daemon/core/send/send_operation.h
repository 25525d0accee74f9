#pragma once
// One `hnow send` in hnowd: who pulls from whom, what each agent
// reported, and the re-parenting when a node is lost or fails: its children
// pull from its nearest living ancestor, resuming from the bytes they hold.
// On a drift event or a loss it re-plans what is not yet delivered
// (send_replan.h) and moves only the nodes whose parent changes.
// Logic only: time through Clock, commands through SendCommands.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "core/send/held_elsewhere.h"
#include "core/links/link_verdict.h"
#include "core/trust/relay_suspects.h"
#include "core/send/send_compression.h"
#include "core/send/send_history.h"
#include "core/send/send_tree.h"
#include "core/send/skipped_agent.h"
#include "core/links/transfer_flows.h"
#include "core/send/tree_send.h"
#include "planner/node_rates.h"

namespace hnow::daemon {

class SendCommands {
 public:
  virtual ~SendCommands() = default;
  // Tell agent `node` to (re)connect to `parentAddress` and pull.
  virtual void pull(const std::string& node, const std::string& parentAddress) = 0;
};

struct TransferReport {
  // kParentCorrupt: a chunk (or a digest list) from its parent differed from
  // the source's digests; the agent dropped that parent, holds `bytes`
  // checked, and waits to be told where to pull from (`message`: what differed).
  // kParentUnreachable: the agent could not open a connection to its parent
  // (`parentAddress`) and waits to be told where else to pull from.
  enum class State { kProgress, kDone, kFailed, kParentLost, kParentCorrupt, kParentUnreachable };
  State state = State::kProgress;
  std::uint64_t bytes = 0;
  std::uint64_t corruptChunks = 0;
  std::string message;
  // kParentCorrupt: the data address of the parent the bytes came from, when
  // the agent says it; "" the one hnowd last told it to pull from.
  std::string parentAddress;
  std::string path;
  std::string sha256;
  std::optional<TreeOutcome> tree;  // done, a tree's: what the agent published
};

// The report of a send (api/send_status.h), in core's words.
using api::CopyStatus;
using api::ParentChange;
using api::SendStatus;

// What a status says of the plan itself (algo, predictions, bounds, stripes).
SendStatus planStatus(const SendTree& tree, std::uint64_t size);

// One send as SendService runs it: one tree (SendOperation) or several
// stripes (StripedSend). Reports come under a transfer token: the send's,
// or one stripe's.
class SendRun {
 public:
  virtual ~SendRun() = default;
  virtual void start() = 0;
  // True when the report shows a node lost earlier is back.
  virtual bool report(const std::string& node, const std::string& token, const TransferReport& report) = 0;
  virtual void lost(const std::string& node) = 0;
  // Its copy was lost while receiving and the send still waits for it.
  virtual bool awaitsReturn(const std::string& node) const = 0;
  // The agent logged in afresh (a new process) and took this send's
  // receive order again, its data plane now at `address`: its copy
  // resumes, told where to pull from. False when it was not awaited.
  virtual bool rejoin(const std::string& node, const std::string& address) = 0;
  // It refused the order again: its copy stays failed, saying why.
  virtual void refusedAgain(const std::string& node, const std::string& why) = 0;
  virtual bool ratesChanged(const std::string& node, const planner::NodeRates& rates, const std::string& reason) = 0;
  // The trunk of `room` is now known as `trunk` (docs/rooms.md): its
  // nodes are planned with it, replanning if that gains.
  virtual bool trunkChanged(const std::string& room, const planner::Trunk& trunk, const std::string& reason) = 0;
  virtual bool finished() const = 0;
  virtual SendStatus status() const = 0;
  virtual bool involves(const std::string& node) const = 0;
  virtual std::vector<Flow> flows(Duration window) const = 0;
  virtual const std::string& replanNote() const = 0;
  // Trees adopted and parent changes so far, without building status():
  // hnowd logs them after every loss, and a lab of hundreds losing many
  // nodes at once must not copy every change each time.
  virtual int replans() const = 0;
  virtual std::size_t parentChangeCount() const = 0;
  // The relays caught altering bytes since the last call, each once per send
  // however many of its children caught it: SendService logs and counts them.
  virtual std::vector<RelayFault> takeRelayFaults() = 0;
  // The agents a child could not connect to since the last call, each once
  // per send: they serve nobody in it, and SendService plans them as leaves.
  virtual std::vector<std::string> takeUnreachable() = 0;
};

// What replanning needs besides the tree: the rates it was planned from.
struct ReplanSettings {
  bool enabled = true;
  std::string algo = "auto";
  std::vector<TreeNode> nodes;  // as planned, [0] the source, aligned with the names
  std::uint32_t chunkBytes = 1 << 20;
  double minGain = 0.1;         // send_replan.h
};

class SendOperation final : public SendRun {
 public:
  // `names[0]`/`addresses[0]` are the source's; paths are the agents' final paths.
  SendOperation(const Clock& clock, SendTree tree, std::vector<std::string> names,
                std::vector<std::string> addresses, std::vector<std::string> paths,
                std::uint64_t size, std::string sha256Hex, SendCommands& commands);

  // Every agent pulls from its parent; the clock starts.
  void start() override;
  // True when the report shows a node lost earlier is back (lost()).
  bool report(const std::string& node, const TransferReport& report);
  bool report(const std::string& node, const std::string&, const TransferReport& r) override {
    return report(node, r);
  }
  // The agent is gone (connection ended or heartbeats stopped). One that
  // was only silent (heartbeats queued behind data on a saturated link) and
  // reports again while the send runs is back: its copy resumes.
  void lost(const std::string& node) override;
  bool awaitsReturn(const std::string& node) const override;
  // An agent that logs in afresh pulls nothing until told: it is told
  // even when its parent stays; what it holds is what it reports next.
  bool rejoin(const std::string& node, const std::string& address) override;
  void refusedAgain(const std::string& node, const std::string& why) override;
  // Another plan's parents for this send's nodes (a striped send re-shared):
  // each receiving node whose parent changes moves, resuming from the bytes
  // it holds; the others only take the new relation; parent -1 keeps a node's.
  // False, and nothing moves, when the plan gives a node a parent that may
  // not serve (failed, lost, or barred).
  bool adoptParents(const std::vector<int>& parent, const std::string& reason);
  // Node `node`'s index (1..n for the agents), -1 for none; what node i
  // holds; whether it is still receiving (not done, failed or lost).
  int nodeIndex(const std::string& node) const { return indexOf(node); }
  std::uint64_t heldBy(int i) const { return i == 0 ? size_ : copies_[static_cast<std::size_t>(i)].bytes; }
  bool receivingAt(int i) const {
    return i > 0 && copies_[static_cast<std::size_t>(i)].state == CopyStatus::State::kReceiving;
  }
  bool canServe(int i) const { return i == 0 || !cannotServe_[static_cast<std::size_t>(i)]; }
  // The copy at `node` cannot complete (a striped file's other stripe
  // failed there): it serves nobody, its children move.
  void failCopy(const std::string& node, const std::string& message) {
    if (const int i = indexOf(node); i > 0) fail(i, message);
  }
  // `node` relayed bytes that differ from the source's (caught in another
  // stripe or item of the same operation, `cause` says so): it serves nobody
  // from now on, its receiving children move, its own copy goes on.
  void barRelay(const std::string& node, const std::string& cause) {
    if (const int i = indexOf(node); i > 0) bar(i, cause);
  }
  bool barred(int i) const { return i > 0 && barred_[static_cast<std::size_t>(i)]; }

  // Without settings (or with enabled = false) the send never re-plans.
  void setReplanning(ReplanSettings settings);
  // A drift event: `node` now measures `rates`. Re-plans when enabled and
  // the node takes part; true when a new tree was adopted.
  bool ratesChanged(const std::string& node, const planner::NodeRates& rates, const std::string& reason) override;
  bool trunkChanged(const std::string& room, const planner::Trunk& trunk, const std::string& reason) override;

  bool finished() const override;
  // Its report with its picture (send_picture.h), and without: what a
  // striped send combines over its stripes before it draws them together.
  SendStatus status() const override;
  SendStatus statusOfCopies() const;
  bool involves(const std::string& node) const override { return indexOf(node) > 0; }
  // What each copy received from its parent over [now - window, now], for
  // the copies hnowd can judge (transfer_flows.h), by node name.
  std::vector<Flow> flows(Duration window) const override;
  // The last replan considered: both predictions and why it was (not) adopted.
  const std::string& replanNote() const override { return note_; }
  int replans() const override { return replans_; }
  std::size_t parentChangeCount() const override { return changes_.size(); }
  std::vector<RelayFault> takeRelayFaults() override { return std::exchange(faults_, {}); }
  std::vector<std::string> takeUnreachable() override { return std::exchange(unreachable_, {}); }
  // Reported when the send started, not since: the tree as planned.
  const SendTree& plan() const { return tree_; }
  // Every tree it ran on and what each copy received from each parent
  // (its picture, send_picture.h), over `names()`.
  const SendHistory& history() const { return history_; }
  const std::vector<std::string>& names() const { return names_; }

 private:
  int indexOf(const std::string& node) const;
  void fail(int node, const std::string& message);
  // `node` serves nobody from now on: the rest is re-planned without it, or
  // its receiving children pull from its nearest ancestor still standing.
  void stopServing(int node, const std::string& cause);
  // `node` itself when it may serve, else its nearest ancestor that may.
  int standing(int node) const;
  void bar(int node, const std::string& cause);
  void parentCorrupt(std::size_t node, const TransferReport& report);
  void parentUnreachable(std::size_t node, const TransferReport& report);
  int accusedBy(std::size_t node, const std::string& parentAddress);
  // Told to pull again from its parent (it dropped that connection).
  void pullAgain(std::size_t node, const std::string& reason);
  // `pullsNothing`: a new process of the agent, told to pull even from the parent it had.
  void comeBack(std::size_t node, bool pullsNothing = false);
  bool replan(const std::string& reason);
  void moveTo(std::size_t node, int parent, const std::string& reason);

  const Clock& clock_;
  SendTree tree_;
  std::vector<std::string> names_;
  std::vector<std::string> addresses_;
  std::uint64_t size_;
  std::string sha256Hex_;
  SendCommands& commands_;
  std::vector<CopyStatus> copies_;  // index 0 unused (the source)
  // Failed, lost or barred: children must not pull from it (a lost node may have finished).
  std::vector<bool> cannotServe_;
  // Caught relaying bytes that differ from the source's: it serves nobody
  // for the rest of the send, even back after a loss; its copy goes on.
  std::vector<bool> barred_;
  // The parent each agent was last moved away from, and the last barred one
  // it was moved off since its last corrupt report, -1 none: a report of
  // corrupt bytes may concern them (accusedBy).
  std::vector<int> movedOff_;
  std::vector<int> leftBarred_;
  std::vector<RelayFault> faults_;  // until takeRelayFaults()
  std::vector<std::string> unreachable_;  // parents a child could not connect to, until takeUnreachable()
  static constexpr int kSourceConnectTries = 3;
  std::map<std::size_t, int> sourceRefusals_;  // per node: connections to the source that failed
  std::vector<int> receivedFrom_;    // the parent when the copy finished
  std::vector<bool> failedAsLost_;   // failed only for being lost: a report brings it back
  std::vector<TimePoint> lostAt_;    // when it was lost
  // How long a send whose other copies are over waits for a lost agent to
  // report again: an agent that dropped its connection to an hnowd too busy
  // to answer logs back in within a second or two of it answering again;
  // a dead one costs the send this much more.
  static constexpr Duration kBackWithin = std::chrono::seconds(5);
  std::vector<int> pulledFrom_;      // the parent each agent was last told to pull from
  ReplanSettings replanning_;
  bool canReplan_ = false;
  bool running_ = false;
  std::string note_;
  int replans_ = 0;
  double replannedPredictedS_ = 0.0;
  std::vector<ParentChange> changes_;
  TransferFlows flows_;
  SendHistory history_;
  TimePoint started_{};
  mutable TimePoint ended_{};  // set when finished() first holds
};

}  // namespace hnow::daemon
