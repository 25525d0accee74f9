// A manifest's destination back afresh (Coordinator::attach): its new
// process holds no order of the manifest, so each item that waits for its
// copy gives it the item's order again, and the copy rejoins the item once
// it answers, resuming from the bytes its earlier process left
// (core/send/order_again.h, as for a single send) instead of failing when
// the wait for it runs out.
#include "core/manifest/manifest_running.h"
#include "core/send/order_again.h"

namespace hnow::daemon {

void ManifestService::agentBackAfresh(const std::string& agent) {
  for (auto& [id, running] : operations_)
    for (std::size_t k = 0; k < running->items.size(); ++k) {
      Item& it = running->items[k];
      // A lost source failed what it had not delivered (agentGone).
      if (it.released || it.names[0] == agent || !it.operation->awaitsReturn(agent)) continue;
      const std::uint64_t manifest = id;  // a copy: a structured binding is not captured by every compiler
      orderAgain(
          coordinator_, agent, "manifest " + std::to_string(manifest) + ", item at " + it.request.where,
          receiveOrder(*running, it, agent),
          [this, manifest, k]() -> SendRun* {
            auto found = operations_.find(manifest);
            if (found == operations_.end()) return nullptr;
            Item& item = found->second->items[k];
            return item.released ? nullptr : item.operation.get();
          },
          [this, manifest](SendRun&) { endIfFinished(*operations_.at(manifest)); });
    }
}

}  // namespace hnow::daemon
