#pragma once
// `hnow`'s connection to hnowd: connect, authenticate, call, all blocking
// with a deadline. Returns plain values; capnp stays inside the .cc.
#include <cstdint>
#include <memory>
#include <optional>
#include <array>
#include <string>
#include <vector>

#include "base/result.h"
#include "cli/run_command.h"
#include "conf/runtime_config.h"
#include "core/manifest_status.h"
#include "core/send_operation.h"
#include "planner/node_rates.h"
#include "transport/data/tree_bundle.h"
#include "transport/link_report.h"

namespace hnow::cli {

template <class T>
using Reply = Result<T>;

// One link as hnowd knows it (transport/control.capnp LinkRate).
using RemoteLink = transport::LinkRateReport;

// One direction's bandwidth cap in force (control.capnp CapInForce).
struct RemoteCap {
  double bytesPerSecond = 0.0;  // 0: none
  std::string by;               // max_uplink_mbps, max_downlink_mbps or the schedule entry
};

struct RemoteAgent {
  std::string name;
  std::string site;
  bool alive = false;
  std::optional<double> ratesAgeSeconds;  // none before the first report
  planner::NodeRates rates;
  std::vector<std::string> roots;
  std::vector<std::string> capabilities;
  std::string dataAddress;
  RemoteLink uplink, downlink;
  RemoteCap uplinkCap, downlinkCap;  // in force now
  // Sends in which it relayed bytes that differ from the source's
  // (core/relay_suspects.h): from kSuspectFaults on, planned as a leaf.
  int relayFaults = 0;
  // Why others cannot connect to its data plane, "" when they can
  // (docs/reachability.md): planned as a leaf that pulls from others.
  std::string unreachable;
  std::vector<std::string> networks;  // as it registered them: "10.1.2.3/26", its data plane's first
  std::string gateway;                // its default IPv4 gateway; "" when none or not told
  // Two addresses its key logged in from by turns lately (core/key_hosts.h):
  // a copied key? Empty: none.
  std::vector<std::string> keyHosts;
  int keyHostsChanges = 0;
  double keyHostsAgeSeconds = 0.0;  // since the latest change
};

// A send hnowd still owes to agents that were off (hnow send --until-all).
struct RemoteOwedSend {
  std::int64_t record = 0;
  std::string path, dest;
  std::vector<std::string> agents;
  std::int64_t sinceUnixMs = 0;
  bool sending = false;
};

// A room of agents and its trunk (control.capnp RoomStatus, docs/rooms.md).
struct RemoteRoom {
  std::string name;
  int agents = 0;
  std::string foundBy;
  RemoteLink in, out;
};

// A machine that runs two agents or more, and what they take in together
// (control.capnp HostStatus, docs/host-intake.md).
struct RemoteHost {
  std::string key;
  int agents = 0;
  RemoteLink intake;
};

struct RemoteStatus {
  std::vector<RemoteAgent> agents;
  std::vector<RemoteRoom> rooms;  // none: one room
  std::vector<RemoteHost> hosts;  // machines with two agents or more
  RemoteLink uplink, downlink;  // hnowd's own
  RemoteCap uplinkCap, downlinkCap;
  bool surveying = false;
  std::vector<RemoteOwedSend> owed;
};

// One record of `hnow ops` (transport/control.capnp OperationRecord).
struct RemoteOperation {
  std::int64_t id = 0;
  std::string kind;
  std::int64_t startedUnixMs = 0;
  std::int64_t finishedUnixMs = 0;  // 0 while it runs
  std::string status;
  std::string summary;  // a JSON object
};

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

  Reply<RemoteStatus> status();
  // Surveys the links of `nodes` (every node when empty); returns once they
  // are measured, waiting up to `seconds`.
  Reply<bool> measure(const std::vector<std::string>& nodes, double seconds);
  // An empty-struct reply: std::monostate-like success.
  Reply<bool> setEmulatedRates(const std::string& agent, const RateChange& change);
  Reply<bool> forgetAgent(const std::string& agent);
  // Agent identities (docs/security.md): a single-use enrollment token
  // and how long it holds; revoke (how many sessions were closed); approve
  // a pending agent (its key); every known key.
  Reply<std::pair<std::string, double>> agentToken(const std::string& name, double ttlSeconds);
  Reply<unsigned> revokeAgent(const std::string& name);
  Reply<std::string> approveAgent(const std::string& name);
  // The two hosts whose turns were flagged, no longer shown.
  Reply<std::pair<std::string, std::string>> acknowledgeAgent(const std::string& name);
  struct AgentKey {
    std::string name, key, state, how, peer;
    double ageSeconds = -1;  // -1: since hnowd's config listed it
  };
  Reply<std::vector<AgentKey>> agentKeys();
  // The newest `limit` records, newest first.
  Reply<std::vector<RemoteOperation>> operations(std::uint32_t limit);

  // `hnow send`: starts a send, then polls it by its id.
  struct SendStart {
    std::string path;  // absolute, on hnowd's machine
    std::string dest;
    std::vector<std::string> to;
    std::string algo;
    bool replan = true;  // false for --no-replan
    bool atomic = false;  // a directory: publish the tree at once
    bool deleteOthers = false;  // a directory: remove what --dest holds that the tree does not name
    std::uint64_t upload = 0;   // not 0: send this upload (grantUpload), not `path`
    std::string compress = "auto";  // auto|zstd|none
    bool untilAll = false;  // agents without a copy stay owed it
    double maxRateBytesPerSecond = 0.0;  // --max-rate; 0: none
    bool uploadIsTree = false;  // the upload is the client's directory packed as a tree's bundle
    bool force = false;  // a file: replace a different file at --dest
    std::string uploadKey{};  // with uploadIsTree: the bundle holds what hnowd's kept copy under this key lacked
  };
  // Does hnowd see the client's file at `path` (same size and mtime)?
  // Whether hnowd sees the client's file or tree at the same path; when it
  // does not read there at all (outside its [send] roots), why.
  struct Sight {
    bool same = false;
    std::string why;
  };
  Reply<Sight> sees(const std::string& path, std::uint64_t size, std::int64_t mtimeNs);
  // Does hnowd list, at `path`, the client's directory (its listing digest)?
  Reply<Sight> seesTree(const std::string& path, const std::array<unsigned char, 32>& listing);
  // What hnowd's kept copy of a directory uploaded before (under `key`)
  // lacks of a part of its index (transport/data/tree_query.h).
  Reply<transport::data::HeldFiles> keptHeld(const std::string& key, const std::string& index);
  // An upload of `size` bytes with this SHA-256 granted (send_upload.h):
  // its id for startSend, and what the client presents on hnowd's data
  // plane at `dataAddress` (the host the client reached hnowd at).
  struct UploadGrant {
    std::uint64_t id = 0;
    std::string token, ticket;
    std::string dataAddress;
  };
  Reply<UploadGrant> grantUpload(std::uint64_t size, const std::array<unsigned char, 32>& sha256);
  // Once hnowd holds upload `id` whole and checked: its size.
  Reply<std::uint64_t> awaitUpload(std::uint64_t id);
  Reply<std::pair<std::uint64_t, daemon::SendStatus>> startSend(const SendStart& request);
  Reply<daemon::SendStatus> sendProgress(std::uint64_t operation);
  // `hnow send --manifest`: starts the items together, then polls.
  Reply<std::pair<std::uint64_t, daemon::ManifestStatus>> startManifest(const daemon::ManifestRequest& request);
  Reply<daemon::ManifestStatus> manifestProgress(std::uint64_t operation);

  // `hnow run`: starts a job, polls it, reads its result.
  Reply<std::uint64_t> startRun(const daemon::RunRequest& request);
  Reply<RunReportView> runProgress(std::uint64_t operation);
  // At most 1 MiB from `offset`; empty at the end.
  Reply<std::string> runOutput(std::uint64_t operation, std::uint64_t offset);

 private:
  struct State;
  explicit CoordinatorClient(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Loads client.toml and logs in; prints the problem and sets `exitCode`
// (2: a bad config, 1: hnowd unreachable or refusing) on failure.
std::unique_ptr<CoordinatorClient> connectOrReport(const std::string& configPath, int& exitCode);

// A client that lost hnowd while polling its operation says what
// became of it and what to do, e.g. ("sending", "send", "their partial
// copies", "Send again"); returns the exit code, 1.
int reportLostHnowd(const char* doing, const char* operation, const char* whatAgentsDrop, const char* retry,
                    const std::string& why);

}  // namespace hnow::cli
