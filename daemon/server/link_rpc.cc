// `hnow measure`: ClientSession.measure, answered once the survey asked for
// has measured the links (core/survey_runner.h).
#include <kj/async.h>
#include <spdlog/spdlog.h>

#include "core/survey_runner.h"
#include "server/sessions.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

kj::Promise<void> ClientSessionServer::measure(MeasureContext context) {
  if (!surveys_) transport::refuse("this hnowd does not survey links");
  std::vector<std::string> nodes;
  for (auto n : context.getParams().getNodes()) nodes.emplace_back(n);
  auto paf = kj::newPromiseAndFulfiller<void>();
  auto fulfiller = std::make_shared<kj::Own<kj::PromiseFulfiller<void>>>(kj::mv(paf.fulfiller));
  spdlog::info("link survey asked for by {} ({})", peer_.empty() ? "a client" : peer_,
               nodes.empty() ? std::string("every node") : std::to_string(nodes.size()) + " node(s)");
  surveys_->request(std::move(nodes), [fulfiller](const Result<void>& measured) {
    if (!(*fulfiller)->isWaiting()) return;  // the client went away
    if (measured) (*fulfiller)->fulfill();
    else
      (*fulfiller)->reject(transport::refusal(measured.error().message));
  });
  return kj::mv(paf.promise);
}

}  // namespace hnow::daemon
