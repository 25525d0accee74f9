#pragma once
// hnowd's identity and who may log in, from its configuration
// (docs/security.md): its public key written for clients and agents, the
// operators it accepts, at start and at each reload, and the summary it
// logs of them.
#include <string>
#include <vector>

#include "base/result.h"
#include "conf/runtime_config.h"
#include "server/trust.h"
#include "transport/identity.h"

namespace hnow::daemon {

// <data_dir>/hnowd.pub: hnowd's public key, for operators' client configs
// (coordinator_key, coordinator_key_file) and agents set up without a token.
void writePublicKey(const conf::CoordinatorConfig& config, const transport::KeyPair& key);

// [[operators]] with their keys parsed; an error names the operator whose
// key does not parse.
Result<std::vector<OperatorEntry>> configuredOperators(const std::vector<conf::OperatorConfig>& operators);

// What hnowd accepts at start: configuredOperators, and the local
// administrator of admin_key_file, its key made on the first start, so that
// root on this host (the packages' client config names that file) uses
// hnow before any operator is written.
Result<std::vector<OperatorEntry>> operatorsAtStart(const conf::CoordinatorConfig& config);

// hnowd's key, its operators and agent keys, and the warnings they call for.
void logTrust(const conf::CoordinatorConfig& config, const std::string& configPath, const Trust& trust);

}  // namespace hnow::daemon
