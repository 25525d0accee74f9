#pragma once
// op = "multicast": several messages, each from a source to destinations,
// in the non-blocking-send model of seed 004 (docs/multicast.md).
#include <cstdint>
#include <string>
#include <vector>

#include "planner/multicast/multicast.h"

namespace hnow::conf {

struct MulticastRequest {
  // fef | ecf | wr | eaf | rr | rrs, or ecfp | wrp | eafp | rrp | rrsp (§5's preemptive forms)
  std::string algo;
  std::uint64_t seed = 1;              // rrs / rrsp receiver draws
  std::vector<std::string> nodeNames;  // instance node i is nodeNames[i]
  planner::MulticastInstance instance; // messages in [[message]] order
};

// The algorithm names op = "multicast" accepts, in the order the docs list them.
const std::vector<std::string>& multicastAlgorithms();

class TableReader;
// Reads the request's keys, [[node]], [[message]] and [[link]] tables
// (conf/ internal; throws ConfFailure like every reader).
MulticastRequest readMulticastRequest(TableReader& request);

}  // namespace hnow::conf
