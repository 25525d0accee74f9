#pragma once
// `hnow`'s connection to hnowd: connect, authenticate, call, all blocking
// with a deadline. Returns plain values; capnp stays inside the .cc.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <array>
#include <string>
#include <vector>

#include "base/result.h"
#include "cli/run_command.h"
#include "conf/runtime_config.h"
#include "api/coordinator_status.h"
#include "api/manifest.h"
#include "api/send_request.h"
#include "api/send_status.h"
#include "planner/node_rates.h"
#include "transport/data/tree_bundle.h"
#include "transport/link_report.h"

namespace hnow::cli {

template <class T>
using Reply = Result<T>;

struct RateChange {
  double uplinkMbps = 0.0;  // 0: unchanged
  double downlinkMbps = 0.0;
  double computeFactor = 0.0;
};

class CoordinatorClient {
 public:
  // Connects to `config.coordinator`, checks hnowd's key and logs in as the operator.
  static Reply<std::unique_ptr<CoordinatorClient>> connect(const conf::ClientConfig& config);
  ~CoordinatorClient();

  Reply<api::CoordinatorStatus> status();
  // Surveys the links of `nodes` (every node when empty); returns once they
  // are measured, waiting up to `seconds`.
  Reply<bool> measure(const std::vector<std::string>& nodes, double seconds);
  // An empty-struct reply: std::monostate-like success.
  Reply<bool> setEmulatedRates(const std::string& agent, const RateChange& change);
  Reply<bool> forgetAgent(const std::string& agent);
  // Cancels operation record `record` (`hnow ops`) as this client's
  // operator: hnowd's note of what it stopped or dropped.
  Reply<std::string> cancel(std::uint64_t record);
  // Agent identities (docs/security.md): a single-use enrollment token
  // and how long it holds; revoke (how many sessions were closed); approve
  // a pending agent (its key); every known key.
  Reply<std::pair<std::string, double>> agentToken(const std::string& name, double ttlSeconds);
  Reply<unsigned> revokeAgent(const std::string& name);
  Reply<std::string> approveAgent(const std::string& name, const std::string& expectedKey = "");
  // The two hosts whose turns were flagged, no longer shown.
  Reply<std::pair<std::string, std::string>> acknowledgeAgent(const std::string& name);
  struct AgentKey {
    std::string name, key, state, how, peer;
    double ageSeconds = -1;  // -1: since hnowd's config listed it
    double expiresInSeconds = -1;  // an unused token's time left; -1: not a token
  };
  Reply<std::vector<AgentKey>> agentKeys();
  // The newest `limit` records, newest first.
  Reply<std::vector<api::OperationSummary>> operations(std::uint32_t limit);

  // Does hnowd see the client's file at `path` (same size and mtime)?
  // Whether hnowd sees the client's file or tree at the same path; when it
  // does not read there at all (outside its [send] roots), why.
  // A file's: `kept`, hnowd holds it from the client's last upload under
  // `key` (its host and path) with the same stamp.
  struct Sight {
    bool same = false;
    std::string why;
    bool kept = false;
  };
  Reply<Sight> sees(const std::string& path, const api::FileStamp& stamp, const std::string& key);
  // Does hnowd list, at `path`, the client's directory (its listing digest)?
  Reply<Sight> seesTree(const std::string& path, const std::array<unsigned char, 32>& listing);
  // What hnowd's kept copy of a directory uploaded before (under `key`)
  // lacks of a part of its index (transport/data/tree_query.h).
  Reply<transport::data::HeldFiles> keptHeld(const std::string& key, const std::string& index);
  // An upload of `size` bytes granted (send_upload.h):
  // its id for startSend, and what the client presents on hnowd's data
  // plane at `dataAddress` (the host the client reached hnowd at).
  struct UploadGrant {
    std::uint64_t id = 0;
    std::string token, ticket;
    std::string dataAddress;
  };
  Reply<UploadGrant> grantUpload(std::uint64_t size);
  // Once hnowd holds upload `id` whole and its SHA-256 is `sha256` (the
  // client's of its file): its size.
  Reply<std::uint64_t> awaitUpload(std::uint64_t id, const std::array<unsigned char, 32>& sha256);
  // `hnow send`: starts a send (its id and first report), then follows it.
  Reply<std::pair<std::uint64_t, api::SendStatus>> startSend(const api::SendRequest& request);
  // `hnow send --manifest`: starts the items together, then follows them.
  Reply<std::pair<std::uint64_t, api::ManifestStatus>> startManifest(const api::ManifestRequest& request);
  // `hnow run`: queues a job (its id and operation record), follows it,
  // fetches its result (cli/run_output_pull.h).
  struct RunStarted {
    std::uint64_t operation = 0;
    std::uint64_t record = 0;  // 0: state.db could not keep it
  };
  Reply<RunStarted> startRun(const api::RunRequest& request);
  // The operation record `record` names (`hnow ops wait|show|output`): its
  // kind ("send", "manifest", "run") and id for the follow calls; operation
  // 0 when hnowd holds it no more (its record tells how it ended).
  struct Located {
    std::string kind;
    std::uint64_t operation = 0;
    api::OperationSummary entry;  // the record; id 0: there is none
  };
  Reply<Located> locate(std::uint64_t record);

  // Follows an operation by the reports hnowd pushes (cli/progress_follow.cc):
  // `each` with every one, the final one last (false: stop following, the
  // caller gave up); the final report, or why none came (hnowd lost, no
  // push for half a minute, or `each` stopped).
  template <class Status>
  using Each = std::function<bool(const Status& report)>;
  // While a send, a manifest or a run is followed, Ctrl-C cancels it (docs/send.md,
  // "Cancelling"): the first asks hnowd to cancel its record (`record`, or
  // the one the reports name) and the follow waits for its end; the second
  // leaves at once, exit 130. interrupted(): the first came.
  Reply<api::SendStatus> followSend(std::uint64_t operation, Each<api::SendStatus> each, std::uint64_t record = 0);
  Reply<api::ManifestStatus> followManifest(std::uint64_t operation, Each<api::ManifestStatus> each,
                                            std::uint64_t record = 0);
  Reply<RunReportView> followRun(std::uint64_t operation, Each<RunReportView> each, std::uint64_t record = 0);
  bool interrupted() const;
  // Follows from now on only watch: Ctrl-C leaves at once and cancels
  // nothing (`hnow ops wait` did not start what it follows).
  void watchOnly();

  // A finished run's result, served to this session on hnowd's data plane
  // at `dataAddress` (the host the client reached hnowd at) under `token`,
  // with the digests the client checks it against.
  struct OutputGrant {
    std::string token;
    std::uint64_t size = 0;
    std::string sha256;  // 32 bytes
    std::uint32_t digestChunkBytes = 0;
    std::string pieceDigests;
    std::string dataAddress;
  };
  Reply<OutputGrant> grantOutput(std::uint64_t operation);

  // The connection and its event loop (cli/coordinator_state.h), for the
  // files that define these calls.
  struct State;

 private:
  explicit CoordinatorClient(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Loads client.toml and logs in; prints the problem and sets `exitCode`
// (2: a bad config, 1: hnowd unreachable or refusing) on failure.
std::unique_ptr<CoordinatorClient> connectOrReport(const std::string& configPath, int& exitCode);

// A client that lost hnowd while polling its operation says what
// became of it and what to do, e.g. ("sending", "send", "their partial
// copies", "Send again"); returns the exit code, 1.
// `--detach`: the operation's record id on stdout and, on stderr, that it
// is `state` ("queued", "started") and how to follow it (`more` appended). 0.
int reportDetached(const char* kind, std::uint64_t record, const char* state, const char* more = "");
int reportLostHnowd(const char* doing, const char* operation, const char* whatAgentsDrop, const char* retry,
                    const std::string& why);

}  // namespace hnow::cli
