#pragma once
// Accepts control connections and gives each its own Gate. Lives on the kj
// (control) thread; destroying it closes every connection.
#include <kj/async-io.h>

#include "core/coordinator.h"
#include "transport/auth.h"

namespace hnow::daemon {

class SendService;

class ControlServer final : private kj::TaskSet::ErrorHandler {
 public:
  // `sends` (issue 6) serves `hnow send`; without it sends are refused.
  ControlServer(Coordinator& coordinator, const transport::Secret& secret,
                SendService* sends = nullptr);

  // Never resolves unless accepting fails; drop it to stop listening.
  kj::Promise<void> listen(kj::ConnectionReceiver& receiver);
  // Runs detached work (commands to agents); failures are logged.
  kj::TaskSet& tasks() { return tasks_; }

 private:
  void taskFailed(kj::Exception&& exception) override;
  void serve(kj::Own<kj::AsyncIoStream> stream);

  Coordinator& coordinator_;
  const transport::Secret& secret_;
  SendService* sends_;
  // Declared after what connections borrow, so connections close first.
  kj::TaskSet tasks_;
  kj::TaskSet connections_;
};

}  // namespace hnow::daemon
