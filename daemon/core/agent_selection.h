#pragma once
// Which agents an operation goes to, the same for a send, a manifest item
// and a job: `--to` names agents or sites ("all", or nothing, is every one)
// among the agents that can take part; a name that matches none is refused.
#include <string>
#include <vector>

#include "base/result.h"
#include "core/coordinator.h"
#include "core/send/skipped_agent.h"

namespace hnow::daemon {

// Alive, connected and with a data plane: an agent that can take part now.
bool canTakePart(const AgentView& agent);

// `to` covers the agent: it is every agent ("all" or nothing), or names the
// agent or its site.
bool wantedBy(const AgentView& agent, const std::vector<std::string>& to);


// The agents `to` covers (all, a site, names) that cannot take part now,
// each with why: lost (and when it was last heard), not connected, or
// without a data plane.
std::vector<SkippedAgent> absentWanted(const std::vector<AgentView>& agents, const std::vector<std::string>& to,
                                            TimePoint now);

// The candidates `to` names, in their order. A name that matches no
// candidate is an error: "no alive agent or site named 'X'" + `unmatched`
// (what the candidates had to be, e.g. " that runs jobs").
Result<std::vector<AgentView>> selectAgents(std::vector<AgentView> candidates, const std::vector<std::string>& to,
                                            const std::string& unmatched = "");

// A destination no agent would accept, refused before anything is opened:
// empty, longer than kMaxDestBytes, with a control character or a ".."
// component. `option` names it in the error ("--dest").
inline constexpr std::size_t kMaxDestBytes = 4096;  // PATH_MAX
Result<void> checkDestination(const std::string& dest, const std::string& option);

}  // namespace hnow::daemon
