#pragma once
// `hnow status`, `hnow agent set-rate` and `hnow ops`: the client side of hnowd.
#include <string>
#include <vector>

#include "cli/coordinator_client.h"

namespace hnow::cli {

// Where `hnow` looks for client.toml when --config is not given.
inline constexpr const char* kDefaultClientConfig = "/etc/hnow/client.toml";

struct StatusOptions {
  std::string configPath = kDefaultClientConfig;
  bool json = false;
};

struct MeasureOptions {
  std::string configPath = kDefaultClientConfig;
  std::vector<std::string> nodes;  // empty: every node
  bool json = false;
  double timeoutSeconds = 600;
};

struct SetRateOptions {
  std::string configPath = kDefaultClientConfig;
  std::string agent;
  RateChange change;
};

struct OpsOptions {
  std::string configPath = kDefaultClientConfig;
  bool json = false;
  unsigned limit = 20;
};

// 0 on success, 2 for a bad config, 1 when hnowd cannot be reached or refuses.
int runStatusCommand(const StatusOptions& options);
int runMeasureCommand(const MeasureOptions& options);
int runSetRateCommand(const SetRateOptions& options);
// `hnow agent forget NAME`: a machine gone for good leaves status and sends.
int runForgetCommand(const std::string& configPath, const std::string& agent);
int runOpsCommand(const OpsOptions& options);

// {"operations": [{"id", "kind", "status", "started_unix_s", "finished_unix_s"
// (null while running), "summary": {...}}]}, newest first.
std::string opsJson(const std::vector<api::OperationSummary>& records);
std::string opsTable(const std::vector<api::OperationSummary>& records);
// The "error" of a record's summary (why it failed or was interrupted); "" none.
std::string recordError(const std::string& summary);

// {"coordinator": {"name", "surveying", "links"}, "agents": [{"name", "site",
// "state", "age_s", "rates": {...}, "links": {"uplink": {...}, "downlink":
// {...}}, "roots", "relay_faults", "relay_suspect", "key_hosts": {"hosts",
// "changes", "latest_s"} or null}]}; docs/link-rates.md
// describes a link's fields.
std::string statusJson(const api::CoordinatorStatus& status);
std::string statusTable(const api::CoordinatorStatus& status);
// The `!` note of an agent caught relaying bytes that differ from the
// source's: "agent-1: relayed bytes that differ from the source's 2 times;
// planned as a leaf (relays nothing)".
std::string relayFaultsNote(const api::AgentStatus& agent);
// The `!` note of an agent whose key logs in from two hosts by turns:
// "agent-1: its key logs in from 10.0.0.5 and from 10.0.0.9 by turns (3
// changes of host, the latest 12 s ago): used on two machines? ...".
std::string keyHostsNote(const api::AgentStatus& agent);

}  // namespace hnow::cli
