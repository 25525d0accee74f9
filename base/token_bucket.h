#pragma once
// Paces bytes at a rate: an agent's emulated links (`emulate.uplink_mbps`,
// which its probes must see too) and hnowd's uplink as a source. Pure: the
// caller passes the time and does the waiting, so tests drive it with a
// ManualClock.
#include "base/clock.h"

namespace hnow {

class TokenBucket {
 public:
  // 0 bytes/s: not limited. The bucket starts empty, so a timed transfer
  // measures the rate rather than the burst. The burst is time at the rate,
  // not bytes, so it stays right when the rate changes.
  TokenBucket(double bytesPerSecond, Duration burst, TimePoint now);

  void setRate(double bytesPerSecond, TimePoint now);
  double rate() const { return rate_; }
  // Takes `bytes` now and says how long to wait before they may go; the
  // wait is the debt the bucket runs into, paid back at the rate.
  Duration take(double bytes, TimePoint now);

 private:
  void refill(TimePoint now);

  double rate_;
  Duration burst_;
  double tokens_ = 0.0;  // negative while in debt
  TimePoint last_;
};

}  // namespace hnow
