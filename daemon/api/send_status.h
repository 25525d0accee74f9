#pragma once
// What hnowd reports of one `hnow send` (transport/send.capnp
// SendReport): the plan, each copy, the replans, what was held or skipped.
// Plain values: hnowd's SendOperation fills them in, the codec
// (send_status_wire.h) carries them, the CLI prints them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/send_picture.h"
#include "api/tree_status.h"

namespace hnow::api {

// One plan a send considered and what it predicted.
struct PlanOption {
  std::string algo;  // fnf, lcf, pipelined, ...
  std::string mode;  // "pipelined" or "store-and-forward"
  double predictedSeconds = 0.0;
};

// An agent a send was for that could not take part (lost, disconnected),
// and why: it is listed, not passed over in silence.
struct SkippedAgent {
  std::string node;
  std::string why;
};

// A single file an agent held under another path of its destination's
// root (docs/send.md, "Under another path"): its --dest was written from
// that copy on the agent's own disk instead of sent.
struct HeldElsewhere {
  std::string agent;
  std::string path;  // absolute, on the agent
};

// What a send's report says of its compression (docs/compression.md).
struct SendCompression {
  std::string algo;             // "zstd" or "none"; empty: not said (an older hnowd, a manifest)
  std::uint64_t plainBytes = 0;
  std::uint64_t sentBytes = 0;
  std::string why;
  double compressS = 0.0;       // hnowd's compression, before the first byte moved
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
  std::vector<std::string> stripeParents;  // a striped send: the parent in each stripe
  // Since the start, when every byte was in (before the digest and the
  // rename that make it done); 0 until then. A striped send: per stripe,
  // so each stripe's rate from its parent shows.
  double heldS = 0.0;
  std::vector<double> stripeHeldS;
  std::optional<TreeOutcome> tree;  // a tree's copy, once done
};

// One node moved to another parent while the send ran.
struct ParentChange {
  std::string node;
  std::string oldParent;
  std::string newParent;
  double atS = 0.0;    // since the start
  std::string reason;  // "drift: ...", "lost: ...", ...
};

struct SendStatus {
  bool finished = false;
  std::string algo;
  std::uint64_t size = 0;
  double predictedS = 0.0;
  double elapsedS = 0.0;  // until the last copy finished, once finished
  std::vector<CopyStatus> copies;
  std::vector<PlanOption> considered;  // core's SendTree::considered
  double fluidBoundS = 0.0;
  bool replanning = false;          // off: --no-replan (losses still re-parent)
  int replans = 0;                  // new trees adopted
  double replannedPredictedS = 0.0; // the latest replan's predicted end, since the start; 0: none
  std::vector<ParentChange> parentChanges;
  std::vector<std::string> rateBounds;  // core's SendTree::rateBounds
  double boundS = 0.0;                  // Kumar & Ross's minimum distribution time; 0: not computed
  std::string why;                      // core's SendTree::why
  std::vector<std::uint64_t> stripeOffsets;  // a striped send: S + 1 offsets (SendTree::stripeOffsets)
  std::vector<SkippedAgent> skipped;         // agents --to named (all, a site) that could not receive
  std::optional<TreeSummary> tree;           // a directory's send
  SendCompression compression;               // --compress: what went, and why; `size` is what moved
  double maxRateBytesPerSecond = 0.0;        // --max-rate: every link the send used at most this; 0: none
  // A file: the agents that held it at --dest already (the same SHA-256),
  // to which nothing moved; and, with --force, those whose different file
  // there it replaces (docs/send.md, "A file already there").
  std::vector<std::string> held;
  std::vector<std::string> replaced;
  // The agent that served it in hnowd's place, holding it already
  // (core/send/held_source.h); "" hnowd.
  std::string source;
  // A file: agents among `held` that wrote --dest from the same bytes
  // under another path of theirs (core/send/held_elsewhere.h).
  std::vector<HeldElsewhere> copiedHere;
  // A tree sent as a bundle per group of agents; empty when one bundle went to all.
  std::vector<BundleGroupStatus> groups{};
  // Its operation record (`hnow ops`), the id `hnow cancel` takes; 0: none.
  std::uint64_t record = 0;
  // The operator who cancelled it (`hnow cancel`, Ctrl-C); "" not cancelled.
  std::string cancelledBy{};
  // Its trees, rates and replans as drawn (send_picture.h); none: a send
  // not started yet, or an hnowd that draws none.
  std::optional<SendPicture> picture{};
};

}  // namespace hnow::api
