// `hnow cancel ID` (ClientSession.cancel): the operation under way with
// that record (a send, also while it is prepared; a manifest; a run) ends
// now, cancelled by the session's operator; the record of an --until-all
// send drops what it still owes; anything else is refused with what the
// record says of it.
#include <spdlog/spdlog.h>

#include <string>

#include "base/joined.h"
#include "core/jobs/job_service.h"
#include "core/manifest/manifest_service.h"
#include "core/send/owed_sends.h"
#include "core/send/send_service.h"
#include "core/send/sends_under_way.h"
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
  return name + " (" + r.kind + ") cannot be cancelled while it runs: only a send, a manifest or a run can";
}

}  // namespace

kj::Promise<void> ClientSessionServer::cancel(CancelContext context) {
  requireFull("cancel an operation");
  const auto id = static_cast<OperationId>(context.getParams().getOperation());
  const std::string who = operator_.name;
  if ((sends_ && sends_->cancel(id, who)) || (manifests_ && manifests_->cancel(id, who)) ||
      (jobs_ && jobs_->cancel(id, who)) || (underWay_ && underWay_->cancel(id, who))) {
    spdlog::info("operator {} from {} cancelled operation {}", who, peer_, id);
    context.getResults().setNote("operation " + std::to_string(id) +
                                 " cancelled: its agents stopped and removed their partial copies");
    return kj::READY_NOW;
  }
  if (auto owed = owed_ ? owed_->cancel(id, who) : std::nullopt) {
    spdlog::info("operator {} from {} dropped what send {} owed", who, peer_, id);
    context.getResults().setNote("send " + std::to_string(id) + " is no longer owed to " + joined(*owed) +
                                 " (--until-all): they get nothing when they are connected again; a send "
                                 "already under way to them has its own record to cancel");
    return kj::READY_NOW;
  }
  transport::refuse(whyNotCancelled(coordinator_, id));
}

}  // namespace hnow::daemon
