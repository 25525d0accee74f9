// `hnow measure`: ClientSession.measure, answered once the survey asked for
// has measured the links (core/links/survey_runner.h).
#include <kj/async.h>
#include <spdlog/spdlog.h>

#include "core/links/survey_runner.h"
#include "server/sessions.h"
#include "transport/pending_answer.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

kj::Promise<void> ClientSessionServer::measure(MeasureContext context) {
  requireFull("survey links");
  if (!surveys_) transport::refuse("this hnowd does not survey links");
  std::vector<std::string> nodes;
  for (auto n : context.getParams().getNodes()) nodes.emplace_back(n);
  spdlog::info("link survey asked for by {} ({})", peer_.empty() ? "a client" : peer_,
               nodes.empty() ? std::string("every node") : std::to_string(nodes.size()) + " node(s)");
  auto pending = transport::pendingAnswer<void>();
  surveys_->request(std::move(nodes), pending.answer);
  return kj::mv(pending.promise);
}

}  // namespace hnow::daemon
