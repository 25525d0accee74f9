// Preparing a manifest's agents: each source serves its item's file, then
// each destination opens its receive; any refusal stops the manifest
// before a byte moves.
#include <spdlog/spdlog.h>

#include "base/hex.h"
#include "core/send/agent_answers.h"
#include "core/manifest/manifest_running.h"
#include "core/send/order_again.h"

namespace hnow::daemon {

void ManifestService::prepareSources(Running& running, Prepared prepared) {
  std::vector<std::string> sources;
  for (const Item& it : running.items) sources.push_back(it.names[0]);
  using Served = AgentLink::ServedFile;
  askAgents<Served>(
      sources, [this](const std::string& name) { return coordinator_.link(name); },
      [this, &running](AgentLink& link, std::size_t k, std::function<void(const Result<Served>&)> answer) {
        const Item& it = running.items[k];
        // Each source relays as a send's agents do: a little under its uplink, within --max-rate.
        link.serveFile(it.token, it.request.file, capped(coordinator_.pacing().agentUplinkPace(it.names[0]), running.maxRate),
                       answer);
      },
      [this, &running, prepared](std::vector<Result<Served>> results) {
        std::string refusals;
        for (std::size_t k = 0; k < results.size(); ++k) {
          Item& it = running.items[k];
          const Result<Served>& served = results[k];
          if (!served) {
            refusals += (refusals.empty() ? "" : "; ") + std::string("item at ") + it.request.where + ": " +
                        it.names[0] + " cannot serve " + it.request.file + ": " + served.error().message;
            continue;
          }
          it.serving = true;
          it.nodes.size = served->size;
          it.sha256 = served->sha256;
          it.digestChunkBytes = served->digestChunkBytes;
          it.pieceDigests = served->pieceDigests;
          it.sha256Hex = hnow::hexOf(reinterpret_cast<const unsigned char*>(it.sha256.data()), it.sha256.size());
        }
        if (!refusals.empty()) return prepared(refused(running, refusals));
        prepared({});
      });
}

AgentLink::ReceiveOrder ManifestService::receiveOrder(const Running& running, const Item& it,
                                                      const std::string& agent) const {
  AgentLink::ReceiveOrder order{it.token, it.request.dest, it.nodes.size, it.sha256, {}, 0};
  order.digestChunkBytes = it.digestChunkBytes;
  order.pieceDigests = it.pieceDigests;
  order.operation = "manifest record " + std::to_string(running.record) + ", item at " + it.request.where;
  order.progressEveryMs = AgentLink::progressEvery(running.agents.size());
  return pacedFor(order, coordinator_.pacing(), agent, running.maxRate);
}

void ManifestService::prepareReceives(Running& running, Prepared prepared) {
  std::vector<std::string> destinations;
  std::vector<const Item*> itemOf;  // per destination
  for (const Item& it : running.items)
    for (std::size_t i = 1; i < it.names.size(); ++i) destinations.push_back(it.names[i]), itemOf.push_back(&it);
  askAgents<std::string>(
      destinations, [this](const std::string& name) { return coordinator_.link(name); },
      [this, &running, &itemOf, &destinations](AgentLink& link, std::size_t k,
                                                std::function<void(const Result<std::string>&)> answer) {
        link.receive(receiveOrder(running, *itemOf[k], destinations[k]), answer);
      },
      [this, &running, prepared](std::vector<Result<std::string>> results) {
        std::string refusals;
        std::size_t at = 0;
        for (Item& it : running.items) {
          it.paths.assign(1, "");
          for (std::size_t i = 1; i < it.names.size(); ++i, ++at) {
            const Result<std::string>& path = results[at];
            it.paths.push_back(path ? *path : "");
            if (!path)
              refusals += (refusals.empty() ? "" : "; ") + std::string("item at ") + it.request.where + ": " +
                          it.names[i] + " refused " + it.request.dest + ": " + path.error().message;
          }
        }
        if (!refusals.empty()) return prepared(refused(running, refusals));
        prepared({});
      });
}

void ManifestService::releaseAll(Running& running) {
  for (Item& it : running.items) {
    if (it.released) continue;
    it.released = true;
    coordinator_.releaseToken(it.token);
    itemOfToken_.erase(it.token);
    for (const std::string& agent : it.names)
      if (AgentLink* link = coordinator_.link(agent)) link->release(it.token);
  }
}

}  // namespace hnow::daemon
