#include "core/links/host_intake.h"

#include <algorithm>
#include <limits>
#include <map>

namespace hnow::daemon {

namespace {
constexpr const char* kHostPrefix = "host:";
}  // namespace

LinkId hostIntakeLink(const std::string& host) { return {kHostPrefix + host, LinkDirection::kDown}; }

std::vector<LinkReading> hostIntakeOfSend(const std::vector<HostCopy>& copies, double headroom,
                                          double minPlannedS) {
  struct Taken {
    int copies = 0;
    double bytes = 0.0;
    double lastS = 0.0;
    double plannedS = 0.0;
    bool whole = true;
  };
  std::map<std::string, Taken> hosts;
  for (const HostCopy& c : copies) {
    if (c.host.empty()) continue;
    Taken& t = hosts[c.host];
    ++t.copies;
    t.bytes += static_cast<double>(c.bytes);
    t.lastS = std::max(t.lastS, c.heldS);
    t.plannedS = std::max(t.plannedS, c.plannedS);
    t.whole &= c.heldS > 0.0 && c.bytes > 0;
  }
  std::vector<LinkReading> out;
  for (const auto& [host, t] : hosts) {
    if (t.copies < 2 || !t.whole || !(t.plannedS >= minPlannedS)) continue;
    const bool held = t.lastS > (1.0 + headroom) * t.plannedS;
    out.push_back({hostIntakeLink(host), t.bytes / t.lastS, held, 0.0});
  }
  return out;
}

double fairShareLevel(std::span<const double> wants, double capacity) {
  std::vector<double> sorted;
  for (double w : wants)
    if (w > 0.0) sorted.push_back(w);  // an infinite want takes the level
  std::sort(sorted.begin(), sorted.end());
  double left = capacity;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const double level = left / static_cast<double>(sorted.size() - i);
    if (sorted[i] >= level) return level;
    left -= sorted[i];
  }
  return std::numeric_limits<double>::infinity();
}

}  // namespace hnow::daemon
