#include "transport/data/flow_slope.h"

#include <uv.h>

namespace hnow::transport::data {

namespace {
// Fewer arrivals than this fit noise, not a rate.
constexpr std::size_t kMinArrivals = 3;
// Arrivals must cover this share of the window for their rate to be the
// window's.
constexpr double kMinSpan = 0.5;
}  // namespace

void FlowSlope::add(double seconds, double bytes) {
  if (n_ == 0) first_ = seconds;
  last_ = seconds;
  ++n_;
  sumT_ += seconds;
  sumB_ += bytes;
  sumTT_ += seconds * seconds;
  sumTB_ += seconds * bytes;
}

std::optional<double> FlowSlope::fit(double windowSeconds) const {
  if (n_ < kMinArrivals || !(windowSeconds > 0) || last_ - first_ < kMinSpan * windowSeconds) return std::nullopt;
  const double n = static_cast<double>(n_);
  const double spread = n * sumTT_ - sumT_ * sumT_;
  if (!(spread > 0)) return std::nullopt;
  const double slope = (n * sumTB_ - sumT_ * sumB_) / spread;
  if (!(slope > 0)) return std::nullopt;
  return slope;
}

void WindowCount::open() {
  openedNs_ = uv_hrtime();
  bytes_ = 0;
  slope_ = {};
}

void WindowCount::add(std::uint64_t bytes) {
  if (openedNs_ == 0 || bytes == 0) return;
  bytes_ += bytes;
  slope_.add(static_cast<double>(uv_hrtime() - openedNs_) * 1e-9, static_cast<double>(bytes_));
}

double WindowCount::bytesPerSecond(double windowSeconds) const {
  const double counted = windowSeconds > 0 ? static_cast<double>(bytes_) / windowSeconds : 0.0;
  return fit(windowSeconds).value_or(counted);
}

}  // namespace hnow::transport::data
