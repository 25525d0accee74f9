// Preparing a manifest's agents: each source serves its item's file, then
// each destination opens its receive; any refusal stops the manifest
// before a byte moves.
#include <spdlog/spdlog.h>

#include "base/hex.h"
#include "core/agent_answers.h"
#include "server/manifest_running.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

namespace {

// Every agent's answer, in the order asked, as a promise. Held by pointer:
// GCC 12 warns falsely about strings inside kj's ExceptionOr.
template <class T>
using Answers = std::shared_ptr<std::vector<Result<T>>>;

template <class T>
kj::Promise<Answers<T>> ask(Coordinator& coordinator, const std::vector<std::string>& agents,
                            const std::function<void(AgentLink&, std::size_t, std::function<void(const Result<T>&)>)>& what) {
  auto paf = kj::newPromiseAndFulfiller<Answers<T>>();
  auto fulfiller = std::make_shared<kj::Own<kj::PromiseFulfiller<Answers<T>>>>(kj::mv(paf.fulfiller));
  askAgents<T>(
      agents, [&coordinator](const std::string& name) { return coordinator.link(name); }, what,
      [fulfiller](std::vector<Result<T>> answers) {
        (*fulfiller)->fulfill(std::make_shared<std::vector<Result<T>>>(std::move(answers)));
      });
  return kj::mv(paf.promise);
}

}  // namespace

kj::Promise<void> ManifestService::prepareSources(Running& running) {
  std::vector<std::string> sources;
  for (const Item& it : running.items) sources.push_back(it.names[0]);
  using Served = AgentLink::ServedFile;
  auto serve = [&running](AgentLink& link, std::size_t k, std::function<void(const Result<Served>&)> answer) {
    const Item& it = running.items[k];
    link.serveFile(it.token, it.request.file, answer);
  };
  return ask<Served>(coordinator_, sources, serve).then([this, &running](Answers<Served> results) {
    std::string refusals;
    for (std::size_t k = 0; k < results->size(); ++k) {
      Item& it = running.items[k];
      const Result<Served>& served = (*results)[k];
      if (!served) {
        refusals += (refusals.empty() ? "" : "; ") + std::string("item at ") + it.request.where + ": " +
                    it.names[0] + " cannot serve " + it.request.file + ": " + served.error().message;
        continue;
      }
      it.serving = true;
      it.nodes.size = served->size;
      it.sha256 = served->sha256;
      it.sha256Hex = hnow::hexOf(reinterpret_cast<const unsigned char*>(it.sha256.data()), it.sha256.size());
    }
    if (!refusals.empty()) refuse(running, refusals);
  });
}

kj::Promise<void> ManifestService::prepareReceives(Running& running) {
  std::vector<std::string> destinations;
  std::vector<const Item*> itemOf;  // per destination
  for (const Item& it : running.items)
    for (std::size_t i = 1; i < it.names.size(); ++i) destinations.push_back(it.names[i]), itemOf.push_back(&it);
  auto receive = [itemOf](AgentLink& link, std::size_t k, std::function<void(const Result<std::string>&)> answer) {
    const Item& it = *itemOf[k];
    link.receive({it.token, it.request.dest, it.nodes.size, it.sha256}, answer);
  };
  return ask<std::string>(coordinator_, destinations, receive).then([this, &running](Answers<std::string> results) {
    std::string refusals;
    std::size_t at = 0;
    for (Item& it : running.items) {
      it.paths.assign(1, "");
      for (std::size_t i = 1; i < it.names.size(); ++i, ++at) {
        const Result<std::string>& path = (*results)[at];
        it.paths.push_back(path ? *path : "");
        if (!path)
          refusals += (refusals.empty() ? "" : "; ") + std::string("item at ") + it.request.where + ": " +
                      it.names[i] + " refused " + it.request.dest + ": " + path.error().message;
      }
    }
    if (!refusals.empty()) refuse(running, refusals);
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
