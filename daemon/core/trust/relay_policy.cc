#include "core/trust/relay_policy.h"

#include <spdlog/spdlog.h>

namespace hnow::daemon {

void RelayPolicy::registered(const std::string& agent, const std::string& dataAddress) {
  if (!probe_ || dataAddress.empty() || !reach_.needsCheck(agent, dataAddress)) return;
  probe_->check(dataAddress, [this, agent, dataAddress](Result<void> outcome) {
    const bool was = reach_.reachable(agent);
    reach_.checked(agent, dataAddress, outcome);
    if (was && !reach_.reachable(agent)) spdlog::warn("agent {}: {}", agent, reach_.view(agent).note);
    if (!was && reach_.reachable(agent)) spdlog::info("agent {} accepts connections at {} again", agent, dataAddress);
  });
}

}  // namespace hnow::daemon
