#pragma once
// What hnowd keeps across restarts: the agents it has known (with their last
// rates) and the records of operations. The coordinator sees only this
// interface; sqlite_state_store.h is the real one, tests use an in-memory one
// (as with LevelDB's Env; docs/architecture.md "Conventions the code
// follows"). Times are calendar times: steady clocks restart with the process.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "planner/node_rates.h"

namespace hnow::daemon {

struct StoredAgent {
  std::string name;
  std::string site;
  bool hasRates = false;
  planner::NodeRates rates;
  WallTime ratesAt{};   // when the rates were measured
  WallTime lastSeen{};  // the last registration, heartbeat or report
};

// A measured link rate (core/links/link_book.h); emulated and configured rates
// are told again when their node starts, so they are not kept.
struct StoredLink {
  std::string node;
  std::string direction;  // "uplink" | "downlink"
  double bytesPerSecond = 0.0;
  std::string method;     // "probe" | "passive" | "bound"
  WallTime measuredAt{};
  double spread = 0.0;
  // What its agent tells (emulates) when its transfers belied it
  // (core/links/link_book.h): 0 none. Kept so that the next hnowd does not
  // believe the lie again.
  double toldBytesPerSecond = 0.0;
};

// Who may log in as an agent (core/trust/agent_keys.h): a name bound to its key.
// Keys are kept as their text (ed25519:...); `how` says how it was bound:
// "token", "approved" or "secret" (enrolled through the shared secret).
struct StoredIdentity {
  std::string name, key, how;
  WallTime at{};
};

// A key cut off by `hnow agent revoke`: refused from then on, even when
// hnowd's config lists it.
struct StoredRevocation {
  std::string key, name;
  WallTime at{};
};

// A single-use enrollment token not yet used: its id and secret (hex),
// the name it is for ("" for any free name), who made it and until when
// it holds.
struct StoredToken {
  std::string id, secret, name, madeBy;
  WallTime made{}, expires{};
};

struct StoredTrust {
  std::vector<StoredIdentity> identities;
  std::vector<StoredRevocation> revocations;
  std::vector<StoredToken> tokens;
};

using OperationId = std::int64_t;

// One send/run/... operation as hnowd records it; `summary` is a JSON object.
struct OperationRecord {
  OperationId id = 0;
  std::string kind;  // "set-rate" now; "send", "run" in later issues
  WallTime started{};
  std::optional<WallTime> finished;  // none while it runs
  // "queued" (a job waiting for agents), "running", "done", "failed",
  // "cancelled", "interrupted"; the first two are under way.
  std::string status;
  std::string summary = "{}";
};

// How many records there are of one kind in one status (the metrics'
// operations by kind and status).
struct OperationCount {
  std::string kind;
  std::string status;
  std::uint64_t count = 0;
};

// A send hnowd still owes to agents that were off when it ran (`hnow send
// --until-all`): what to send, and who has not had it yet. Kept until
// every one of them has a copy or is forgotten.
struct StoredOwedSend {
  OperationId id = 0;  // the record of the send that left them without a copy
  std::string path, dest, algo, compress;
  bool replan = true, atomic = false, deleteOthers = false;
  bool force = false;  // a file: replace a different file at dest
  double maxRateBytesPerSecond = 0.0;  // --max-rate; 0: none
  std::vector<std::string> agents;  // still owed
  WallTime since{};
};

// A send under way (`hnow send` of a path on hnowd's host, or of a
// client's upload), kept from
// before its client is told it started until it ends, so that an hnowd
// that stops (or is killed) meanwhile is followed by one that runs it again
// under the same record: the request as an owed send keeps it, `agents`
// the ones it was for, `id` its record.
struct StoredSendUnderWay : StoredOwedSend {
  bool untilAll = false;  // those not back are owed it (docs/until-all.md)
  // A client's file sent from hnowd's kept copy of its upload (docs/tree-send.md,
  // "Kept files"): the copy's key and the client's stamp of the file
  // (core/send/: its own text); "" for a path on hnowd's host.
  std::string uploadKey{}, uploadStamp{};
  // A client's directory sent from hnowd's kept copy of its upload: the
  // copy's listing digest as the send read it (core/send/: hex); "" none.
  std::string keptTree{};
  // An upload: the client's path as the send's record names it ("-": its
  // standard input); "" for a path on hnowd's host.
  std::string uploadedFrom{};
  // Why a restarted hnowd cannot run it again (an upload it kept no copy
  // of): its record ends "interrupted" saying so; "" it runs again.
  std::string notKeptWhy{};
};

// A job waiting in hnowd's queue (core/jobs/job_queue.h), its record
// "queued": kept until it starts or ends, so the queue survives a restart.
// `request` is its request's bytes (api/run_request_bytes.h), opaque here.
struct StoredQueuedJob {
  OperationId id = 0;
  std::string request;
};

// A share of a job under way whose result hnowd accepted: units [firstUnit,
// firstUnit + units) of the input, its result in the file `path` of `size`
// bytes.
struct StoredShare {
  std::uint64_t firstUnit = 0, units = 0;
  std::string path;
  std::uint64_t size = 0;
};

// A share's attempt sent to an agent to compute (its command started
// there): the agent keeps running it while hnowd is away and holds its
// result under `resultToken`, its input under `shareToken` (32 raw bytes
// each). A restarted hnowd claims it from the agent rather than compute
// the units again.
struct StoredAttempt {
  std::string agent;
  std::uint64_t firstUnit = 0, units = 0;
  std::string resultToken, shareToken;
  // The results of its share that must agree (--replicas; 0: not known,
  // so a replicated share is not adopted), and its result's digest (32 raw
  // bytes) once computed: a restarted hnowd compares it with the other
  // replicas' as if it had never stopped, even when the result itself is
  // no longer held.
  int replicas = 0;
  std::string digest{};
};

// A partial result a --reduce job's reduction combined on an agent
// (core/jobs/job_reduction.h), written before the combine is acknowledged
// (its inputs dropped), so that a restarted hnowd reduces it instead of
// computing its shares again: the agent that made and holds it, its
// file's token and SHA-256 (32 raw bytes each) and size, and the tokens
// of the two partials it combines (a share's result token, or another
// partial's).
struct StoredPartial {
  std::string agent, token, digest;
  std::uint64_t size = 0;
  std::string input, other;
};

// A --concat job under way, kept so that the next hnowd resumes it rather
// than start over: its request's bytes, the input as it was when it began
// (size and modification time: another file is not resumed), its work
// directory, and its shares accepted so far (loadRunningJobs fills them).
struct StoredRunningJob {
  OperationId id = 0;
  std::string request;
  std::uint64_t inputSize = 0;
  std::int64_t inputModifiedNs = 0;
  std::string dir;
  std::vector<StoredShare> accepted;
  // Each agent's calibration of its command, one line each (core/jobs/:
  // its own text), so the resumed job need not calibrate again.
  std::string calibrations{};
  // Its attempts sent to agents (loadRunningJobs fills them), oldest first.
  std::vector<StoredAttempt> attempts{};
  // --reduce: the partials its reduction combined (loadRunningJobs fills
  // them), in the order they were made.
  std::vector<StoredPartial> partials{};
};

// One agent's line in a ledger hnowd keeps across runs: the relay faults
// caught ("relay-faults": `first` the count, core/trust/relay_suspects.h),
// the agreement of its job results ("host-trust": `first` its agreeing
// streak, `second` its overrulings, core/trust/host_trust.h).
struct StoredLedgerEntry {
  std::string agent;
  std::int64_t first = 0, second = 0;
};

// Every call can fail (a full disk, a damaged file): the Error names
// state.db and what went wrong. hnowd logs it and carries on; what was not
// written stays pending for the next try.
class StateStore {
 public:
  virtual ~StateStore() = default;

  // Inserts or replaces agents by name, all in one transaction.
  virtual Result<void> saveAgents(const std::vector<StoredAgent>& agents) = 0;
  virtual Result<std::vector<StoredAgent>> loadAgents() = 0;
  // Inserts or replaces links by (node, direction), in one transaction.
  virtual Result<void> saveLinks(const std::vector<StoredLink>& links) = 0;
  // The agent, its links and its ledgers' lines removed (`hnow agent
  // forget`), in one transaction.
  virtual Result<void> forgetAgent(const std::string& name) = 0;
  virtual Result<std::vector<StoredLink>> loadLinks() = 0;

  // Assigns the record's id (the given one is ignored) and returns it.
  virtual Result<OperationId> beginOperation(const OperationRecord& record) = 0;
  // A record "queued" becomes "running" (a job that got its agents); one
  // in any other state is left as it is.
  virtual Result<void> launchOperation(OperationId id) = 0;
  // Sets finished, status and summary of a record begun earlier and still
  // under way ("queued" or "running"): a record ends once (one marked "interrupted" when
  // hnowd stops is not turned into "failed" by the agents it disconnects).
  virtual Result<void> finishOperation(OperationId id, WallTime finished, const std::string& status,
                                       const std::string& summary) = 0;
  // Replaces the summary of a record still "running": an operation begun
  // before it knew its plan (so that it can be named and cancelled while
  // it is prepared) says what it runs once it knows.
  virtual Result<void> describeOperation(OperationId id, const std::string& summary) = 0;
  // Inserts or replaces the owed send by id, its agents with it; one with
  // no agents left is removed. In one transaction.
  virtual Result<void> saveOwedSend(const StoredOwedSend& owed) = 0;
  virtual Result<std::vector<StoredOwedSend>> loadOwedSends() = 0;
  // A send under way kept (inserted or replaced by id, its agents with
  // it), in one transaction; removed once it ends.
  virtual Result<void> saveSendUnderWay(const StoredSendUnderWay& send) = 0;
  virtual Result<void> removeSendUnderWay(OperationId id) = 0;
  // Oldest first.
  virtual Result<std::vector<StoredSendUnderWay>> loadSendsUnderWay() = 0;

  // Inserts or replaces the identity by name.
  virtual Result<void> saveIdentity(const StoredIdentity& identity) = 0;
  // The name's identity removed and its key revoked, in one transaction.
  virtual Result<void> saveRevocation(const StoredRevocation& revocation) = 0;
  virtual Result<void> saveToken(const StoredToken& token) = 0;
  // The token used up (removed) and, when `enrolled` names an agent, its
  // identity saved, in one transaction: a token binds one key, once.
  virtual Result<void> useToken(const std::string& id, const StoredIdentity& enrolled) = 0;
  virtual Result<StoredTrust> loadTrust() = 0;

  // A job under way kept (its row inserted or replaced by id; `accepted`
  // is not written here), and each share accepted, written as it is.
  virtual Result<void> saveRunningJob(const StoredRunningJob& job) = 0;
  virtual Result<void> saveAcceptedShare(OperationId job, const StoredShare& share) = 0;
  // An attempt written before its command is started on the agent.
  virtual Result<void> saveJobAttempt(OperationId job, const StoredAttempt& attempt) = 0;
  // A partial its reduction combined, written before its inputs are dropped.
  virtual Result<void> saveReductionPartial(OperationId job, const StoredPartial& partial) = 0;
  // It ended: the job, its shares, attempts and partials gone, in one transaction.
  virtual Result<void> removeRunningJob(OperationId id) = 0;
  // Oldest first, each with its accepted shares in input order.
  virtual Result<std::vector<StoredRunningJob>> loadRunningJobs() = 0;

  // A queued job kept (inserted or replaced by id), written before the
  // client is told it is queued.
  virtual Result<void> saveQueuedJob(const StoredQueuedJob& job) = 0;
  // Gone from the queue: it started, or ended while queued.
  virtual Result<void> removeQueuedJob(OperationId id) = 0;
  // Oldest first.
  virtual Result<std::vector<StoredQueuedJob>> loadQueuedJobs() = 0;

  // Replaces the ledger named `ledger` whole, in one transaction.
  virtual Result<void> saveLedger(const std::string& ledger, const std::vector<StoredLedgerEntry>& entries) = 0;
  virtual Result<std::vector<StoredLedgerEntry>> loadLedger(const std::string& ledger) = 0;

  // The newest `limit` records, newest first.
  virtual Result<std::vector<OperationRecord>> operations(std::size_t limit) = 0;
  // The record `id`; none when there is no such record.
  virtual Result<std::optional<OperationRecord>> operation(OperationId id) = 0;
  // Every record counted by kind and status.
  virtual Result<std::vector<OperationCount>> operationCounts() = 0;
  // Records still under way belong to an hnowd that stopped before they
  // ended: marks them "interrupted", finished at `at` - every "running"
  // one not kept by saveRunningJob or saveSendUnderWay, and every "queued"
  // one not kept by saveQueuedJob (the kept ones wait for the next hnowd).
  // Returns how many.
  virtual Result<int> interruptRunning(WallTime at) = 0;
};

}  // namespace hnow::daemon
