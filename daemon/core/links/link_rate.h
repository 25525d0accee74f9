#pragma once
// A node's link rates as hnowd knows them (docs/link-rates.md): the
// capacity of its uplink and downlink, how it was found, when, and how
// much the samples behind it spread. A capacity is what the link carries
// while it is the limit of the traffic on it; a bound is the most it was
// seen to carry while something else was the limit, so the capacity is at
// least that much.
#include <string>

#include "base/clock.h"

namespace hnow::daemon {

enum class LinkDirection { kUp, kDown };

enum class RateMethod {
  kUnknown,
  kProbe,       // saturated by a probe round (link_survey.h)
  kPassive,     // saturated by hnow's own transfers
  kBound,       // never saturated: a lower bound
  kEmulated,    // the agent paces its data plane at this rate (hnow local)
  kConfigured,  // hnowd's uplink_mbps
};

const char* directionName(LinkDirection direction);  // "uplink", "downlink"
const char* rateMethodName(RateMethod method);       // "probe", "passive", "bound", ...

struct LinkRate {
  double bytesPerSecond = 0.0;  // the capacity, or for kBound the least it is
  RateMethod method = RateMethod::kUnknown;
  TimePoint at{};               // when last measured or confirmed
  double spread = 0.0;          // (max - min) / median of the samples behind it
  // The agent says it paces this link at this rate (kEmulated), but its
  // transfers achieved far less: the rate above is what they achieved, and
  // `hnow status` flags it. 0: nothing belied.
  double toldBytesPerSecond = 0.0;
  bool known() const { return method != RateMethod::kUnknown && bytesPerSecond > 0; }
  bool bound() const { return method == RateMethod::kBound; }
};

// One link of one node, as the survey and the observations name it.
struct LinkId {
  std::string node;
  LinkDirection direction = LinkDirection::kUp;
  bool operator<(const LinkId& o) const {
    return node != o.node ? node < o.node : direction < o.direction;
  }
  bool operator==(const LinkId& o) const { return node == o.node && direction == o.direction; }
};

}  // namespace hnow::daemon
