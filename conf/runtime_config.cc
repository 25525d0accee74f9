#include "conf/runtime_config.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "conf/toml_reader.h"

namespace hnow::conf {

const std::vector<std::string>& logLevels() {
  static const std::vector<std::string> levels{"trace", "debug", "info", "warn", "error"};
  return levels;
}

namespace {

namespace fs = std::filesystem;

// "host:port" or "[v6]:port"; with `allowPortZero` the OS may choose the port.
std::string readAddress(TableReader& t, std::string_view key, const std::string& fallback,
                        bool required, bool allowPortZero) {
  auto value = t.optionalString(key);
  if (!value) {
    if (required)
      t.failHere("missing key '" + std::string(key) + "' in " + t.where() +
                 " (hnowd's address, host:port)");
    return fallback;
  }
  auto colon = value->rfind(':');
  std::string host = colon == std::string::npos ? "" : value->substr(0, colon);
  std::string port = colon == std::string::npos ? "" : value->substr(colon + 1);
  bool digits = !port.empty() && port.size() <= 5 &&
                port.find_first_not_of("0123456789") == std::string::npos;
  long number = digits ? std::stol(port) : -1;
  if (host.empty() || !digits || number > 65535 || (number == 0 && !allowPortZero))
    t.failAt(key, "'" + std::string(key) + "' must be host:port with a port " +
                      (allowPortZero ? "from 0" : "from 1") + " to 65535, not '" + *value + "'");
  return *value;
}

std::string readPath(TableReader& t, std::string_view key, std::string_view hint,
                     const std::string& baseDir) {
  std::string path = t.requireString(key, hint);
  if (path.empty()) t.failAt(key, "'" + std::string(key) + "' cannot be empty");
  fs::path p(path);
  return p.is_absolute() || baseDir.empty() ? path : (fs::path(baseDir) / p).lexically_normal().string();
}

// The public key in the file `key` names (hnowd.pub: its first line),
// checked; the entry fails when the file cannot be read.
std::string readPublicKeyFile(TableReader& t, std::string_view key, std::string_view what,
                              const std::string& baseDir) {
  const std::string path = readPath(t, key, what, baseDir);
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) {
    const std::string why = in ? "it is empty" : std::strerror(errno);
    t.failAt(key, "cannot read " + std::string(what) + " from " + path + ": " + why +
                      " (hnowd writes it as hnowd.pub in its data_dir, readable by root and hnowd's user; or "
                      "write its line as coordinator_key instead)");
  }
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  if (!looksLikePublicKey(line))
    t.failAt(key, path + " (" + std::string(what) + ") must hold one line ed25519:<43 characters>, not '" +
                      line.substr(0, 60) + "'");
  return line;
}

// Seconds or a fraction that must lie in (low, high].
double readBounded(TableReader& t, std::string_view key, double fallback, double low, double high,
                   std::string_view what) {
  auto value = t.optionalNumber(key);
  if (!value) return fallback;
  if (!(*value > low && *value <= high))
    t.failAt(key, "'" + std::string(key) + "' must be " + std::string(what) + ", not " +
                      std::to_string(*value));
  return *value;
}

// Connections one address may hold before it has proven anything: behind
// a NAT, many machines share one address, hence the wide bound.
int readPerHost(TableReader& t, int fallback) {
  auto n = t.optionalInteger("max_unauthenticated_per_host");
  if (!n) return fallback;
  if (*n < 1 || *n > 100000)
    t.failAt("max_unauthenticated_per_host",
             "'max_unauthenticated_per_host' must be from 1 to 100000, not " + std::to_string(*n));
  return static_cast<int>(*n);
}

// A data plane's port: 0 (the OS chooses) or a fixed one a firewall opens.
int readDataPort(TableReader& t) {
  auto n = t.optionalInteger("data_port");
  if (!n) return 0;
  if (*n < 0 || *n > 65535) t.failAt("data_port", "'data_port' must be from 0 (the OS chooses) to 65535, not " + std::to_string(*n));
  return static_cast<int>(*n);
}

std::string readLogLevel(TableReader& t) {
  return t.optionalChoice("log_level", logLevels()).value_or("info");
}

// "text": a line a person reads (and journald files by its <N> priority);
// "json": an object per line with the operation, agent and peer as fields,
// for a log shipper (transport/log_setup.h).
std::string readLogFormat(TableReader& t) {
  static const std::vector<std::string> formats{"text", "json"};
  return t.optionalChoice("log_format", formats).value_or("text");
}

// Names appear in logs, paths and the status table: keep them plain.
std::string readAgentName(TableReader& t) {
  auto name = t.optionalString("name");
  if (!name) {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
      t.failHere("missing key 'name' and the host name is unknown");
    return host;
  }
  if (!plainName(*name))
    t.failAt("name", "'name' must be 1 to 64 letters, digits, '.', '_' or '-', not '" + *name + "'");
  return *name;
}

// [tls]: cert_file, key_file and ca_file together (hnowd verifies every
// client's certificate against ca_file; agents and clients verify hnowd's
// and present their own); `server_name` only on the connecting side.
TlsConfig readTls(TableReader& t, const std::string& baseDir, bool connecting) {
  if (connecting)
    t.allowOnly({"cert_file", "key_file", "ca_file", "server_name"});
  else
    t.allowOnly({"cert_file", "key_file", "ca_file"});
  TlsConfig tls;
  tls.certFile = readPath(t, "cert_file", "this side's certificate (PEM)", baseDir);
  tls.keyFile = readPath(t, "key_file", "the certificate's private key (PEM)", baseDir);
  tls.caFile = readPath(t, "ca_file", "the CA that signs the peers' certificates (PEM)", baseDir);
  if (connecting) {
    tls.serverName = t.optionalString("server_name").value_or(tls.serverName);
    if (tls.serverName.empty()) t.failAt("server_name", "'server_name' cannot be empty");
  }
  return tls;
}

// An agent's `roots` and hnowd's `[run] roots`: absolute directories.
std::vector<std::string> readRoots(TableReader& t) {
  std::vector<std::string> roots;
  for (const std::string& root : t.optionalStringList("roots").value_or(std::vector<std::string>{})) {
    if (!fs::path(root).is_absolute())
      t.failAt("roots", "every entry of 'roots' must be an absolute path, not '" + root + "'");
    roots.push_back(fs::path(root).lexically_normal().string());
  }
  return roots;
}

SurveyConfig readSurvey(TableReader& t) {
  t.allowOnly({"warm_s", "window_s", "peers", "interval_s", "emulated_links"});
  SurveyConfig s;
  s.warmSeconds = readBounded(t, "warm_s", s.warmSeconds, 0, 5, "seconds > 0 and at most 5");
  s.windowSeconds = readBounded(t, "window_s", s.windowSeconds, 0, 5, "seconds > 0 and at most 5");
  if (auto n = t.optionalInteger("peers")) {
    if (*n < 1 || *n > 64) t.failAt("peers", "'peers' must be from 1 to 64, not " + std::to_string(*n));
    s.peers = static_cast<int>(*n);
  }
  s.intervalSeconds = t.optionalNumber("interval_s").value_or(0.0);
  if (!(s.intervalSeconds >= 0 && s.intervalSeconds <= 86400 * 30))
    t.failAt("interval_s", "'interval_s' must be from 0 (only when needed) to 2592000 seconds");
  s.emulatedLinks = t.optionalBool("emulated_links").value_or(false);
  return s;
}

// [limits]: static caps and the schedule (base/bandwidth_limits.h has the
// grammar); each bad entry is reported at its place in the file.
BandwidthLimits readLimits(TableReader& t) {
  t.allowOnly({"max_uplink_mbps", "max_downlink_mbps", "schedule"});
  BandwidthLimits limits;
  auto cap = [&](std::string_view key) {
    double v = t.optionalNumber(key).value_or(0.0);
    if (!(v >= 0 && v <= 100000))
      t.failAt(key, "'" + std::string(key) + "' in [limits] must be from 0 (no cap) to 100000 Mbit/s");
    return v;
  };
  limits.maxUplinkMbps = cap("max_uplink_mbps");
  limits.maxDownlinkMbps = cap("max_downlink_mbps");
  const auto entries = t.optionalStringList("schedule").value_or(std::vector<std::string>{});
  for (size_t i = 0; i < entries.size(); ++i) {
    auto window = parseScheduleWindow(entries[i]);
    if (!window) t.failAtElement("schedule", i, "[limits] schedule: " + window.error().message);
    limits.schedule.push_back(std::move(window).value());
  }
  return limits;
}

// [web]: listen required once the table is there (an empty [web] would
// look like a web view that is on).
WebConfig readWeb(TableReader& t, const std::string& baseDir, const std::string& dataDir) {
  t.allowOnly({"listen", "token_file", "metrics_token_file"});
  WebConfig w;
  if (!t.has("listen"))
    t.failHere("missing key 'listen' in [web] (the web view's address, host:port, e.g. \"127.0.0.1:7480\"; "
               "remove [web] to leave the web view off)");
  w.listen = readAddress(t, "listen", "", true, true);
  w.tokenFile = t.has("token_file") ? readPath(t, "token_file", "the web view's operator token", baseDir)
                                    : (fs::path(dataDir) / "web.token").string();
  if (t.has("metrics_token_file"))
    w.metricsTokenFile = readPath(t, "metrics_token_file", "the bearer token for /metrics off the loopback", baseDir);
  return w;
}

CoordinatorConfig readCoordinator(TableReader& t, const std::string& baseDir) {
  t.allowOnly({"listen", "data_port", "data_dir", "key_file", "admin_key_file", "secret_file", "operators", "agents",
               "lost_timeout_s",
               "drift_threshold", "drift_dwell_s", "ewma_weight", "log_level", "log_format", "max_unauthenticated",
               "max_unauthenticated_per_host", "login_timeout_s", "uplink_mbps", "tls", "run", "send", "survey", "limits", "web"});
  CoordinatorConfig c;
  c.listen = readAddress(t, "listen", c.listen, false, true);
  c.dataPort = readDataPort(t);
  c.dataDir = readPath(t, "data_dir", "hnowd's state directory", baseDir);
  c.keyFile = t.has("key_file") ? readPath(t, "key_file", "hnowd's private key", baseDir)
                                : (fs::path(c.dataDir) / "hnowd.key").string();
  if (t.has("secret_file")) c.secretFile = readPath(t, "secret_file", "the file holding the shared secret", baseDir);
  c.operators = readOperators(t);
  if (t.has("admin_key_file")) {
    c.adminKeyFile = readPath(t, "admin_key_file", "the local administrator's private key", baseDir);
    for (const OperatorConfig& o : c.operators)
      if (o.name == kLocalAdminOperator)
        t.failAt("operators", std::string("the operator ") + kLocalAdminOperator +
                                  " is hnowd's own for admin_key_file: give yours another name, or remove "
                                  "admin_key_file");
  }
  c.agentKeys = readAgentKeys(t);
  c.lostTimeoutSeconds = readBounded(t, "lost_timeout_s", c.lostTimeoutSeconds, 0, 3600,
                                     "seconds > 0 and at most 3600");
  c.driftThreshold = readBounded(t, "drift_threshold", c.driftThreshold, 0, 10,
                                 "a fraction > 0 (0.25 = 25%) and at most 10");
  c.driftDwellSeconds = readBounded(t, "drift_dwell_s", c.driftDwellSeconds, 0, 3600,
                                    "seconds > 0 and at most 3600");
  c.ewmaWeight = readBounded(t, "ewma_weight", c.ewmaWeight, 0, 1, "a weight > 0 and at most 1");
  c.logLevel = readLogLevel(t);
  c.logFormat = readLogFormat(t);
  if (auto n = t.optionalInteger("max_unauthenticated")) {
    if (*n < 1 || *n > 100000)
      t.failAt("max_unauthenticated", "'max_unauthenticated' must be from 1 to 100000, not " +
                                          std::to_string(*n));
    c.maxUnauthenticated = static_cast<int>(*n);
  }
  c.maxUnauthenticatedPerHost = readPerHost(t, c.maxUnauthenticatedPerHost);
  c.loginTimeoutSeconds = readBounded(t, "login_timeout_s", c.loginTimeoutSeconds, 0, 3600,
                                      "seconds > 0 and at most 3600");
  c.uplinkMbps = t.optionalNumber("uplink_mbps").value_or(0.0);
  if (!(c.uplinkMbps >= 0 && c.uplinkMbps <= 100000))
    t.failAt("uplink_mbps", "'uplink_mbps' must be from 0 (not known) to 100000 Mbit/s");
  if (auto tls = t.subTable("tls")) c.tls = readTls(*tls, baseDir, false);
  if (auto run = t.subTable("run")) {
    run->allowOnly({"roots", "calibration_max_s"});
    c.runRoots = readRoots(*run);
    c.calibrationMaxSeconds = readBounded(*run, "calibration_max_s", c.calibrationMaxSeconds, 0, 86400,
                                          "seconds > 0 and at most 86400");
  }
  if (auto send = t.subTable("send")) {
    send->allowOnly({"roots"});
    c.sendRoots = readRoots(*send);
  }
  if (auto survey = t.subTable("survey")) c.survey = readSurvey(*survey);
  if (auto limits = t.subTable("limits")) c.limits = readLimits(*limits);
  if (auto web = t.subTable("web")) c.web = readWeb(*web, baseDir, c.dataDir);
  return c;
}

EmulateConfig readEmulate(TableReader& t) {
  t.allowOnly({"uplink_mbps", "downlink_mbps", "compute_factor"});
  EmulateConfig e;
  auto rate = [&](std::string_view key) {
    double v = t.optionalNumber(key).value_or(0.0);
    if (v < 0 || v > 100000)
      t.failAt(key, "'" + std::string(key) + "' must be from 0 (not limited) to 100000 Mbit/s");
    return v;
  };
  e.uplinkMbps = rate("uplink_mbps");
  e.downlinkMbps = rate("downlink_mbps");
  e.computeFactor = readBounded(t, "compute_factor", 1.0, 0, 1000, "a factor > 0 and at most 1000");
  if (e.computeFactor < 1)
    t.failAt("compute_factor", "'compute_factor' can only slow work down: it must be at least 1");
  return e;
}

AgentConfig readAgent(TableReader& t, const std::string& baseDir) {
  t.allowOnly({"name", "site", "coordinator", "data_port", "data_dir", "key_file", "coordinator_key", "secret_file", "roots",
               "max_unauthenticated_per_host", "probe_interval_s", "heartbeat_interval_s", "log_level", "log_format", "emulate", "tls", "limits", "jobs"});
  AgentConfig a;
  a.name = readAgentName(t);
  a.site = t.optionalString("site").value_or(a.site);
  if (a.site.empty()) t.failAt("site", "'site' cannot be empty");
  if (!plainSite(a.site)) t.failAt("site", "'site' is not plain text: " + std::string(kSiteRule));
  a.coordinator = readAddress(t, "coordinator", "", true, false);
  a.dataPort = readDataPort(t);
  a.dataDir = readPath(t, "data_dir", "the agent's state directory", baseDir);
  a.keyFile = t.has("key_file") ? readPath(t, "key_file", "the agent's private key", baseDir)
                                : (fs::path(a.dataDir) / "agent.key").string();
  a.coordinatorKey = readPublicKey(t, "coordinator_key", "hnowd's public key");
  if (t.has("secret_file")) a.secretFile = readPath(t, "secret_file", "the file holding the shared secret", baseDir);
  a.roots = readRoots(t);
  a.maxUnauthenticatedPerHost = readPerHost(t, a.maxUnauthenticatedPerHost);
  a.probeIntervalSeconds = readBounded(t, "probe_interval_s", a.probeIntervalSeconds, 0, 86400,
                                       "seconds > 0 and at most 86400");
  a.heartbeatIntervalSeconds = readBounded(t, "heartbeat_interval_s", a.heartbeatIntervalSeconds,
                                           0, 60, "seconds > 0 and at most 60");
  a.logLevel = readLogLevel(t);
  a.logFormat = readLogFormat(t);
  if (auto emulate = t.subTable("emulate")) a.emulate = readEmulate(*emulate);
  if (auto tls = t.subTable("tls")) a.tls = readTls(*tls, baseDir, true);
  if (auto limits = t.subTable("limits")) a.limits = readLimits(*limits);
  if (auto jobs = t.subTable("jobs")) a.jobs = readJobs(*jobs);
  return a;
}

ClientConfig readClient(TableReader& t, const std::string& baseDir) {
  t.allowOnly({"coordinator", "operator", "key_file", "coordinator_key", "coordinator_key_file", "secret_file", "tls"});
  ClientConfig c;
  c.coordinator = readAddress(t, "coordinator", "", true, false);
  if (t.has("secret_file") && !t.has("key_file"))
    t.failAt("secret_file", "the shared secret no longer opens a client session: make an operator key "
                            "(`hnow key new FILE`), list its public key under [[operators]] in hnowd's config, and "
                            "write operator, key_file and coordinator_key here instead (docs/security.md, "
                            "\"Moving from the shared secret\")");
  if (t.has("secret_file")) t.failAt("secret_file", "a client config takes key_file, not secret_file: remove it");
  c.operatorName = t.requireString("operator", "the operator's name, as hnowd's [[operators]] lists it");
  c.keyFile = readPath(t, "key_file", "the operator's private key (`hnow key new FILE` makes one)", baseDir);
  c.coordinatorKey = readPublicKey(t, "coordinator_key", "hnowd's public key");
  if (t.has("coordinator_key_file")) {
    if (!c.coordinatorKey.empty())
      t.failAt("coordinator_key_file", "give hnowd's public key once: coordinator_key or coordinator_key_file");
    c.coordinatorKey = readPublicKeyFile(t, "coordinator_key_file", "hnowd's public key", baseDir);
  }
  if (c.coordinatorKey.empty())
    t.failHere("missing key 'coordinator_key' in " + t.where() +
               " (hnowd's public key, ed25519:...: the line in hnowd's <data_dir>/hnowd.pub; or "
               "coordinator_key_file naming that file)");
  if (auto tls = t.subTable("tls")) c.tls = readTls(*tls, baseDir, true);
  return c;
}

template <class Config, class Reader>
Result<Config> parseWith(Reader read, std::string_view text, const std::string& file,
                         const std::string& baseDir, const char* where) {
  try {
    toml::table root = parseToml(text, file);
    TableReader t(root, file, where);
    return read(t, baseDir);
  } catch (const ConfFailure& failure) {
    return failure.error;
  }
}

template <class Config, class Reader>
Result<Config> loadWith(Reader read, const std::string& path, const char* where) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open the file for reading", path, 0, 0};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string baseDir = fs::absolute(fs::path(path)).parent_path().string();
  return parseWith<Config>(read, buffer.str(), path, baseDir, where);
}

}  // namespace

Result<CoordinatorConfig> parseCoordinatorConfig(std::string_view text, const std::string& file,
                                                 const std::string& baseDir) {
  return parseWith<CoordinatorConfig>(readCoordinator, text, file, baseDir, "hnowd's config");
}
Result<AgentConfig> parseAgentConfig(std::string_view text, const std::string& file,
                                     const std::string& baseDir) {
  return parseWith<AgentConfig>(readAgent, text, file, baseDir, "the agent's config");
}
Result<ClientConfig> parseClientConfig(std::string_view text, const std::string& file,
                                       const std::string& baseDir) {
  return parseWith<ClientConfig>(readClient, text, file, baseDir, "the client config");
}

Result<CoordinatorConfig> loadCoordinatorConfig(const std::string& path) {
  return loadWith<CoordinatorConfig>(readCoordinator, path, "hnowd's config");
}
Result<AgentConfig> loadAgentConfig(const std::string& path) {
  return loadWith<AgentConfig>(readAgent, path, "the agent's config");
}
Result<ClientConfig> loadClientConfig(const std::string& path) {
  return loadWith<ClientConfig>(readClient, path, "the client config");
}

}  // namespace hnow::conf
