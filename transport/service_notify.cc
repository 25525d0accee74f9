#include "transport/service_notify.h"

#include <systemd/sd-daemon.h>

#include <cstdint>

namespace hnow::transport {

void notifyReady(const std::string& status) {
  sd_notify(0, ("READY=1\nSTATUS=" + status).c_str());
}

void notifyStopping() { sd_notify(0, "STOPPING=1"); }

namespace {

kj::Promise<void> feedEvery(kj::Timer& timer, kj::Duration interval) {
  sd_notify(0, "WATCHDOG=1");
  return timer.afterDelay(interval).then([&timer, interval]() { return feedEvery(timer, interval); });
}

}  // namespace

kj::Promise<void> feedWatchdog(kj::Timer& timer) {
  std::uint64_t usec = 0;
  // > 0 only when WATCHDOG_USEC is set and WATCHDOG_PID, if set, is ours.
  if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0) return kj::NEVER_DONE;
  return feedEvery(timer, (usec / 2) * kj::MICROSECONDS);
}

}  // namespace hnow::transport
