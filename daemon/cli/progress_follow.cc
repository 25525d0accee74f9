// The client's side of pushed progress (ClientSession.followSend,
// followManifest, followRun; ProgressListener): the client hands hnowd a
// listener and waits; hnowd calls it as the operation's report changes and
// answers the follow with the final report. No polling round trips: the
// client only answers hnowd's calls, which Cap'n Proto's streaming flow
// control paces to what the client takes.
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <type_traits>

#include <kj/async-unix.h>

#include "api/manifest_wire.h"
#include "api/run_wire.h"
#include "api/send_status_wire.h"
#include "cli/cancel_command.h"
#include "cli/coordinator_client.h"
#include "cli/coordinator_state.h"
#include "transport/wire_bytes.h"

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

// SIGINT handled by the follow's event loop while it lasts (kj's
// captureSignal blocks it in this thread, which is the client's only one
// then), back to the default afterwards.
struct CapturedInterrupt {
  CapturedInterrupt() { kj::UnixEventPort::captureSignal(SIGINT); }
  ~CapturedInterrupt() {
    ::signal(SIGINT, SIG_DFL);
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    ::pthread_sigmask(SIG_UNBLOCK, &mask, nullptr);
  }
  CapturedInterrupt(const CapturedInterrupt&) = delete;
  CapturedInterrupt& operator=(const CapturedInterrupt&) = delete;
};

// What is followed: its kind ("send") and record, once known.
struct Followed {
  const char* kind;
  std::uint64_t record = 0;
};

[[noreturn]] void leaveAtOnce(const Followed& f) {
  std::fprintf(stderr, "\nhnow: left; hnowd ends the %s on its own (`hnow ops` shows how)\n", f.kind);
  std::_Exit(kInterruptedExit);
}

// The first Ctrl-C asks hnowd to cancel the record (without one yet, the
// client leaves at once); the follow then ends with the cancelled report.
// The second leaves at once. Never resolves otherwise.
kj::Promise<void> cancelOnInterrupt(CoordinatorClient::State& s, std::shared_ptr<Followed> followed) {
  kj::UnixEventPort& port = s.io.unixEventPort;
  return port.onSignal(SIGINT).then([&s, &port, followed](siginfo_t) -> kj::Promise<void> {
    if (followed->record == 0) leaveAtOnce(*followed);
    std::fprintf(stderr, "\nhnow: cancelling %s %llu (Ctrl-C again to leave at once)\n", followed->kind,
                 static_cast<unsigned long long>(followed->record));
    s.interrupted = true;
    auto request = s.session->cancelRequest();
    request.setOperation(followed->record);
    auto sent = request.send().then([](auto) -> kj::Promise<void> { return kj::NEVER_DONE; },
                                    [](kj::Exception&& e) -> kj::Promise<void> {
                                      std::fprintf(stderr, "hnow: cancel: %s\n", transport::describe(e).c_str());
                                      return kj::NEVER_DONE;
                                    });
    return sent.exclusiveJoin(port.onSignal(SIGINT).then([followed](siginfo_t) { leaveAtOnce(*followed); }));
  });
}

// The follow call `request` (its listener set here), waited for with the
// caller's `each` on every push and on the final report. `kind` ("send",
// "manifest", "run") is cancelled by Ctrl-C (cancelOnInterrupt); none is not.
template <class Status, class Request, class Read>
Reply<Status> follow(CoordinatorClient::State& s, Request request, CoordinatorClient::Each<Status> each, Read read,
                     const char* kind = nullptr, std::uint64_t record = 0) {
  auto heard = std::make_shared<Heard>();
  auto stopping = kj::newPromiseAndFulfiller<void>();
  heard->stop = kj::mv(stopping.fulfiller);
  auto followed = std::make_shared<Followed>(Followed{kind, record});
  if constexpr (requires(const Status& r) { r.record; }) {
    each = [followed, each = std::move(each)](const Status& report) {
      if (report.record != 0) followed->record = report.record;
      return each(report);
    };
  }
  request.setListener(kj::heap<Listener<Status>>(heard, each));
  auto answered = request.send().then([read](auto response) { return read(response.getReport()); });
  auto ended = kj::mv(stopping.promise).exclusiveJoin(watchQuiet(s.io.provider->getTimer(), *heard)).then([]() -> Status {
    kj::throwFatalException(transport::refusal("the follow ended without a report"));
  });
  std::optional<CapturedInterrupt> captured;
  if (kind && !s.watching) {
    captured.emplace();
    ended = ended.exclusiveJoin(cancelOnInterrupt(s, followed).then([]() -> Status {
      kj::throwFatalException(transport::refusal("the interrupt's watch ended"));
    }));
  }
  auto last = s.wait(answered.exclusiveJoin(kj::mv(ended)), kNoDeadline);
  heard->over = true;
  if (!last) return last;
  if (!heard->stopped && !each(*last)) return Error{"stopped following the operation"};
  return last;
}

}  // namespace

Reply<api::SendStatus> CoordinatorClient::followSend(std::uint64_t operation, Each<api::SendStatus> each,
                                                     std::uint64_t record) {
  auto request = state_->session->followSendRequest();
  request.setOperation(operation);
  return follow<api::SendStatus>(*state_, kj::mv(request), std::move(each),
                                 [](wire::SendReport::Reader r) { return api::sendStatusFromWire(r); }, "send", record);
}

bool CoordinatorClient::interrupted() const { return state_->interrupted; }

void CoordinatorClient::watchOnly() { state_->watching = true; }

Reply<api::ManifestStatus> CoordinatorClient::followManifest(std::uint64_t operation, Each<api::ManifestStatus> each,
                                                             std::uint64_t record) {
  auto request = state_->session->followManifestRequest();
  request.setOperation(operation);
  return follow<api::ManifestStatus>(*state_, kj::mv(request), std::move(each),
                                     [](wire::ManifestReport::Reader r) { return api::manifestStatusFromWire(r); },
                                     "manifest", record);
}

Reply<RunReportView> CoordinatorClient::followRun(std::uint64_t operation, Each<RunReportView> each,
                                                  std::uint64_t record) {
  auto request = state_->session->followRunRequest();
  request.setOperation(operation);
  return follow<RunReportView>(*state_, kj::mv(request), std::move(each),
                               [](wire::RunReport::Reader r) { return api::runStatusFromWire(r); }, "run", record);
}

Reply<CoordinatorClient::OutputGrant> CoordinatorClient::grantOutput(std::uint64_t operation) {
  auto& s = *state_;
  auto request = s.session->grantOutputRequest();
  request.setOperation(operation);
  // hnowd hashes the output before it answers: seconds for a large one.
  return s.waitWhileAnswering(request.send().then([&s](auto response) {
    return OutputGrant{transport::stringOf(response.getToken()), response.getSize(), transport::stringOf(response.getSha256()),
                       response.getDigestChunkBytes(), transport::stringOf(response.getPieceDigests()),
                       s.host + ":" + std::to_string(response.getDataPort())};
  }), "");
}

}  // namespace hnow::cli
