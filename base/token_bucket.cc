#include "base/token_bucket.h"

#include <algorithm>

namespace hnow {

TokenBucket::TokenBucket(double bytesPerSecond, Duration burst, TimePoint now)
    : rate_(bytesPerSecond), burst_(burst), last_(now) {}

void TokenBucket::refill(TimePoint now) {
  if (now > last_) tokens_ = std::min(rate_ * seconds(burst_), tokens_ + rate_ * seconds(now - last_));
  last_ = std::max(last_, now);
}

void TokenBucket::setRate(double bytesPerSecond, TimePoint now) {
  refill(now);
  rate_ = bytesPerSecond;
}

Duration TokenBucket::take(double bytes, TimePoint now) {
  if (rate_ <= 0) return Duration::zero();
  refill(now);
  tokens_ -= bytes;
  if (tokens_ >= 0) return Duration::zero();
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(-tokens_ / rate_));
}

}  // namespace hnow
