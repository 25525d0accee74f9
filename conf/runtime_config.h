#pragma once
// The configs of hnowd, hnow-agent and the hnow client (dist/*.toml documents
// every key). Loading either returns a complete config or one error naming
// file:line:column: a daemon never starts half-configured. Relative paths in
// a file are taken relative to the file's directory.
#include <string>
#include <vector>

#include "base/bandwidth_limits.h"
#include "base/result.h"
#include "conf/trust_config.h"
#include "conf/jobs_config.h"

namespace hnow::conf {

// trace | debug | info | warn | error
const std::vector<std::string>& logLevels();

// Mutual TLS through kj-tls; all empty: plain TCP (the HMAC login still
// authenticates, but the traffic is readable on the wire).
struct TlsConfig {
  std::string certFile;  // this side's certificate chain (PEM)
  std::string keyFile;   // its private key (PEM)
  std::string caFile;    // the CA the peer's certificate must be signed by (PEM)
  std::string serverName = "hnowd";  // agents, clients: the name hnowd's certificate is for
  bool enabled() const { return !certFile.empty(); }
};

// [survey]: how hnowd measures link capacities (daemon/core/links/survey_runner.h).
struct SurveyConfig {
  double warmSeconds = 0.3;     // each probe round's flows run this long first
  double windowSeconds = 0.6;   // ...then are measured for this long
  int peers = 8;                // at most this many peers per round
  double intervalSeconds = 0;   // measure every link again this often (0: when needed only)
  bool emulatedLinks = false;   // measure emulated links (hnow local's pacing) like real ones
};

// [web]: hnowd's read-only web view and /metrics (docs/web-view.md,
// docs/metrics.md), on an address of their own; off unless `listen` is set.
struct WebConfig {
  std::string listen;  // host:port; port 0: the OS chooses; empty: off
  // The operators' token for the pages; hnowd makes it (mode 0600) on its
  // first start with [web] (default <data_dir>/web.token).
  std::string tokenFile;
  // The bearer token scrapers off the loopback present for /metrics; empty:
  // /metrics answers loopback clients only.
  std::string metricsTokenFile;
  bool enabled() const { return !listen.empty(); }
};

struct CoordinatorConfig {
  std::string listen = "0.0.0.0:7411";  // host:port; port 0: the OS chooses
  // The data plane's port, on listen's host: 0 lets the OS choose (a lab of
  // many processes on one machine); a firewall wants it fixed.
  int dataPort = 0;
  std::string dataDir;                 // hnowd writes `hnowd.address` here
  // hnowd's private key; made on the first start (default <data_dir>/hnowd.key).
  std::string keyFile;
  // Only while agents move from the shared secret to keys: an agent that
  // proves it may enroll its key under a free name. Opens no client session.
  std::string secretFile;
  std::vector<OperatorConfig> operators;  // [[operators]]: who may use hnow against hnowd
  // The local administrator's private key, made (mode 0600) on the first
  // start when missing: hnowd takes its public key as the operator
  // kLocalAdminOperator, with full rights. Empty: none.
  std::string adminKeyFile;
  std::vector<AgentKeyConfig> agentKeys;  // [[agents]]: names bound to keys by hnowd's owner
  double lostTimeoutSeconds = 2.5;     // silent this long: lost (at the next 0.25 s tick)
  double driftThreshold = 0.25;        // a relative change in a rate
  double driftDwellSeconds = 2.0;      // ...that lasts this long is drift
  double ewmaWeight = 0.3;             // weight of a real transfer's rate
  std::string logLevel = "info";
  std::string logFormat = "text";      // text | json (transport/log_setup.h)
  int maxUnauthenticated = 64;         // connections waiting to log in
  double loginTimeoutSeconds = 10.0;   // ...each for at most this long
  // ...one address's share of them once all are taken; also of the data
  // port's connections waiting to say hello.
  int maxUnauthenticatedPerHost = 8;
  // hnowd's uplink as a send's source, Mbit/s; it is also paced to it.
  // 0: measured by the link surveys (before the first, taken as fast as the
  // fastest agent's).
  double uplinkMbps = 0.0;
  SurveyConfig survey;
  TlsConfig tls;
  // [run] roots: where `hnow run` may read --input and write --output on
  // hnowd's host (base/path_confinement.h confines them). Empty: runs refused.
  std::vector<std::string> runRoots;
  // [run] calibration_max_s: the longest an agent's calibration of a job's
  // command may take; past it (or sooner, as the other agents' calibrations
  // bound it: daemon/core/jobs/job_calibration.h) the agent is left out of the run.
  double calibrationMaxSeconds = 120.0;
  // [send] roots: where `hnow send` may read files and trees on hnowd's host
  // (server/send_paths.h). Empty: none; clients upload what they send.
  std::vector<std::string> sendRoots;
  // [limits]: what hnow may use of hnowd's links (docs/bandwidth-limits.md).
  BandwidthLimits limits;
  WebConfig web;
};

struct EmulateConfig {
  double uplinkMbps = 0.0;  // 0: not limited
  double downlinkMbps = 0.0;
  double computeFactor = 1.0;  // job work takes this many times longer
};

struct AgentConfig {
  std::string name;  // default: the host name
  std::string site = "default";
  std::string coordinator;  // hnowd's host:port
  std::string dataDir;
  // The data plane's port (peers pull from it), on the address this agent
  // reaches hnowd from: 0 lets the OS choose; a firewall wants it fixed.
  int dataPort = 0;
  // The agent's private key; made on the first start (default <data_dir>/agent.key).
  std::string keyFile;
  // hnowd's public key; "" to take it from the enrollment token (and keep
  // it in <data_dir>/hnowd.pub).
  std::string coordinatorKey;
  std::string secretFile;  // migration only: enrolls the key through hnowd's shared secret
  std::vector<std::string> roots;  // where received files may be written
  // One address's share of the data port's connections that have not said
  // hello, once all 256 are taken.
  int maxUnauthenticatedPerHost = 8;
  double probeIntervalSeconds = 60.0;
  double heartbeatIntervalSeconds = 0.5;
  std::string logLevel = "info";
  std::string logFormat = "text";      // text | json (transport/log_setup.h)
  EmulateConfig emulate;
  TlsConfig tls;
  // [limits]: what hnow may use of this node's links (docs/bandwidth-limits.md).
  BandwidthLimits limits;
  // [jobs]: which commands it runs and under which limits (conf/jobs_config.h).
  JobsConfig jobs;
};

// What `hnow` needs to reach hnowd (written by `hnow local up` as client.toml).
struct ClientConfig {
  std::string coordinator;
  std::string operatorName;    // as hnowd's [[operators]] lists it
  std::string keyFile;         // the operator's private key
  std::string coordinatorKey;  // hnowd's public key (ed25519:...)
  TlsConfig tls;
};

Result<CoordinatorConfig> loadCoordinatorConfig(const std::string& path);
Result<AgentConfig> loadAgentConfig(const std::string& path);
Result<ClientConfig> loadClientConfig(const std::string& path);

// The same from text; relative paths are taken relative to `baseDir`.
Result<CoordinatorConfig> parseCoordinatorConfig(std::string_view text, const std::string& file,
                                                 const std::string& baseDir);
Result<AgentConfig> parseAgentConfig(std::string_view text, const std::string& file,
                                     const std::string& baseDir);
Result<ClientConfig> parseClientConfig(std::string_view text, const std::string& file,
                                       const std::string& baseDir);

}  // namespace hnow::conf
