#pragma once
// What hnowd knows about one agent besides its rates, and the commands it can
// send it. The RPC glue implements AgentLink over the agent's AgentControl
// capability; tests implement it with a recorder (no sockets).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "core/links/link_probe.h"
#include "transport/orders/job_orders.h"
#include "transport/orders/receive_order.h"

namespace hnow::daemon {

struct AgentRegistration {
  std::string name;
  std::string site;
  std::vector<std::string> capabilities;
  std::string dataAddress;
  std::vector<std::string> roots;
  // Where it sits on the network (base/host_networks.h), for grouping
  // agents into rooms (core/links/room_map.h): "10.1.2.3/26" each, the data
  // plane's first; none from an older agent. ({}: registrations written
  // without them still compile warning-free.)
  std::vector<std::string> networks{};
  std::string gateway{};  // its default IPv4 gateway; "" when none or not told
  // Its machine (base/host_key.h): agents with one key share a CPU
  // (core/links/host_intake.h); "" when not told.
  std::string host{};
  // The hnowd instance (Coordinator::instance) whose transfers the agent's
  // process still runs; 0: none, a new process or one that dropped them.
  std::uint64_t keptInstance{};
};

// Rates an agent emulates; 0 in a field leaves that rate as it is.
struct EmulatedRates {
  double uplinkMbps = 0.0;
  double downlinkMbps = 0.0;
  double computeFactor = 0.0;
};

class AgentLink {
 public:
  virtual ~AgentLink() = default;
  // Called once: done when the agent acknowledged, else the reason.
  using Done = std::function<void(const Result<void>& done)>;
  // Returns at once; `done` runs later on the same thread.
  virtual void setEmulatedRates(const EmulatedRates& rates, Done done) = 0;
  virtual void probeNow() = 0;

  // `hnow send`. Links that cannot receive refuse (the defaults
  // keep older test links compiling).
  // The order itself is transport/orders/receive_order.h, the one the
  // agent reads.
  using ReceiveOrder = transport::orders::ReceiveOrder;
  using StripeOrder = transport::orders::StripeOrder;
  // How often each of `agents` receiving at once reports progress: every
  // 100 ms (the data plane's) up to 25 agents, then spaced so that together
  // they send about 250 reports a second, at most one a second each. 256
  // agents at 10 a second each outran hnowd's control thread beside a CPU
  // hog on 2 cores, and their heartbeats waited behind the reports.
  static std::uint32_t progressEvery(std::size_t agents) {
    return agents <= 25 ? 0u : static_cast<std::uint32_t>(std::min<std::size_t>(1000, agents * 4));
  }
  // The absolute path the file will have, or the refusal.
  using ReceiveDone = std::function<void(const Result<std::string>& path)>;
  virtual void receive(const ReceiveOrder&, ReceiveDone done) { done(Error{"this agent cannot receive files"}); }
  virtual void pull(const std::string& /*token*/, const std::string& /*parentAddress*/) {}
  // Only what changed: the ordinals of the files of `index` (one part of a
  // tree's, TreeQueries) that `dest` lacks, and of those of the same size
  // and another mtime whose digest the index did not list; or the refusal.
  struct HeldAnswer {
    std::vector<std::uint32_t> missing;
    std::vector<std::uint32_t> sameSize;
  };
  using HeldDone = std::function<void(const Result<HeldAnswer>& answer)>;
  virtual void treeHeld(const std::string& /*dest*/, const std::string& /*index*/, HeldDone done) {
    done(Error{"this agent cannot receive trees"});
  }
  // A single file's send (file_held.h): what `dest` holds of a file of
  // `size` bytes and, when `sha256` (32 bytes) is not empty, of that
  // digest; or the refusal (outside the roots, a directory there).
  // Asked with the digest, `heldAt` names a file elsewhere under dest's
  // root with those bytes, when dest does not hold them.
  enum class DestHolding { kAbsent, kOther, kSameSize, kSame };
  struct FileHolding {
    DestHolding holding = DestHolding::kAbsent;
    std::string heldAt;  // absolute, on the agent; "" none
  };
  using HoldingDone = std::function<void(const Result<FileHolding>& holding)>;
  // Links of tests that do not model destinations: nothing is there.
  virtual void fileHeld(const std::string& /*dest*/, std::uint64_t /*size*/, const std::string& /*sha256*/,
                        HoldingDone done) {
    done(FileHolding{});
  }
  // Writes `dest` from the agent's file `from` (its `heldAt`), checked
  // against `sha256`: the final path, or why not.
  using CopiedDone = std::function<void(const Result<std::string>& path)>;
  virtual void copyHeld(const std::string& /*dest*/, const std::string& /*from*/, std::uint64_t /*size*/,
                        const std::string& /*sha256*/, CopiedDone done) {
    done(Error{"this agent cannot copy a file it holds"});
  }
  virtual void release(const std::string& /*token*/) {}

  // manifests: the agent serves a file of its own under `token`, its
  // uplink paced at most at `uplinkPaceBytesPerSecond` (0: as it is): its
  // size and 32-byte digest, or the refusal.
  struct ServedFile {
    std::uint64_t size = 0;
    std::string sha256;
    // Its chunk digests (SourceFile): the chunk they cut, 0 none, and the pieces'.
    std::uint32_t digestChunkBytes = 0;
    std::string pieceDigests{};
  };
  using ServeDone = std::function<void(const Result<ServedFile>& served)>;
  virtual void serveFile(const std::string& /*token*/, const std::string& /*file*/,
                         double /*uplinkPaceBytesPerSecond*/, ServeDone done) {
    done(Error{"this agent cannot serve files"});
  }
  // `hnow run` (agent/job_runner.h): transport/orders/job_orders.h.
  using JobFileOrder = transport::orders::JobFileOrder;
  using JobTaskOrder = transport::orders::JobTaskOrder;
  using JobTaskAnswer = transport::orders::JobTaskAnswer;
  // The agent's answer, or the Error of the call itself (the agent never
  // answered: the command's fault or not is unknown).
  using TaskDone = std::function<void(const Result<JobTaskAnswer>& answer)>;
  virtual void fetchJobFile(const JobFileOrder&, Done done) { done(Error{"this agent cannot run jobs"}); }
  virtual void runJobTask(const JobTaskOrder&, TaskDone done) { done(Error{"this agent cannot run jobs"}); }
  virtual void dropJobFiles(const std::vector<std::string>& /*tokens*/) {}
  // A task an earlier process of this hnowd started on the agent (it
  // kept running while hnowd was away): its answer once it ends.
  virtual void awaitJobTask(const std::string& /*resultToken*/, TaskDone done) {
    done(Error{"this agent cannot run jobs"});
  }
  // A restarted hnowd names the job files it still counts on; the agent
  // drops the others and answers which of these it holds.
  struct HeldJobFile {
    std::string token;
    bool task = false;   // a task's result token
    bool ended = false;  // the task has ended
  };
  using HeldJobsDone = std::function<void(const Result<std::vector<HeldJobFile>>& held)>;
  virtual void keepJobFiles(const std::vector<std::string>& /*tokens*/, HeldJobsDone done) {
    done(std::vector<HeldJobFile>{});
  }
  // The agent restarted and is back at this hnowd: the tasks whose
  // results it gave back (an earlier process of it computed them).
  virtual void heldJobTasks(HeldJobsDone done) { done(std::vector<HeldJobFile>{}); }
  // The agent dials `address` (hnowd's data port) and serves the job file
  // `token` over that connection, presenting `ticket` (32 bytes): hnowd
  // cannot connect to it (docs/reachability.md). `done` once the
  // connection is open and pulled from, or why it could not be.
  virtual void offerFile(const std::string& /*token*/, const std::string& /*ticket*/, const std::string& /*address*/,
                         Done done) {
    done(Error{"this agent cannot hand a file over on a connection it opens"});
  }
  // Its part of one probe round (link_probe.h); `done` once, later or at once.
  using ProbeDone = LinkProber::ProbeDone;
  virtual void probeLinks(const ProbeOrder&, ProbeDone done) { done(Error{"this agent cannot take part in link probes"}); }
};

}  // namespace hnow::daemon
