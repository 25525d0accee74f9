// Progress pushed to a client's listener (server/progress_follow.h,
// progress_session.cc): over an operator's session on an in-memory pipe (the
// real Gate and sessions) following a send of SendService's lab that stays
// mid-way (its agents never finish). A client that disconnects, or whose
// listener fails, takes its follower along: hnowd keeps no listener and
// pushes nothing more.
#include <doctest/doctest.h>
#include <kj/async-io.h>

#include <memory>

#include "daemon/core/send_lab.h"
#include "daemon/server/test_trust.h"
#include "server/gate_server.h"
#include "transport/rpc_connection.h"
#include "transport/rpc_errors.h"

using namespace hnow;

namespace {

struct Failures final : kj::TaskSet::ErrorHandler {
  void taskFailed(kj::Exception&&) override {}
};

// A client's listener: counts the reports; `failing` refuses each.
class CountingListener final : public wire::ProgressListener::Server {
 public:
  CountingListener(std::shared_ptr<int> heard, bool failing) : heard_(std::move(heard)), failing_(failing) {}

 protected:
  kj::Promise<void> send(SendContext) override {
    ++*heard_;
    if (failing_) transport::refuse("the client's terminal is gone");
    return kj::READY_NOW;
  }

 private:
  std::shared_ptr<int> heard_;
  bool failing_;
};

struct Lab {
  kj::AsyncIoContext io = kj::setupAsyncIo();
  daemon::send_lab::Lab sends;
  testing::TestTrust keys{sends.clock};
  Failures failures;
  kj::TaskSet tasks{failures};
  std::shared_ptr<daemon::FollowGauge> gauge = std::make_shared<daemon::FollowGauge>();
  kj::Own<transport::RpcConnection> server, peer;
  wire::ClientSession::Client client = nullptr;
  std::uint64_t operation = 0;

  Lab() {
    daemon::Services services;
    services.sends = &sends.service;
    services.timer = &io.provider->getTimer();
    services.following = gauge;
    auto pipe = kj::newTwoWayPipe();
    server = kj::heap<transport::RpcConnection>(
        kj::mv(pipe.ends[0]), kj::heap<daemon::GateServer>(sends.coordinator, keys.trust, tasks, "10.0.0.9:4242",
                                                           nullptr, services));
    peer = kj::heap<transport::RpcConnection>(kj::mv(pipe.ends[1]));
    client = keys.loginOperator(peer->peerBootstrap<wire::Gate>()).wait(io.waitScope);
    sends.service.start(sends.toAll(), [this](const Result<std::pair<std::uint64_t, daemon::SendStatus>>& started) {
      REQUIRE(started.ok());
      operation = started->first;
    });
    REQUIRE(operation != 0);
  }
  void turn(int ms) { io.provider->getTimer().afterDelay(ms * kj::MILLISECONDS).wait(io.waitScope); }
  kj::Promise<void> follow(std::shared_ptr<int> heard, bool failing) {
    auto request = client.followSendRequest();
    request.setOperation(operation);
    request.setListener(kj::heap<CountingListener>(std::move(heard), failing));
    return request.send().ignoreResult();
  }
};

}  // namespace

TEST_CASE("a client that disconnects mid-send leaves no listener at hnowd, and no pushes go on") {
  Lab lab;
  auto heard = std::make_shared<int>(0);
  auto followed = lab.follow(heard, false).eagerlyEvaluate([](kj::Exception&&) {});
  lab.turn(300);
  CHECK(*heard >= 1);  // the first report at once, then one a second while nothing changes
  CHECK(lab.gauge->live == 1);
  CHECK(!lab.sends.service.status(lab.operation)->finished);

  // The client's connection ends: its call is cancelled, its listener dropped.
  lab.client = nullptr;
  lab.peer = nullptr;
  lab.turn(200);
  CHECK(lab.gauge->live == 0);
  const std::uint64_t pushes = lab.gauge->pushes;
  lab.turn(2500);  // more than two quiet pushes' worth
  CHECK(lab.gauge->pushes == pushes);
  CHECK(!lab.sends.service.status(lab.operation)->finished);  // the send goes on without its client
}

// A streaming call's failure shows on the next call: the follow ends at the
// second push at the latest, well before the quiet pushes would go on.
TEST_CASE("a listener whose call fails ends the follow: no retries, nothing kept") {
  Lab lab;
  auto heard = std::make_shared<int>(0);
  bool failed = false;
  auto followed = lab.follow(heard, true).then([] {}, [&failed](kj::Exception&&) { failed = true; })
                      .eagerlyEvaluate(nullptr);
  lab.turn(1500);
  CHECK(failed);
  CHECK(lab.gauge->live == 0);
  CHECK(lab.gauge->pushes <= 2);
  CHECK(*heard <= 2);
  const std::uint64_t pushes = lab.gauge->pushes;
  lab.turn(2500);
  CHECK(lab.gauge->pushes == pushes);
}

TEST_CASE("a follow of an operation hnowd does not know is refused, and keeps nothing") {
  Lab lab;
  auto request = lab.client.followSendRequest();
  request.setOperation(lab.operation + 100);
  request.setListener(kj::heap<CountingListener>(std::make_shared<int>(0), false));
  std::string why;
  KJ_IF_MAYBE(e, kj::runCatchingExceptions([&] { request.send().wait(lab.io.waitScope); })) {
    why = transport::describe(*e);
  }
  CHECK(why.find("no such send operation") != std::string::npos);
  CHECK(lab.gauge->live == 0);
}
