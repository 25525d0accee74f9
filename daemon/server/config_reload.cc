#include "server/config_reload.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>

#include "base/joined.h"
#include "server/coordinator_trust.h"

namespace hnow::daemon {

namespace {

bool sameOperator(const OperatorEntry& a, const OperatorEntry& b) {
  return a.name == b.name && a.key == b.key && a.readOnly == b.readOnly;
}

bool sameAgentKeys(const std::vector<conf::AgentKeyConfig>& a, const std::vector<conf::AgentKeyConfig>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].key != b[i].key) return false;
  return true;
}

// The keys a running hnowd cannot take over: its sockets, files and keys
// are opened at start.
std::vector<std::string> restartOnly(const conf::CoordinatorConfig& was, const conf::CoordinatorConfig& now) {
  std::vector<std::string> changed;
  if (was.listen != now.listen) changed.push_back("listen");
  if (was.dataPort != now.dataPort) changed.push_back("data_port");
  if (was.dataDir != now.dataDir) changed.push_back("data_dir");
  if (was.keyFile != now.keyFile) changed.push_back("key_file");
  if (was.adminKeyFile != now.adminKeyFile) changed.push_back("admin_key_file");
  if (was.secretFile != now.secretFile) changed.push_back("secret_file");
  if (was.logFormat != now.logFormat) changed.push_back("log_format");
  if (was.uplinkMbps != now.uplinkMbps) changed.push_back("uplink_mbps");
  if (!sameAgentKeys(was.agentKeys, now.agentKeys)) changed.push_back("[[agents]]");
  return changed;
}

}  // namespace

Result<ReloadOutcome> applyReload(Reloadable& target, const conf::CoordinatorConfig& fresh) {
  auto configured = configuredOperators(fresh.operators);
  if (!configured) return configured.error();
  std::vector<OperatorEntry> operators = std::move(configured).value();
  // hnowd's local administrator (admin_key_file) is read at start and
  // stays until a restart, as the key file it came from.
  if (!target.running.adminKeyFile.empty())
    for (const OperatorEntry& o : target.trust.operators)
      if (o.name == conf::kLocalAdminOperator) {
        if (std::any_of(fresh.operators.begin(), fresh.operators.end(),
                        [](const conf::OperatorConfig& f) { return f.name == conf::kLocalAdminOperator; }))
          return Error{std::string("operator ") + conf::kLocalAdminOperator +
                       " is hnowd's local administrator (admin_key_file) until it restarts: give yours another name"};
        operators.push_back(o);
      }
  ReloadOutcome out;
  std::vector<std::string> withdrawn;
  unsigned closed = 0;
  for (const OperatorEntry& was : target.trust.operators) {
    auto kept = std::find_if(operators.begin(), operators.end(), [&](const OperatorEntry& o) { return sameOperator(was, o); });
    if (kept != operators.end()) continue;
    withdrawn.push_back(was.name);
    if (target.trust.cuts) closed += target.trust.cuts->cut(SessionCuts::ofOperator(was.name));
  }
  std::size_t readOnly = 0;
  for (const OperatorEntry& o : operators) readOnly += o.readOnly;
  std::string line = "operators: " + std::to_string(operators.size()) + " (" + std::to_string(readOnly) + " read-only)";
  if (!withdrawn.empty())
    line += "; removed or changed: " + joined(withdrawn) + ", " + std::to_string(closed) + " open session(s) closed";
  out.applied.push_back(line);
  target.trust.operators = std::move(operators);

  target.sendRoots.set(fresh.sendRoots);
  out.applied.push_back("[send] roots: " + (fresh.sendRoots.empty() ? std::string("none") : joined(fresh.sendRoots)));
  target.runRoots.set(fresh.runRoots);
  out.applied.push_back("[run] roots: " + (fresh.runRoots.empty() ? std::string("none") : joined(fresh.runRoots)));
  if (fresh.logLevel != target.running.logLevel) {
    spdlog::set_level(spdlog::level::from_str(fresh.logLevel));
    out.applied.push_back("log_level: " + fresh.logLevel);
  }
  out.deferred = restartOnly(target.running, fresh);
  // What is compared next time is what the file said, the deferred keys
  // included: each is named once, not at every reload until a restart.
  target.running = fresh;
  return out;
}

kj::Promise<void> reloadOnHangup(kj::UnixEventPort& port, Reloadable& target, std::string configPath) {
  return port.onSignal(SIGHUP).then([&port, &target, configPath = std::move(configPath)](siginfo_t) mutable {
    auto fresh = conf::loadCoordinatorConfig(configPath);
    if (!fresh) {
      spdlog::error("reload on SIGHUP refused, hnowd runs on as it was: {}", fresh.error().text());
    } else if (auto outcome = applyReload(target, *fresh); !outcome) {
      spdlog::error("reload on SIGHUP refused, hnowd runs on as it was: {}: {}", configPath, outcome.error().message);
    } else {
      for (const std::string& line : outcome->applied) spdlog::info("reloaded {}: {}", configPath, line);
      for (const std::string& key : outcome->deferred)
        spdlog::warn("reloaded {}: {} changed, and takes effect only when hnowd restarts", configPath, key);
    }
    return reloadOnHangup(port, target, std::move(configPath));
  });
}

}  // namespace hnow::daemon
