#pragma once
// Accepts control connections and gives each its own Gate. Lives on the kj
// (control) thread; destroying it closes every connection.
#include <kj/async-io.h>

#include "core/coordinator.h"
#include "transport/auth.h"

namespace hnow::daemon {

class ControlServer final : private kj::TaskSet::ErrorHandler {
 public:
  ControlServer(Coordinator& coordinator, const transport::Secret& secret);

  // Never resolves unless accepting fails; drop it to stop listening.
  kj::Promise<void> listen(kj::ConnectionReceiver& receiver);
  // Runs detached work (commands to agents); failures are logged.
  kj::TaskSet& tasks() { return tasks_; }

 private:
  void taskFailed(kj::Exception&& exception) override;
  void serve(kj::Own<kj::AsyncIoStream> stream);

  Coordinator& coordinator_;
  const transport::Secret& secret_;
  // Declared after what connections borrow, so connections close first.
  kj::TaskSet tasks_;
  kj::TaskSet connections_;
};

}  // namespace hnow::daemon
