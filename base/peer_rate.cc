#include "base/peer_rate.h"

#include <algorithm>
#include <iterator>

namespace hnow {

namespace {
// Past this many addresses, those whose bucket has filled up again are
// forgotten: a full bucket is what a new address gets anyway.
constexpr std::size_t kPruneAbove = 1024;
}  // namespace

bool PeerRate::allow(const std::string& peer, TimePoint now) {
  auto refilled = [&](const Bucket& b) {
    return std::min(burst_, b.tokens + perSecond_ * seconds(std::max(Duration::zero(), now - b.last)));
  };
  if (buckets_.size() > kPruneAbove)
    std::erase_if(buckets_, [&](const auto& entry) { return refilled(entry.second) >= burst_; });
  auto [it, fresh] = buckets_.try_emplace(peer, Bucket{burst_, now});
  Bucket& bucket = it->second;
  bucket.tokens = refilled(bucket);
  bucket.last = std::max(bucket.last, now);
  if (bucket.tokens < 1.0) return false;
  bucket.tokens -= 1.0;
  return true;
}

}  // namespace hnow
