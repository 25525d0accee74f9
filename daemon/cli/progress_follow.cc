// The client's side of pushed progress (ClientSession.followSend,
// followManifest, followRun; ProgressListener): the client hands hnowd a
// listener and waits; hnowd calls it as the operation's report changes and
// answers the follow with the final report. No polling round trips: the
// client only answers hnowd's calls, which Cap'n Proto's streaming flow
// control paces to what the client takes.
#include <chrono>
#include <memory>
#include <type_traits>

#include "api/manifest_wire.h"
#include "api/run_wire.h"
#include "api/send_status_wire.h"
#include "cli/coordinator_client.h"
#include "cli/coordinator_state.h"

namespace hnow::cli {

namespace {

using Steady = std::chrono::steady_clock;

// hnowd pushes at least every second while an operation runs: half a
// minute without one means it (or the way to it) is wedged.
constexpr auto kQuietLimit = std::chrono::seconds(30);
constexpr auto kWatchEvery = kj::SECONDS;
// An operation may run for days; the quiet limit, not a deadline, ends a wait.
constexpr auto kNoDeadline = 365LL * 24 * 3600 * kj::SECONDS;

// What the listener heard: when last, and whether the caller stopped. Shared
// with the listener, which hnowd may still call after the follow returned
// (`over`: such late calls are ignored).
struct Heard {
  Steady::time_point last = Steady::now();
  bool stopped = false;
  bool over = false;
  kj::Own<kj::PromiseFulfiller<void>> stop;
  void said() { last = Steady::now(); }
  void halt() {
    if (stopped) return;
    stopped = true;
    stop->reject(transport::refusal("stopped following the operation"));
  }
};

// One kind of report, read and handed to the caller's `each`.
template <class Status>
class Listener final : public wire::ProgressListener::Server {
 public:
  Listener(std::shared_ptr<Heard> heard, CoordinatorClient::Each<Status> each)
      : heard_(std::move(heard)), each_(std::move(each)) {}

 protected:
  kj::Promise<void> send(SendContext context) override { return take(api::sendStatusFromWire(context.getParams().getReport())); }
  kj::Promise<void> manifest(ManifestContext context) override {
    return take(api::manifestStatusFromWire(context.getParams().getReport()));
  }
  kj::Promise<void> run(RunContext context) override { return take(api::runStatusFromWire(context.getParams().getReport())); }

 private:
  template <class Other>
  kj::Promise<void> take(const Other& report) {
    if (heard_->over) return kj::READY_NOW;
    heard_->said();
    if constexpr (std::is_same_v<Other, Status>) {
      if (!heard_->stopped && !each_(report)) heard_->halt();
    } else {
      transport::refuse("this client follows another kind of operation");
    }
    return kj::READY_NOW;
  }

  std::shared_ptr<Heard> heard_;
  CoordinatorClient::Each<Status> each_;
};

// Rejects once no push came for kQuietLimit.
kj::Promise<void> watchQuiet(kj::Timer& timer, const Heard& heard) {
  return timer.afterDelay(kWatchEvery).then([&timer, &heard]() -> kj::Promise<void> {
    if (Steady::now() - heard.last > kQuietLimit)
      return transport::refusal("hnowd pushed no progress for 30 s");
    return watchQuiet(timer, heard);
  });
}

// The follow call `request` (its listener set here), waited for with the
// caller's `each` on every push and on the final report.
template <class Status, class Request, class Read>
Reply<Status> follow(CoordinatorClient::State& s, Request request, CoordinatorClient::Each<Status> each, Read read) {
  auto heard = std::make_shared<Heard>();
  auto stopping = kj::newPromiseAndFulfiller<void>();
  heard->stop = kj::mv(stopping.fulfiller);
  request.setListener(kj::heap<Listener<Status>>(heard, each));
  auto answered = request.send().then([read](auto response) { return read(response.getReport()); });
  auto ended = kj::mv(stopping.promise).exclusiveJoin(watchQuiet(s.io.provider->getTimer(), *heard)).then([]() -> Status {
    kj::throwFatalException(transport::refusal("the follow ended without a report"));
  });
  auto last = s.wait(answered.exclusiveJoin(kj::mv(ended)), kNoDeadline);
  heard->over = true;
  if (!last) return last;
  if (!heard->stopped && !each(*last)) return Error{"stopped following the operation"};
  return last;
}

}  // namespace

Reply<api::SendStatus> CoordinatorClient::followSend(std::uint64_t operation, Each<api::SendStatus> each) {
  auto request = state_->session->followSendRequest();
  request.setOperation(operation);
  return follow<api::SendStatus>(*state_, kj::mv(request), std::move(each),
                                 [](wire::SendReport::Reader r) { return api::sendStatusFromWire(r); });
}

Reply<api::ManifestStatus> CoordinatorClient::followManifest(std::uint64_t operation, Each<api::ManifestStatus> each) {
  auto request = state_->session->followManifestRequest();
  request.setOperation(operation);
  return follow<api::ManifestStatus>(*state_, kj::mv(request), std::move(each),
                                     [](wire::ManifestReport::Reader r) { return api::manifestStatusFromWire(r); });
}

Reply<RunReportView> CoordinatorClient::followRun(std::uint64_t operation, Each<RunReportView> each) {
  auto request = state_->session->followRunRequest();
  request.setOperation(operation);
  return follow<RunReportView>(*state_, kj::mv(request), std::move(each),
                               [](wire::RunReport::Reader r) { return api::runStatusFromWire(r); });
}

Reply<CoordinatorClient::OutputGrant> CoordinatorClient::grantOutput(std::uint64_t operation) {
  auto& s = *state_;
  auto request = s.session->grantOutputRequest();
  request.setOperation(operation);
  // hnowd hashes the output before it answers: seconds for a large one.
  return s.waitWhileAnswering(request.send().then([&s](auto response) {
    auto text = [](capnp::Data::Reader d) { return std::string(reinterpret_cast<const char*>(d.begin()), d.size()); };
    return OutputGrant{text(response.getToken()), response.getSize(), text(response.getSha256()),
                       response.getDigestChunkBytes(), text(response.getPieceDigests()),
                       s.host + ":" + std::to_string(response.getDataPort())};
  }), "");
}

}  // namespace hnow::cli
