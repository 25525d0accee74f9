// ClientSession's follow calls (server/progress_follow.h): the operation's
// reports pushed to the client's ProgressListener until it ends, then the
// final one as the answer. The call may be cancelled: a client that
// disconnects takes its follower, and with it the listener, along.
#include "api/manifest_wire.h"
#include "api/report_print_wire.h"
#include "api/run_wire.h"
#include "api/send_status_wire.h"
#include "core/jobs/job_service.h"
#include "core/manifest/manifest_service.h"
#include "core/send/send_service.h"
#include "server/sessions.h"
#include "transport/rpc_errors.h"

namespace hnow::daemon {

namespace {

// The follow of the operation `id` of `service` (whose status(id) reads it),
// each report pushed by `push` on the listener, the last one the answer.
template <class Status, class Service, class Context, class Push>
kj::Promise<void> followOn(kj::Timer* timer, std::shared_ptr<FollowGauge> gauge, Service* service, Context context,
                           std::string (*print)(Status), Push push, const char* unknown) {
  if (!timer) transport::refuse("this hnowd pushes no progress");
  const std::uint64_t id = context.getParams().getOperation();
  if (!service->status(id)) transport::refuse(unknown);
  auto listener = std::make_shared<wire::ProgressListener::Client>(context.getParams().getListener());
  context.allowCancellation();
  Follow<Status> follow{[service, id] { return service->status(id); }, print,
                        [listener, push](const Status& s) { return push(*listener, s); }};
  return followToEnd(*timer, std::move(gauge), std::move(follow)).then([context](Status last) mutable {
    api::toWire(last, context.getResults().initReport());
  });
}

// One report pushed by the listener's method `Request` (sendRequest,
// manifestRequest, runRequest): the three differ in nothing else.
template <class Status, auto Request>
kj::Promise<void> pushOn(wire::ProgressListener::Client& listener, const Status& status) {
  auto push = (listener.*Request)(nullptr);
  api::toWire(status, push.initReport());
  return push.send();
}

}  // namespace

kj::Promise<void> ClientSessionServer::followSend(FollowSendContext context) {
  if (!sends_) transport::refuse("this hnowd cannot send files");
  return followOn<SendStatus>(timer_, following_, sends_, context, api::reportPrint,
                              pushOn<SendStatus, &wire::ProgressListener::Client::sendRequest>,
                              "no such send operation");
}

kj::Promise<void> ClientSessionServer::followManifest(FollowManifestContext context) {
  if (!manifests_) transport::refuse("this hnowd cannot send manifests");
  return followOn<ManifestStatus>(timer_, following_, manifests_, context, api::reportPrint,
                                  pushOn<ManifestStatus, &wire::ProgressListener::Client::manifestRequest>,
                                  "no such manifest operation");
}

kj::Promise<void> ClientSessionServer::followRun(FollowRunContext context) {
  if (!jobs_) transport::refuse("this hnowd cannot run jobs");
  return followOn<RunStatus>(timer_, following_, jobs_, context, api::reportPrint,
                             pushOn<RunStatus, &wire::ProgressListener::Client::runRequest>, "no such run");
}

}  // namespace hnow::daemon
