#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "conf/runtime_config.h"

using namespace hnow::conf;

namespace {

const char* kAgent = R"(name = "pc-07"
site = "room-b"
coordinator = "10.0.0.1:7411"
data_dir = "state"
secret_file = "/etc/hnow/secret"
roots = ["/srv/hnow"]
probe_interval_s = 30
heartbeat_interval_s = 0.5
log_level = "debug"

[emulate]
uplink_mbps = 100
downlink_mbps = 200.5
compute_factor = 2
)";

std::string agentError(const std::string& text) {
  auto loaded = parseAgentConfig(text, "agent.toml", "/etc/hnow");
  return loaded ? "" : loaded.error().text();
}

std::string coordinatorError(const std::string& text) {
  auto loaded = parseCoordinatorConfig(text, "hnowd.toml", "/etc/hnow");
  return loaded ? "" : loaded.error().text();
}

const std::string kCoordinatorBase = "data_dir = \"/var/lib/hnow\"\nsecret_file = \"secret\"\n";

}  // namespace

TEST_CASE("an agent config is read with every option, relative paths under the file's directory") {
  auto loaded = parseAgentConfig(kAgent, "agent.toml", "/etc/hnow");
  REQUIRE(loaded.ok());
  const AgentConfig& a = *loaded;
  CHECK(a.name == "pc-07");
  CHECK(a.site == "room-b");
  CHECK(a.coordinator == "10.0.0.1:7411");
  CHECK(a.dataDir == "/etc/hnow/state");
  CHECK(a.secretFile == "/etc/hnow/secret");
  CHECK(a.roots == std::vector<std::string>{"/srv/hnow"});
  CHECK(a.probeIntervalSeconds == 30);
  CHECK(a.heartbeatIntervalSeconds == 0.5);
  CHECK(a.maxUnauthenticatedPerHost == 8);
  CHECK(a.logLevel == "debug");
  CHECK(a.emulate.uplinkMbps == 100);
  CHECK(a.emulate.downlinkMbps == 200.5);
  CHECK(a.emulate.computeFactor == 2);
}

TEST_CASE("hnowd's config has defaults for everything but its directory and secret") {
  auto loaded = parseCoordinatorConfig(kCoordinatorBase, "hnowd.toml", "/etc/hnow");
  REQUIRE(loaded.ok());
  CHECK(loaded->listen == "0.0.0.0:7411");
  CHECK(loaded->secretFile == "/etc/hnow/secret");
  CHECK(loaded->lostTimeoutSeconds == 2.5);
  CHECK(loaded->maxUnauthenticated == 64);
  CHECK(loaded->maxUnauthenticatedPerHost == 8);
  CHECK(loaded->loginTimeoutSeconds == 10.0);
  CHECK_FALSE(loaded->tls.enabled());
  CHECK(loaded->driftThreshold == 0.25);
  CHECK(loaded->logLevel == "info");
  CHECK(loaded->uplinkMbps == 0);  // not set: measured by the surveys
  CHECK(loaded->survey.warmSeconds == 0.3);
  CHECK(loaded->survey.windowSeconds == 0.6);
  CHECK(loaded->survey.peers == 8);
  CHECK(loaded->survey.intervalSeconds == 0);
  CHECK_FALSE(loaded->survey.emulatedLinks);
  auto paced = parseCoordinatorConfig(kCoordinatorBase + "uplink_mbps = 400\n", "hnowd.toml", "/etc/hnow");
  REQUIRE(paced.ok());
  CHECK(paced->uplinkMbps == 400);
  CHECK(coordinatorError(kCoordinatorBase + "uplink_mbps = -1\n").find("'uplink_mbps' must be") != std::string::npos);
  CHECK(coordinatorError("secret_file = \"s\"\n") ==
        "hnowd.toml:1:1: missing key 'data_dir' in hnowd's config (hnowd's state directory)");
}

TEST_CASE("hnowd's [run] roots are absolute directories, none when unset, and a bad entry is named with its position") {
  auto unset = parseCoordinatorConfig(kCoordinatorBase, "hnowd.toml", "/etc/hnow");
  REQUIRE(unset.ok());
  CHECK(unset->runRoots.empty());
  auto loaded = parseCoordinatorConfig(kCoordinatorBase + "\n[run]\nroots = [\"/srv/jobs\", \"/home/lab/./data\"]\n",
                                       "hnowd.toml", "/etc/hnow");
  REQUIRE(loaded.ok());
  CHECK(loaded->runRoots == std::vector<std::string>{"/srv/jobs", "/home/lab/data"});
  CHECK(coordinatorError(kCoordinatorBase + "\n[run]\nroots = [\"/srv/jobs\", \"jobs\"]\n") ==
        "hnowd.toml:5:9: every entry of 'roots' must be an absolute path, not 'jobs'");
  CHECK(coordinatorError(kCoordinatorBase + "\n[run]\nroot = [\"/srv/jobs\"]\n") ==
        "hnowd.toml:5:8: unknown key 'root' in [run] (expected one of: calibration_max_s, roots)");
  CHECK(unset->calibrationMaxSeconds == 120.0);
  auto bounded = parseCoordinatorConfig(kCoordinatorBase + "\n[run]\ncalibration_max_s = 30\n", "hnowd.toml", "/etc/hnow");
  REQUIRE(bounded.ok());
  CHECK(bounded->calibrationMaxSeconds == 30.0);
  CHECK(coordinatorError(kCoordinatorBase + "\n[run]\ncalibration_max_s = 0\n") ==
        "hnowd.toml:5:21: 'calibration_max_s' must be seconds > 0 and at most 86400, not 0.000000");
  CHECK(coordinatorError(kCoordinatorBase + "\n[run]\nroots = \"/srv/jobs\"\n").rfind("hnowd.toml:5:9: ", 0) == 0);
}

TEST_CASE("hnowd's [survey] table is read and bounded, each bad value named with its position") {
  auto loaded = parseCoordinatorConfig(kCoordinatorBase +
                                           "\n[survey]\nwarm_s = 0.1\nwindow_s = 0.3\npeers = 4\ninterval_s = 600\n"
                                           "emulated_links = true\n",
                                       "hnowd.toml", "/etc/hnow");
  REQUIRE(loaded.ok());
  CHECK(loaded->survey.warmSeconds == 0.1);
  CHECK(loaded->survey.windowSeconds == 0.3);
  CHECK(loaded->survey.peers == 4);
  CHECK(loaded->survey.intervalSeconds == 600);
  CHECK(loaded->survey.emulatedLinks);
  CHECK(coordinatorError(kCoordinatorBase + "\n[survey]\npeers = 0\n") ==
        "hnowd.toml:5:9: 'peers' must be from 1 to 64, not 0");
  CHECK(coordinatorError(kCoordinatorBase + "\n[survey]\nwindow_s = 9\n").rfind("hnowd.toml:5:12: ", 0) == 0);
  CHECK(coordinatorError(kCoordinatorBase + "\n[survey]\ninterval_s = -1\n").find("'interval_s' must be") !=
        std::string::npos);
  CHECK(coordinatorError(kCoordinatorBase + "\n[survey]\nemulated_links = 1\n").rfind("hnowd.toml:5:18: ", 0) == 0);
  CHECK(coordinatorError(kCoordinatorBase + "\n[survey]\nwindow = 1\n").find("unknown key 'window' in [survey]") !=
        std::string::npos);
}

TEST_CASE("a misspelled key is named with its line and column") {
  CHECK(coordinatorError(kCoordinatorBase + "drift_treshold = 0.3\n") ==
        "hnowd.toml:3:18: unknown key 'drift_treshold' in hnowd's config (expected one of: "
        "admin_key_file, agents, data_dir, data_port, drift_dwell_s, drift_threshold, ewma_weight, key_file, limits, listen, log_format, "
        "log_level, login_timeout_s, lost_timeout_s, max_unauthenticated, max_unauthenticated_per_host, operators, run, "
        "secret_file, send, survey, tls, uplink_mbps, web)");
  std::string text = kAgent;
  text.replace(text.find("uplink_mbps"), 11, "uplink_mpbs");
  CHECK(agentError(text).rfind("agent.toml:12:15: unknown key 'uplink_mpbs' in [emulate]", 0) == 0);
}

TEST_CASE("bad values are refused with their position") {
  CHECK(coordinatorError(kCoordinatorBase + "listen = \"localhost\"\n")
            .rfind("hnowd.toml:3:10: 'listen' must be host:port", 0) == 0);
  CHECK(coordinatorError(kCoordinatorBase + "listen = \"127.0.0.1:70000\"\n") != "");
  CHECK(coordinatorError(kCoordinatorBase + "listen = \"127.0.0.1:0\"\n") == "");
  CHECK(coordinatorError(kCoordinatorBase + "drift_threshold = 0\n").rfind("hnowd.toml:3:19:", 0) == 0);
  CHECK(coordinatorError(kCoordinatorBase + "log_level = \"loud\"\n")
            .find("unknown log_level 'loud'") != std::string::npos);
  CHECK(coordinatorError(kCoordinatorBase + "log_format = \"xml\"\n").find("log_format 'xml'") != std::string::npos);
  CHECK(coordinatorError(kCoordinatorBase + "log_format = \"json\"\n") == "");
  CHECK(coordinatorError(kCoordinatorBase + "lost_timeout_s = \"3\"\n")
            .find("must be a number, not a string") != std::string::npos);

  auto replaced = [](const std::string& from, const std::string& to) {
    std::string text = kAgent;
    text.replace(text.find(from), from.size(), to);
    return agentError(text);
  };
  CHECK(replaced("10.0.0.1:7411", "10.0.0.1:0").find("port from 1") != std::string::npos);
  CHECK(replaced("\"pc-07\"", "\"pc 07\"").rfind("agent.toml:1:8: 'name' must be", 0) == 0);
  CHECK(replaced("[\"/srv/hnow\"]", "[\"srv\"]").find("absolute path") != std::string::npos);
  CHECK(replaced("[\"/srv/hnow\"]", "[1]").find("only strings") != std::string::npos);
  CHECK(replaced("compute_factor = 2", "compute_factor = 0.5").find("at least 1") != std::string::npos);
  CHECK(replaced("uplink_mbps = 100", "uplink_mbps = -1").find("from 0") != std::string::npos);
  CHECK(replaced("heartbeat_interval_s = 0.5", "heartbeat_interval_s = 0").rfind("agent.toml:8:", 0) == 0);
  // A site goes into hnowd's log and status table: no newline, not too long.
  CHECK(replaced("\"room-b\"", "\"lab\\n<4>forged\"") ==
        "agent.toml:2:8: 'site' is not plain text: a site must be 1 to 64 bytes of printable UTF-8, without a "
        "newline or another control character");
  CHECK(replaced("\"room-b\"", "\"" + std::string(65, 'x') + "\"").find("1 to 64 bytes") != std::string::npos);
  CHECK(replaced("\"room-b\"", "\"salle \u00e9t\u00e9\"") == "");
}

TEST_CASE("a client config needs hnowd's address and key and the operator's name and key, nothing else") {
  auto loaded = parseClientConfig("coordinator = \"127.0.0.1:4000\"\noperator = \"ana\"\nkey_file = \"ana.key\"\n"
                                  "coordinator_key = \"ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"\n",
                                  "client.toml", "/tmp/lab");
  REQUIRE(loaded.ok());
  CHECK(loaded->keyFile == "/tmp/lab/ana.key");
  CHECK(loaded->operatorName == "ana");
  CHECK(loaded->coordinatorKey == "ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
  auto typo = parseClientConfig("coordinator = \"127.0.0.1:4000\"\nsecret = \"s\"\n", "client.toml", "");
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().line == 2);
  CHECK(typo.error().message.find("unknown key 'secret'") == 0);
}

TEST_CASE("a TOML syntax error names its position") {
  auto broken = parseClientConfig("coordinator = \"127.0.0.1:4000\n", "client.toml", "");
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().line == 1);
}

TEST_CASE("a missing config file is an error, not a default") {
  auto missing = loadAgentConfig("/nonexistent/hnow-agent.toml");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().text() == "/nonexistent/hnow-agent.toml: cannot open the file for reading");
}

TEST_CASE("the example configs in dist/ load as they are") {
  const std::string dist = std::string(HNOW_SOURCE_DIR) + "/dist/";
  auto coordinator = loadCoordinatorConfig(dist + "hnowd.toml");
  CHECK_MESSAGE(coordinator.ok(), (coordinator ? "" : coordinator.error().text()));
  auto agent = loadAgentConfig(dist + "hnow-agent.toml");
  CHECK_MESSAGE(agent.ok(), (agent ? "" : agent.error().text()));
  // The client config as installed names hnowd.pub, which hnowd writes on its first start.
  std::ifstream in(dist + "client.toml");
  std::string clientText((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string pub = "/var/lib/hnow/hnowd.pub";
  REQUIRE(clientText.find(pub) != std::string::npos);
  const auto dir = std::filesystem::temp_directory_path() / ("hnow-dist-client-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "hnowd.pub") << "ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n";
  clientText.replace(clientText.find(pub), pub.size(), (dir / "hnowd.pub").string());
  auto client = parseClientConfig(clientText, dist + "client.toml", dist);
  CHECK_MESSAGE(client.ok(), (client ? "" : client.error().text()));
  if (client) CHECK(client->operatorName == "local-admin");
  std::filesystem::remove_all(dir);
  CHECK(coordinator->adminKeyFile == "/var/lib/hnow/admin.key");
}

TEST_CASE("a client config takes hnowd's public key from the file hnowd writes it to, and says why it cannot") {
  const auto dir = std::filesystem::temp_directory_path() / ("hnow-client-key-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string key = "ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  std::ofstream(dir / "hnowd.pub") << key << "\n";
  const std::string base = "coordinator = \"127.0.0.1:4000\"\noperator = \"local-admin\"\nkey_file = \"admin.key\"\n";
  auto loaded = parseClientConfig(base + "coordinator_key_file = \"hnowd.pub\"\n", "client.toml", dir.string());
  REQUIRE_MESSAGE(loaded.ok(), (loaded ? "" : loaded.error().text()));
  CHECK(loaded->coordinatorKey == key);
  auto missing = parseClientConfig(base + "coordinator_key_file = \"none.pub\"\n", "client.toml", dir.string());
  REQUIRE_FALSE(missing.ok());
  CHECK_MESSAGE(missing.error().text().find("client.toml:4:24: cannot read hnowd's public key from " +
                                            (dir / "none.pub").string() + ": No such file or directory") == 0,
                missing.error().text());
  CHECK(missing.error().message.find("coordinator_key instead") != std::string::npos);
  std::ofstream(dir / "bad.pub") << "not a key\n";
  auto bad = parseClientConfig(base + "coordinator_key_file = \"bad.pub\"\n", "client.toml", dir.string());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("must hold one line ed25519:") != std::string::npos);
  auto both = parseClientConfig(base + "coordinator_key = \"" + key + "\"\ncoordinator_key_file = \"hnowd.pub\"\n",
                                "client.toml", dir.string());
  REQUIRE_FALSE(both.ok());
  CHECK(both.error().message.find("give hnowd's public key once") == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("hnowd's admin_key_file is a path beside its config, and no [[operators]] may take the local administrator's name") {
  auto loaded = parseCoordinatorConfig(kCoordinatorBase + "admin_key_file = \"admin.key\"\n", "hnowd.toml", "/etc/hnow");
  REQUIRE_MESSAGE(loaded.ok(), (loaded ? "" : loaded.error().text()));
  CHECK(loaded->adminKeyFile == "/etc/hnow/admin.key");
  auto none = parseCoordinatorConfig(kCoordinatorBase, "hnowd.toml", "/etc/hnow");
  REQUIRE(none.ok());
  CHECK(none->adminKeyFile.empty());
  const std::string key = "ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  const std::string clash = coordinatorError(kCoordinatorBase + "admin_key_file = \"admin.key\"\n\n[[operators]]\n"
                                             "name = \"local-admin\"\nkey = \"" + key + "\"\nrights = \"read\"\n");
  CHECK_MESSAGE(clash.find("the operator local-admin is hnowd's own for admin_key_file") != std::string::npos, clash);
  // Without admin_key_file the name is anyone's.
  CHECK(parseCoordinatorConfig(kCoordinatorBase + "\n[[operators]]\nname = \"local-admin\"\nkey = \"" + key +
                                   "\"\nrights = \"read\"\n", "hnowd.toml", "/etc/hnow").ok());
}

TEST_CASE("a data port is 0 (the OS chooses) unless set, fixed for firewalls in the examples, and bounded") {
  auto unset = parseCoordinatorConfig(kCoordinatorBase, "hnowd.toml", "/etc/hnow");
  REQUIRE(unset.ok());
  CHECK(unset->dataPort == 0);
  auto fixed = parseCoordinatorConfig(kCoordinatorBase + "data_port = 7412\n", "hnowd.toml", "/etc/hnow");
  REQUIRE(fixed.ok());
  CHECK(fixed->dataPort == 7412);
  CHECK(coordinatorError(kCoordinatorBase + "data_port = 70000\n") ==
        "hnowd.toml:3:13: 'data_port' must be from 0 (the OS chooses) to 65535, not 70000");
  const std::string dist = std::string(HNOW_SOURCE_DIR) + "/dist/";
  CHECK(loadCoordinatorConfig(dist + "hnowd.toml")->dataPort == 7412);
  CHECK(loadAgentConfig(dist + "hnow-agent.toml")->dataPort == 7413);
}

TEST_CASE("connection limits are read and bounded") {
  auto loaded = parseCoordinatorConfig(kCoordinatorBase + "max_unauthenticated = 8\nlogin_timeout_s = 2.5\n",
                                       "hnowd.toml", "/etc/hnow");
  REQUIRE(loaded.ok());
  CHECK(loaded->maxUnauthenticated == 8);
  CHECK(loaded->loginTimeoutSeconds == 2.5);
  CHECK(coordinatorError(kCoordinatorBase + "max_unauthenticated = 0\n") ==
        "hnowd.toml:3:23: 'max_unauthenticated' must be from 1 to 100000, not 0");
  CHECK(coordinatorError(kCoordinatorBase + "max_unauthenticated = 1.5\n").find("must be an integer") !=
        std::string::npos);
  CHECK(coordinatorError(kCoordinatorBase + "login_timeout_s = 0\n").rfind("hnowd.toml:3:19:", 0) == 0);
  auto perHost = parseCoordinatorConfig(kCoordinatorBase + "max_unauthenticated_per_host = 32\n", "hnowd.toml", "/etc/hnow");
  REQUIRE(perHost.ok());
  CHECK(perHost->maxUnauthenticatedPerHost == 32);
  CHECK(coordinatorError(kCoordinatorBase + "max_unauthenticated_per_host = 0\n") ==
        "hnowd.toml:3:32: 'max_unauthenticated_per_host' must be from 1 to 100000, not 0");
}

TEST_CASE("[tls] takes certificate, key and CA together, peers also name hnowd's certificate") {
  auto hnowd = parseCoordinatorConfig(
      kCoordinatorBase + "[tls]\ncert_file = \"hnowd.pem\"\nkey_file = \"hnowd.key\"\nca_file = \"/pki/ca.pem\"\n",
      "hnowd.toml", "/etc/hnow");
  REQUIRE(hnowd.ok());
  CHECK(hnowd->tls.enabled());
  CHECK(hnowd->tls.certFile == "/etc/hnow/hnowd.pem");
  CHECK(hnowd->tls.keyFile == "/etc/hnow/hnowd.key");
  CHECK(hnowd->tls.caFile == "/pki/ca.pem");
  CHECK(coordinatorError(kCoordinatorBase + "[tls]\ncert_file = \"a\"\nkey_file = \"b\"\n") ==
        "hnowd.toml:3:1: missing key 'ca_file' in [tls] (the CA that signs the peers' certificates (PEM))");
  CHECK(coordinatorError(kCoordinatorBase + "[tls]\ncert_file = \"a\"\nkey_file = \"b\"\nca_file = \"c\"\n"
                         "server_name = \"x\"\n").rfind("hnowd.toml:7:15: unknown key 'server_name' in [tls]", 0) == 0);

  auto agent = parseAgentConfig(std::string(kAgent).replace(std::string(kAgent).find("[emulate]"), 9,
                                    "[tls]\ncert_file = \"a.pem\"\nkey_file = \"a.key\"\nca_file = \"ca.pem\"\n"
                                    "server_name = \"coordinator.lab\"\n[emulate]"),
                                "agent.toml", "/etc/hnow");
  REQUIRE_MESSAGE(agent.ok(), (agent ? "" : agent.error().text()));
  CHECK(agent->tls.caFile == "/etc/hnow/ca.pem");
  CHECK(agent->tls.serverName == "coordinator.lab");
  auto client = parseClientConfig("coordinator = \"h:1\"\noperator = \"o\"\nkey_file = \"o.key\"\n"
                                  "coordinator_key = \"ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"\n[tls]\ncert_file = \"c\"\n"
                                  "key_file = \"k\"\nca_file = \"ca\"\n",
                                  "client.toml", "/etc/hnow");
  REQUIRE(client.ok());
  CHECK(client->tls.serverName == "hnowd");
}

TEST_CASE("[limits] is read in both configs with its caps and schedule, none when absent") {
  auto agent = parseAgentConfig(std::string(kAgent) +
                                    "\n[limits]\nmax_uplink_mbps = 200\nmax_downlink_mbps = 500\n"
                                    "schedule = [\"08:00-18:00 weekdays: 20%\", \"mon-fri 12:00-13:00: 50 mbps up\"]\n",
                                "agent.toml", "/etc/hnow");
  REQUIRE(agent.ok());
  CHECK(agent->limits.maxUplinkMbps == 200);
  CHECK(agent->limits.maxDownlinkMbps == 500);
  REQUIRE(agent->limits.schedule.size() == 2);
  CHECK(agent->limits.schedule[0].percent == 20);
  CHECK(agent->limits.schedule[1].mbps == 50);
  CHECK_FALSE(agent->limits.schedule[1].down);
  CHECK(agent->limits.schedule[1].text == "mon-fri 12:00-13:00: 50 mbps up");

  auto hnowd = parseCoordinatorConfig(kCoordinatorBase + "[limits]\nmax_uplink_mbps = 300\n", "hnowd.toml", "/etc/hnow");
  REQUIRE(hnowd.ok());
  CHECK(hnowd->limits.maxUplinkMbps == 300);
  CHECK(hnowd->limits.schedule.empty());

  auto plain = parseCoordinatorConfig(kCoordinatorBase, "hnowd.toml", "/etc/hnow");
  REQUIRE(plain.ok());
  CHECK(plain->limits.empty());
}

TEST_CASE("a bad [limits] entry is refused with the file, its position, the key, the entry and how to write it") {
  const std::string bad = coordinatorError(kCoordinatorBase + "[limits]\nschedule = [\"08:00-18:00 weekdays: 20%\",\n"
                                                              "  \"8-18 weekdays: 20%\"]\n");
  CHECK(bad.find("hnowd.toml:5:") == 0);
  CHECK(bad.find("[limits] schedule") != std::string::npos);
  CHECK(bad.find("'8-18 weekdays: 20%'") != std::string::npos);
  CHECK(bad.find("e.g. \"08:00-18:00 weekdays: 20%\"") != std::string::npos);
  CHECK(agentError(std::string(kAgent) + "\n[limits]\nmax_uplink_mbps = -1\n").find("agent.toml:") == 0);
  CHECK(agentError(std::string(kAgent) + "\n[limits]\nmax_uplink_mbps = -1\n").find("'max_uplink_mbps' in [limits]") !=
        std::string::npos);
  CHECK(agentError(std::string(kAgent) + "\n[limits]\nmax_up_mbps = 5\n").find("max_up_mbps") != std::string::npos);
  CHECK(agentError(std::string(kAgent) + "\n[limits]\nschedule = [5]\n").find("schedule") != std::string::npos);
}

TEST_CASE("hnowd's operators and agents are read with their keys and rights, and a bad one is named with its place") {
  const std::string key = "ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  auto loaded = parseCoordinatorConfig(kCoordinatorBase + "\n[[operators]]\nname = \"ana\"\nkey = \"" + key +
                                           "\"\nrights = \"full\"\n\n[[operators]]\nname = \"viewer\"\nkey = \"" + key +
                                           "\"\nrights = \"read\"\n\n[[agents]]\nname = \"pc-01\"\nkey = \"" + key + "\"\n",
                                       "hnowd.toml", "/etc/hnow");
  REQUIRE_MESSAGE(loaded.ok(), (loaded ? "" : loaded.error().text()));
  REQUIRE(loaded->operators.size() == 2);
  CHECK_FALSE(loaded->operators[0].readOnly);
  CHECK(loaded->operators[1].readOnly);
  CHECK(loaded->operators[1].name == "viewer");
  REQUIRE(loaded->agentKeys.size() == 1);
  CHECK(loaded->agentKeys[0].name == "pc-01");
  CHECK(loaded->keyFile == "/var/lib/hnow/hnowd.key");  // beside hnowd's state unless told
  const std::string shortKey =
      coordinatorError(kCoordinatorBase + "\n[[operators]]\nname = \"ana\"\nkey = \"ed25519:short\"\nrights = \"full\"\n");
  CHECK_MESSAGE(shortKey.find("hnowd.toml:6:7: an operator's 'key' must read ed25519:") == 0, shortKey);
  CHECK(coordinatorError(kCoordinatorBase + "\n[[operators]]\nname = \"ana\"\nkey = \"" + key + "\"\n")
            .find("missing key 'rights'") != std::string::npos);
  CHECK(coordinatorError(kCoordinatorBase + "\n[[operators]]\nname = \"ana\"\nkey = \"" + key +
                         "\"\nrights = \"admin\"\n").find("rights") != std::string::npos);
  CHECK(coordinatorError(kCoordinatorBase + "\n[[agents]]\nname = \"hnowd\"\nkey = \"" + key + "\"\n")
            .find("not 'hnowd'") != std::string::npos);
  CHECK(coordinatorError(kCoordinatorBase + "\n[[agents]]\nname = \"a\"\nkey = \"" + key +
                         "\"\n[[agents]]\nname = \"a\"\nkey = \"" + key + "\"\n").find("listed twice") != std::string::npos);
}

TEST_CASE("a client config with the old shared secret is refused, saying how to make an operator key") {
  auto old = parseClientConfig("coordinator = \"127.0.0.1:4000\"\nsecret_file = \"secret\"\n", "client.toml", "/tmp");
  REQUIRE_FALSE(old.ok());
  CHECK_MESSAGE(old.error().text().find("client.toml:2:15: the shared secret no longer opens a client session") == 0,
                old.error().text());
  CHECK(old.error().message.find("hnow key new FILE") != std::string::npos);
  auto noKey = parseClientConfig("coordinator = \"h:1\"\noperator = \"o\"\nkey_file = \"o.key\"\n", "client.toml", "/tmp");
  REQUIRE_FALSE(noKey.ok());
  CHECK(noKey.error().message.find("missing key 'coordinator_key'") == 0);
}
