#pragma once
// An operation's progress pushed to the client following it
// (ClientSession.followSend/followManifest/followRun, ProgressListener).
// Where the news comes from: a timer per follower on hnowd's loop reads the
// service's status(id) every 100 ms and pushes it when it differs from the
// last push (its clock aside), and at least every second. The services keep
// no list of listeners and need no change; the client is spared its polling
// round trips; and this is the one place an event-driven push (a service
// calling back as a copy lands) would later replace the timer.
#include <kj/async.h>
#include <kj/timer.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "transport/rpc_errors.h"

namespace hnow::daemon {

// The followers of this hnowd's operations now, and the reports pushed:
// tests see a listener dropped with them.
struct FollowGauge {
  std::size_t live = 0;
  std::uint64_t pushes = 0;
};

// At most this often, on a change; at least this often while the operation runs.
inline constexpr auto kPushEvery = 100 * kj::MILLISECONDS;
inline constexpr auto kQuietPushEvery = kj::SECONDS;

template <class Status>
struct Follow {
  std::function<std::optional<Status>()> status;          // none: the operation is not known
  std::function<std::string(const Status&)> fingerprint;  // equal: nothing to push
  // A streaming call to the listener: ready when its flow window has room;
  // broken when the client is gone, which ends the follow.
  std::function<kj::Promise<void>(const Status&)> push;
};

template <class Status>
class Follower {
 public:
  Follower(kj::Timer& timer, std::shared_ptr<FollowGauge> gauge, Follow<Status> follow)
      : timer_(timer), gauge_(std::move(gauge)), follow_(std::move(follow)) {
    ++gauge_->live;
  }
  ~Follower() { --gauge_->live; }
  Follower(const Follower&) = delete;
  Follower& operator=(const Follower&) = delete;

  // Pushes until the operation ends; its final report.
  kj::Promise<Status> next() {
    auto now = follow_.status();
    if (!now) return transport::refusal("the operation is no longer known to hnowd");
    if (now->finished) return kj::mv(*now);
    std::string print = follow_.fingerprint(*now);
    kj::Promise<void> pushed = kj::READY_NOW;
    if (print != last_ || timer_.now() - lastPush_ >= kQuietPushEvery) {
      last_ = std::move(print);
      lastPush_ = timer_.now();
      ++gauge_->pushes;
      pushed = follow_.push(*now);
    }
    return pushed.then([this]() { return timer_.afterDelay(kPushEvery); }).then([this]() { return next(); });
  }

 private:
  kj::Timer& timer_;
  std::shared_ptr<FollowGauge> gauge_;
  Follow<Status> follow_;
  std::string last_;
  kj::TimePoint lastPush_ = kj::origin<kj::TimePoint>();
};

// The operation followed to its end (the follower dropped with the promise).
template <class Status>
kj::Promise<Status> followToEnd(kj::Timer& timer, std::shared_ptr<FollowGauge> gauge, Follow<Status> follow) {
  auto follower = kj::heap<Follower<Status>>(timer, std::move(gauge), std::move(follow));
  auto ended = follower->next();
  return ended.attach(kj::mv(follower));
}

}  // namespace hnow::daemon
