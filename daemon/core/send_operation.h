#pragma once
// One `hnow send` in hnowd (issue 6): who pulls from whom, what each agent
// reported, and the re-parenting when a node is lost or fails: its children
// pull from its nearest living ancestor, resuming from the bytes they hold.
// Logic only: time through Clock, commands through SendCommands.
#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/send_tree.h"

namespace hnow::daemon {

class SendCommands {
 public:
  virtual ~SendCommands() = default;
  // Tell agent `node` to (re)connect to `parentAddress` and pull.
  virtual void pull(const std::string& node, const std::string& parentAddress) = 0;
};

struct TransferReport {
  enum class State { kProgress, kDone, kFailed, kParentLost };
  State state = State::kProgress;
  std::uint64_t bytes = 0;
  std::uint64_t corruptChunks = 0;
  std::string message;
  std::string path;
  std::string sha256;
};

struct CopyStatus {
  enum class State { kWaiting, kReceiving, kDone, kFailed };
  std::string node;
  std::string parent;
  State state = State::kWaiting;
  std::uint64_t bytes = 0;
  double finishedS = 0.0;
  double plannedS = 0.0;
  std::string path;
  std::string sha256;
  std::string message;
  std::uint64_t corruptChunks = 0;
};

struct SendStatus {
  bool finished = false;
  std::string algo;
  std::uint64_t size = 0;
  double predictedS = 0.0;
  double elapsedS = 0.0;  // until the last copy finished, once finished
  std::vector<CopyStatus> copies;
  std::vector<PlanOption> considered;  // SendTree::considered
  double fluidBoundS = 0.0;
};

class SendOperation {
 public:
  // `names[0]`/`addresses[0]` are the source's; paths are the agents' final paths.
  SendOperation(const Clock& clock, SendTree tree, std::vector<std::string> names,
                std::vector<std::string> addresses, std::vector<std::string> paths,
                std::uint64_t size, std::string sha256Hex, SendCommands& commands);

  // Every agent pulls from its parent; the clock starts.
  void start();
  void report(const std::string& node, const TransferReport& report);
  // The agent is gone (connection ended or heartbeats stopped).
  void lost(const std::string& node);

  bool finished() const;
  SendStatus status() const;
  bool involves(const std::string& node) const { return indexOf(node) > 0; }

 private:
  int indexOf(const std::string& node) const;
  void fail(int node, const std::string& message);

  const Clock& clock_;
  SendTree tree_;
  std::vector<std::string> names_;
  std::vector<std::string> addresses_;
  std::uint64_t size_;
  std::string sha256Hex_;
  SendCommands& commands_;
  std::vector<CopyStatus> copies_;  // index 0 unused (the source)
  // Failed or lost: children must not pull from it (a lost node may have finished).
  std::vector<bool> cannotServe_;
  TimePoint started_{};
  TimePoint ended_{};
};

}  // namespace hnow::daemon
