// `hnow cancel ID` (ClientSession.cancel): the operation under way with
// that record ends now, cancelled by the session's operator; anything else
// is refused with what the record says of it.
#include <spdlog/spdlog.h>

#include <string>

#include "core/jobs/job_service.h"
#include "core/send/send_service.h"
#include "server/sessions.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

namespace {

// Why record `id` cannot be cancelled, as the operation log tells it.
std::string whyNotCancelled(Coordinator& coordinator, OperationId id) {
  const std::string name = "operation " + std::to_string(id);
  auto record = coordinator.operationLog().find(id);
  if (!record) return "cannot read " + name + ": " + record.error().message;
  if (!*record) return "no " + name + " (`hnow ops` lists them)";
  const OperationRecord& r = **record;
  if (r.status != "running" && r.status != "queued") return name + " is " + r.status + "; nothing to cancel";
  return name + " (" + r.kind + ") cannot be cancelled while it runs: only a send that has started, or a run, can";
}

}  // namespace

kj::Promise<void> ClientSessionServer::cancel(CancelContext context) {
  requireFull("cancel an operation");
  const auto id = static_cast<OperationId>(context.getParams().getOperation());
  if ((sends_ && sends_->cancel(id, operator_.name)) || (jobs_ && jobs_->cancel(id, operator_.name))) {
    spdlog::info("operator {} from {} cancelled operation {}", operator_.name, peer_, id);
    return kj::READY_NOW;
  }
  transport::refuse(whyNotCancelled(coordinator_, id));
}

}  // namespace hnow::daemon
