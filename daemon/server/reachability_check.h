#pragma once
// ReachabilityProbe over kj's network: hnowd opens a TCP connection to an
// agent's data address and closes it at once (the agent's data plane drops
// a connection that never says hello). A NAT or a firewall that drops
// inbound SYNs leaves the connect unanswered: it is given up after
// `timeout`, as a child's connect to its parent is (DataOptions::connectTimeout).
#include <kj/async-io.h>
#include <kj/timer.h>

#include "core/links/reachability.h"

namespace hnow::daemon {

class ReachabilityCheck final : public ReachabilityProbe, private kj::TaskSet::ErrorHandler {
 public:
  ReachabilityCheck(kj::Network& network, kj::Timer& timer, kj::Duration timeout);
  // kj's promises may throw from their destructors; ReachabilityProbe's may not.
  ~ReachabilityCheck() noexcept override;
  void check(const std::string& dataAddress, std::function<void(Result<void>)> done) override;

 private:
  void taskFailed(kj::Exception&& exception) override;

  kj::Network& network_;
  kj::Timer& timer_;
  kj::Duration timeout_;
  kj::TaskSet checks_;
};

}  // namespace hnow::daemon
