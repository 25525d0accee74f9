#pragma once
// A send's request as state.db keeps it (StoredOwedSend: path, dest and
// flags), for the sends owed to agents (owed_sends.h) and those under way
// when hnowd stopped (sends_under_way.h): both run it again later.
#include <functional>

#include "core/send/send_service.h"
#include "state/state_store.h"

namespace hnow::daemon {

// Starts a send again (SendService::start): answers with its operation id
// or the refusal.
using SendStarter = std::function<void(SendRequest request, std::function<void(const Result<std::uint64_t>&)> started)>;
// SendService::start of `sends` as one.
SendStarter startOn(SendService& sends);

// The request's path, dest and flags; its id, agents and since are the caller's.
StoredOwedSend storedOf(const SendRequest& request);
// The request those make again, `to` its agents.
SendRequest requestOf(const StoredOwedSend& stored, std::vector<std::string> to);

}  // namespace hnow::daemon
