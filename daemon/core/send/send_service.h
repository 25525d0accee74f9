#pragma once
// hnowd's side of `hnow send`, on the control thread: plans a tree from
// the rate table, makes hnowd the source on its data plane, asks every
// agent to prepare (any refusal stops the send before a byte moves), then
// runs the SendOperation and answers progress queries. The RPC glue
// (server/sessions.cc) turns its answers into the client's.
#include <cstdint>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/send_request.h"
#include "core/coordinator.h"
#include "core/send/file_held.h"
#include "core/send/send_operation.h"
#include "core/send/send_runs.h"
#include "core/send/source_plane.h"
#include "core/send/striped_send.h"
#include "core/transfer_observer.h"
#include "core/send/skipped_agent.h"
#include "core/send/tree_held.h"

namespace hnow::daemon {

// A file or directory of hnowd's host held open as it was checked against
// hnowd's [send] roots (server/send_paths.h): the plane reads it through
// `readPath` (/proc/self/fd/N), never through the path the client named,
// which may lead elsewhere by then.
struct SourcePin {
  std::string readPath;
  std::shared_ptr<const void> held;  // keeps the descriptor open while any copy of the request lives
  bool directory = false;
};

// Who cancelled a send while it was prepared (hashed, compressed, bundled,
// its agents asked): "" none. Shared by every copy of its request, so a
// tree's groups not started yet never start once one of them is cancelled.
struct SendCancel {
  std::string by;
};

// A send as hnowd runs it: the client's request (api/send_request.h, the
// one type from the CLI's options to here) and what hnowd adds to it.
struct SendRequest : api::SendRequest {
  bool scratch = false;  // `path` is a client's upload: removed when the send ends
  std::string uploadedFrom{};  // an upload: the client's path ("-": its standard input), what records name
  OperationId owedBy = 0;  // made for the agents this send's record left owed (owed_sends.h)
  // Agents it was for that a restarted hnowd runs it again without
  // (sends_under_way.h): reported skipped, with why.
  std::vector<SkippedAgent> leftOut{};
  // A tree's bundle for one group of its agents (bundle_groups.h): group
  // `group` (from 1) of `groups`, planned with `sourceShare` of hnowd's
  // uplink, since the groups' bundles leave hnowd at once. Only the first
  // lists the agents skipped. 0 of 0: the send is not split.
  std::size_t group = 0, groups = 0;
  double sourceShare = 1.0;
  // hnowd has measured the links of its agents that had none for it
  // (SendService::measureLinksWith): not asked again when one is still unknown.
  bool linksMeasured = false;
  // A group's send runs under its family's record, which the family alone
  // describes and finishes, once every group has ended (send_groups.cc).
  bool familyRecord() const { return groups > 1; }
  // What the send's source needs until it ends (a client's tree unpacked
  // for it), removed when the last holder lets go.
  std::shared_ptr<const void> scratchSource{};
  // `path` is hnowd's kept copy of a client's file (SourcePlane::keepFile):
  // released through scratchSource when the send ends, not removed.
  bool keptCopy = false;
  // `path` is a client's directory uploaded (unpacked here: a scratch
  // directory, or hnowd's kept copy of it).
  bool uploadedTree = false;
  // The listing digest (hex, treeListingDigest) of hnowd's kept copy of a
  // client's directory as this send reads it: "" for any other source. A
  // send run again after a restart (sends_under_way.h) runs only while the
  // copy still lists the same (SourcePlane::useKeptTree).
  std::string keptTree{};
  // Where hnowd reads `path` from (server/send_paths.h); empty: `path`
  // itself, a file hnowd made (an upload, a client's tree unpacked).
  SourcePin pin{};
  // The record begun as hnowd started preparing it, so that `hnow cancel`
  // can name it before any agent is asked to receive (0: none yet; the
  // send begins its own when it orders its agents), and its cancel.
  OperationId record = 0;
  std::shared_ptr<SendCancel> cancel{};
  bool cancelled() const { return cancel && !cancel->by.empty(); }
};

// What the plane reads for `request`: its pinned descriptor, else its path.
inline const std::string& readPathOf(const SendRequest& request) {
  return request.pin.readPath.empty() ? request.path : request.pin.readPath;
}

// A send that ended, as its record says: the agents that have a copy now
// and those that do not (failed, or skipped as not connected).
struct SendEnd {
  SendRequest request;
  OperationId record = 0;
  std::vector<std::string> delivered, missed;
};

struct HeldBundle;  // send_service_state.h

// How the refusal of a send run again from hnowd's kept copy of a
// client's file or directory begins when that copy is not the one the send
// was for any more (another upload replaced it, or it was dropped): the
// send's record ends "interrupted", not "failed" (sends_under_way.h).
inline constexpr const char* kKeptCopyChanged = "hnowd's kept copy changed since the send began";

class SendService final {
 public:
  // `sourceAddress` is hnowd's data plane as agents reach it, which moves
  // files in chunks of `chunkBytes`; hnowd paces its uplink at
  // `configuredUplinkBytesPerSecond` (hnowd's uplink_mbps; 0: its measured
  // uplink, Pacing::sourceUplink). `newToken` makes 32 random bytes.
  SendService(Coordinator& coordinator, SourcePlane& plane, std::string sourceAddress, const Clock& clock,
              std::uint32_t chunkBytes, double configuredUplinkBytesPerSecond,
              std::function<std::string()> newToken);

  // The operation's id and first status, once every agent has prepared;
  // else why the send was refused (at once for the request itself, after
  // the agents' answers for a refusal of theirs).
  using Started = std::function<void(const Result<std::pair<std::uint64_t, SendStatus>>& started)>;
  void start(SendRequest request, Started started);
  // hnowd's caps changed (a schedule window began or ended): the sends
  // under way pace hnowd's uplink at the new cap from now on, within the
  // lowest --max-rate among them. Nothing when none runs.
  void sourceCapsChanged() { runs_.sourceCapsChanged(); }
  // Ends the sends that waited in vain for a lost agent to report again
  // (SendOperation::kBackWithin); hnowd calls it every tick.
  void tick() { runs_.tick(); }
  // Whether the directory at `path` here has the listing digest
  // `listingHex` (a client's, treeListingDigest); `done` once, later.
  void seesTree(const std::string& path, const std::string& listingHex, std::function<void(bool same)> done);
  // Does hnowd hold the client's file from its last upload (SourcePlane::holdsKeptFile)?
  bool holdsKeptFile(const std::string& key, const api::FileStamp& stamp) { return plane_.holdsKeptFile(key, stamp); }
  // What hnowd's kept copy of a client's directory lacks (SourcePlane::keptHeld).
  void keptHeld(const std::string& key, const std::string& index, SourcePlane::KeptHeld done) {
    plane_.keptHeld(key, index, std::move(done));
  }
  // Pins the path of a send that comes without a pin and names no file of
  // hnowd's own: the [send] roots' check (server/send_paths.h), for the
  // sends owed to agents, read again when they return. Unset: read by path.
  using Pinner = std::function<Result<SourcePin>(const std::string& path)>;
  void pinSourcesWith(Pinner pin) { pinner_ = std::move(pin); }
  // Measures the links of the agents named, then says whether it could
  // (SurveyRunner::request). A send to an agent whose links hnowd has not
  // measured yet (one just enrolled, before the survey of joiners ran)
  // waits for that measurement instead of being refused. Unset: refused.
  using LinkMeasurer = std::function<void(std::vector<std::string> agents, std::function<void(const Result<void>&)>)>;
  void measureLinksWith(LinkMeasurer measure) { measurer_ = std::move(measure); }
  // None for an unknown operation.
  std::optional<SendStatus> status(std::uint64_t operation) const;
  // The operation (as status() takes it) whose record is `record`: a tree
  // sent in groups answers for any group's record; 0: none known.
  std::uint64_t operationOf(OperationId record) const;
  // Cancels the send under way whose operation record is `record`, as
  // operator `who` asked (SendRuns::cancel), with every group of a tree
  // sent as a bundle per group. A send still prepared ends too: its record
  // says "cancelled" now, and it stops at its next step, before any agent
  // pulls a byte (its client is answered with the cancelled status).
  // False: no send under way or prepared has that record.
  bool cancel(OperationId record, const std::string& who);
  // Told of every send that ends, after its record is finished.
  void onEnded(std::function<void(const SendEnd&)> ended) { runs_.onEnded(std::move(ended)); }
  // Told as a send's record begins for the agents it goes to, before its
  // client hears that it started (`kept`), and when a send prepared is
  // refused or cancelled before it ran (`dropped`, its record): what
  // keeps the sends under way for a restarted hnowd (sends_under_way.h).
  // A send that ran is told through onEnded.
  struct Keeper {
    std::function<void(const SendRequest& request, const std::vector<std::string>& agents)> kept;
    std::function<void(OperationId record)> dropped;
  };
  void keepWith(Keeper keeper) { keeper_ = std::move(keeper); }


 private:
  // A request whose file is here (a client's tree unpacked first): its
  // agents chosen, then a file's destinations asked or a tree scanned.
  void begin(SendRequest request, Started started);
  // A client's file with a key (api::SendRequest::uploadKey): its upload
  // kept, or the copy kept before, then begun from there.
  void startKeptFile(SendRequest request, Started started);
  // A client's directory uploaded, `bundle` unpacked over hnowd's kept copy
  // of it (a key) or into a scratch directory, then begun from there.
  void startUploadedTree(SendRequest request, Started started);
  // A send of hnowd's kept copy of a client's directory run again after a
  // restart (SendRequest::keptTree): begun while that copy lists the same.
  void startKeptTree(SendRequest request, Started started);
  // The agents a request goes to, or the first check that refused it.
  Result<std::vector<AgentView>> receiversOf(const SendRequest& request);
  // --until-all when no agent it is for can receive now: every one of
  // them is owed it (a record of its own says so), and the caller is told.
  static constexpr const char* kNoneCanReceive = "none of the agents it is for can receive now";
  void oweAll(const SendRequest& request, Started started);
  // The agents it would go to (all, or a site) that cannot receive now, and why.
  std::vector<SkippedAgent> skippedOf(const SendRequest& request) const;
  // The agents' answers (the path each will write, or its refusal) to the
  // receive order: the send runs, or is refused and everything released.
  // A tree's scan: every agent asked what it lacks, then the bundle
  // packed with those files and sent (startPlanned).
  void askAbout(SendRequest request, std::vector<AgentView> chosen, std::shared_ptr<const TreeScan> scan,
                Started started);
  // What the agents answered: one bundle for all of them, or a bundle per
  // group by what they lack (bundle_groups.h) when that is predicted no
  // slower by more than kGroupsSlower; packed, then sent.
  void packFor(SendRequest request, std::vector<AgentView> chosen, std::shared_ptr<const TreeScan> scan,
               const HeldTree& held, Started started);
  // The groups' bundles, each sent to its agents as a send of its own,
  // all at once; the caller answered once every one has started (or could
  // not), under one id whose status merges theirs.
  struct Family;
  void startGroups(SendRequest request, std::vector<std::vector<AgentView>> groups, std::vector<TreeBundle> bundles,
                   TreeSummary whole, double boundS, Started started);
  SendStatus familyStatus(const Family& family) const;
  // A group's send ended (SendRuns::onGroupEnded): its family's record is
  // finished, and onEnded told, once every group has ended.
  void groupEnded(const SendEnd& end);
  void endFamilyIfOver(Family& family);
  // Every group has started or could not: the client is answered, the
  // record describes the family.
  void familyStarted(Family& family);
  // Families whose every send is forgotten (FinishedOperations) go too.
  void forgetFamilies();
  // A file: every agent asked what its destination holds (file_held.h);
  // those with the same bytes are left out of the plan, a different file
  // refuses the send unless --force.
  void askDestinations(SendRequest request, std::vector<AgentView> chosen, std::unique_ptr<HeldBundle> upload,
                       Started started);
  // The agents holding the file's bytes under another path of dest's root
  // write --dest from there (held_elsewhere.h); `done` with those that did
  // in `held.copied` and `held.same`. One that could not is sent the file.
  void copyHeldElsewhere(const SendRequest& request, std::uint64_t size, HeldAtDest held,
                         std::function<void(HeldAtDest)> done);
  // What --dest held answered: the agents holding it are left out of the
  // plan (all of them: finishHeld) and may serve it; the send is planned.
  void planHeld(SendRequest request, std::vector<AgentView> chosen,
                std::shared_ptr<std::unique_ptr<HeldBundle>> kept, std::uint64_t size, HeldAtDest held,
                Started started);
  // Agents outside the send that might serve it faster than hnowd if they
  // hold it (held_source.h): the kMaxOtherServers fastest uplinks above hnowd's.
  std::vector<AgentView> otherServers(const SendRequest& request, const std::vector<AgentView>& chosen) const;
  // Asks `others` what --dest holds with `held`'s digest, and starts the
  // send with those that hold it among its possible servers. Their
  // refusals or other files do not concern the send: they are passed over.
  void askOthers(SendRequest request, std::vector<AgentView> chosen, std::shared_ptr<std::unique_ptr<HeldBundle>> upload,
                 HeldAtDest held, std::vector<AgentView> holders, std::vector<AgentView> others, Started started);
  // The SHA-256 of the request's file (readPathOf), taken off the control thread
  // once however many ask the returned function.
  FileDigest digestOf(const SendRequest& request);
  // The request's record begun as its preparing starts (SendRequest::record;
  // one given, a send run again under an earlier hnowd's record, is kept),
  // told to the keeper with `chosen`, and `started` wrapped to end that
  // record "failed" when it is refused.
  void beginPreparing(SendRequest& request, Started& started, const std::vector<AgentView>& chosen);
  // A cancelled send that was still prepared (SendRequest::cancelled):
  // `started` answered with its cancelled status; nothing of it starts.
  void endCancelled(const SendRequest& request, const Started& started);
  // The preparing records that share `cancel` end "cancelled" by `who`.
  void cancelPreparing(const std::shared_ptr<SendCancel>& cancel, const std::string& who);
  // A send refused before its plan, recorded as failed with `why`, which the caller is told.
  void refuseRecorded(const SendRequest& request, const std::string& why, Started started);
  // Every agent it was for held it already: a send that moved nothing, recorded and answered finished.
  void finishHeld(const SendRequest& request, std::uint64_t size, const HeldAtDest& held, Started started);
  // The send planned and started from hnowd's file, or from a tree's
  // bundle: compressed first when --compress says so (send_compression.h).
  // `atDest`: a file's agents by what their destination held (left out: `same`).
  // `holders`: the agents whose destination held the same bytes, which
  // may serve the file in hnowd's place (held_source.h).
  void startPlanned(SendRequest request, std::vector<AgentView> chosen, std::unique_ptr<HeldBundle> bundle,
                    Started started, HeldAtDest atDest = {}, std::vector<AgentView> holders = {});
  struct Prepared;
  // hnowd (its uplink as the plan takes it: its share, within --max-rate), then `chosen`.
  std::vector<TreeNode> planNodes(const SendRequest& request, const std::vector<AgentView>& chosen) const;
  // The file as it goes (compressed or not) served along `plan`, and every agent told to receive it.
  // hnowd serves the file first (hashing it: seconds for a large one, off
  // the control thread), then orderAgents plans the running send and
  // tells every agent to receive it.
  void serve(std::shared_ptr<Prepared> prepared, SendTree plan, Started started);
  // A holder serves it instead; should it refuse, or hold other bytes by
  // now, hnowd serves it along its own plan.
  void serveFromHolder(std::shared_ptr<Prepared> prepared, SendTree plan, Started started);
  void orderAgents(std::shared_ptr<Prepared> prepared, SendTree plan, std::vector<StripeSource> stripes,
                   const std::string& token, const SourceFile& file, Started started);
  void prepared(std::unique_ptr<RunningSend> running, std::vector<Result<std::string>> answers, Started started);

  Coordinator& coordinator_;
  SourcePlane& plane_;
  std::string sourceAddress_;
  const Clock& clock_;
  std::uint32_t chunkBytes_;
  double configuredUplink_;
  std::function<std::string()> newToken_;  // 32 random bytes per send
  std::map<std::uint64_t, std::shared_ptr<Family>> families_;  // until their operations are forgotten
  // The records of sends prepared, not yet run: their cancel and summary so far.
  struct Preparing {
    std::shared_ptr<SendCancel> cancel;
    std::string summary;  // its record's JSON object, closed
  };
  std::map<OperationId, Preparing> preparing_;
  Pinner pinner_;
  LinkMeasurer measurer_;
  Keeper keeper_;
  SendRuns runs_;  // the sends once their agents have prepared
};

// The file as a send's record names it (JSON, with ,"uploaded":true for an
// upload): as the client named it, since hnowd's scratch path says nothing
// to whoever reads the record.
std::string recordedFile(const SendRequest& request);

// The links of a plan's nodes taken at a lower bound, for its report (SendTree::rateBounds).
std::vector<std::string> boundsOf(const Coordinator& coordinator, const std::vector<AgentView>& agents);

}  // namespace hnow::daemon
