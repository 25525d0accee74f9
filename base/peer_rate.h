#pragma once
// A token bucket per peer address, for answers that cost the answerer work
// a peer can ask for before it has proven anything (hnowd's signature in a
// login challenge): each address may ask `perSecond` times a second, with a
// burst of `burst`. Pure: the caller passes the time.
#include <cstddef>
#include <map>
#include <string>

#include "base/clock.h"

namespace hnow {

class PeerRate {
 public:
  PeerRate(double perSecond, double burst) : perSecond_(perSecond), burst_(burst) {}

  // True, and one token taken, when `peer` has one left; false otherwise
  // (nothing taken: a peer refused does not dig itself deeper).
  bool allow(const std::string& peer, TimePoint now);
  double perSecond() const { return perSecond_; }
  // Addresses remembered now (buckets full again are forgotten).
  std::size_t tracked() const { return buckets_.size(); }

 private:
  struct Bucket {
    double tokens = 0.0;
    TimePoint last;
  };
  double perSecond_;
  double burst_;
  std::map<std::string, Bucket> buckets_;
};

}  // namespace hnow
