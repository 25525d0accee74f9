#include "server/coordinator_trust.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>

namespace hnow::daemon {

void writePublicKey(const conf::CoordinatorConfig& config, const transport::KeyPair& key) {
  const auto path = std::filesystem::path(config.dataDir) / "hnowd.pub";
  std::ofstream(path) << transport::keyText(key.publicKey()) << "\n";
}

Result<std::vector<OperatorEntry>> configuredOperators(const std::vector<conf::OperatorConfig>& operators) {
  std::vector<OperatorEntry> out;
  for (const conf::OperatorConfig& o : operators) {
    auto parsed = transport::parseKeyText(o.key);
    if (!parsed) return Error{"operator " + o.name + ": " + parsed.error().message};
    out.push_back({o.name, parsed.value(), o.readOnly});
  }
  return out;
}

Result<std::vector<OperatorEntry>> operatorsAtStart(const conf::CoordinatorConfig& config) {
  auto configured = configuredOperators(config.operators);
  if (!configured || config.adminKeyFile.empty()) return configured;
  std::vector<OperatorEntry> out = std::move(configured).value();
  auto admin = transport::loadOrCreateKeyFile(config.adminKeyFile);
  if (!admin) return Error{"admin_key_file: " + admin.error().message};
  out.push_back({conf::kLocalAdminOperator, admin->publicKey(), false});
  spdlog::info("operator {} is whoever can read {}: a client config with operator = \"{}\" and key_file = that file",
               conf::kLocalAdminOperator, config.adminKeyFile, conf::kLocalAdminOperator);
  return out;
}

void logTrust(const conf::CoordinatorConfig& config, const std::string& configPath, const Trust& trust) {
  std::size_t readOnly = 0;
  for (const auto& o : trust.operators) readOnly += o.readOnly;
  spdlog::info("hnowd's key is {} ({}); {} operator(s), {} of them read-only; {} agent key(s) in {}",
               transport::keyText(trust.hnowdKey->publicKey()), config.keyFile, trust.operators.size(), readOnly,
               config.agentKeys.size(), configPath);
  if (trust.operators.empty())
    spdlog::warn("no [[operators]] in {}: no one can use hnow against this hnowd (docs/security.md)", configPath);
  if (trust.sharedSecret)
    spdlog::warn("secret_file is set in {}: an agent that proves the shared secret may enroll its key under any free "
                 "name. Remove it once every agent has enrolled (docs/security.md, \"Moving from the shared "
                 "secret\")", configPath);
}

}  // namespace hnow::daemon
