// Preparing a manifest's agents: each source serves its item's file, then
// each destination opens its receive; any refusal stops the manifest
// before a byte moves.
#include <spdlog/spdlog.h>

#include "base/hex.h"
#include "server/manifest_running.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

kj::Promise<void> ManifestService::prepareSources(Running& running) {
  auto answers = kj::heapArrayBuilder<kj::Promise<AnswerPtr>>(running.items.size());
  for (Item& it : running.items) {
    auto paf = kj::newPromiseAndFulfiller<AnswerPtr>();
    auto fulfiller = std::make_shared<kj::Own<kj::PromiseFulfiller<AnswerPtr>>>(kj::mv(paf.fulfiller));
    if (AgentLink* link = coordinator_.link(it.names[0])) {
      link->serveFile(it.token, it.request.file,
                      [fulfiller](const std::string& error, std::uint64_t size, const std::string& sha) {
                        (*fulfiller)->fulfill(std::make_shared<Answer>(Answer{error, size, sha}));
                      });
    } else {
      (*fulfiller)->fulfill(std::make_shared<Answer>(Answer{"not connected", 0, ""}));
    }
    answers.add(kj::mv(paf.promise));
  }
  return kj::joinPromises(answers.finish()).then([this, &running](kj::Array<AnswerPtr> results) {
    std::string refusals;
    for (std::size_t k = 0; k < results.size(); ++k) {
      Item& it = running.items[k];
      if (!results[k]->error.empty()) {
        refusals += (refusals.empty() ? "" : "; ") + std::string("item at ") + it.request.where + ": " +
                    it.names[0] + " cannot serve " + it.request.file + ": " + results[k]->error;
        continue;
      }
      it.serving = true;
      it.nodes.size = results[k]->size;
      it.sha256 = results[k]->text;
      it.sha256Hex = hnow::hexOf(reinterpret_cast<const unsigned char*>(it.sha256.data()),
                                            it.sha256.size());
    }
    if (!refusals.empty()) refuse(running, refusals);
  });
}

kj::Promise<void> ManifestService::prepareReceives(Running& running) {
  std::size_t count = 0;
  for (const Item& it : running.items) count += it.nodes.destinations.size();
  auto answers = kj::heapArrayBuilder<kj::Promise<AnswerPtr>>(count);
  for (Item& it : running.items) {
    for (std::size_t i = 1; i < it.names.size(); ++i) {
      auto paf = kj::newPromiseAndFulfiller<AnswerPtr>();
      auto fulfiller = std::make_shared<kj::Own<kj::PromiseFulfiller<AnswerPtr>>>(kj::mv(paf.fulfiller));
      if (AgentLink* link = coordinator_.link(it.names[i])) {
        link->receive({it.token, it.request.dest, it.nodes.size, it.sha256},
                      [fulfiller](const std::string& error, const std::string& path) {
                        (*fulfiller)->fulfill(std::make_shared<Answer>(Answer{error, 0, path}));
                      });
      } else {
        (*fulfiller)->fulfill(std::make_shared<Answer>(Answer{"not connected", 0, ""}));
      }
      answers.add(kj::mv(paf.promise));
    }
  }
  return kj::joinPromises(answers.finish()).then([this, &running](kj::Array<AnswerPtr> results) {
    std::string refusals;
    std::size_t at = 0;
    for (Item& it : running.items) {
      it.paths.assign(1, "");
      for (std::size_t i = 1; i < it.names.size(); ++i, ++at) {
        it.paths.push_back(results[at]->text);
        if (!results[at]->error.empty())
          refusals += (refusals.empty() ? "" : "; ") + std::string("item at ") + it.request.where + ": " +
                      it.names[i] + " refused " + it.request.dest + ": " + results[at]->error;
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
