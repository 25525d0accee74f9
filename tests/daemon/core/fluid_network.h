#pragma once
// A lab in the fluid model the link verdicts assume (link_verdict.h): every
// node has an uplink and a downlink capacity, a flow crosses its sender's
// uplink and its receiver's downlink, and TCP shares each link max-min
// fairly. Other traffic is a flow on one link only, with a demand of its own.
// Tests give surveys and transfers the rates such a lab would show.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hnow::testing {

struct FluidNode {
  double up = 0.0;
  double down = 0.0;
  // Other traffic's demand on each link (bytes/s; infinity: as much as it gets).
  double otherUp = 0.0;
  double otherDown = 0.0;
};

struct FluidRates {
  std::vector<double> flows;                // per flow, in order
  std::map<std::string, double> sent, received;            // hnow's flows per node
  std::map<std::string, double> otherSent, otherReceived;  // the other traffic's share
};

// Progressive filling: raise every unfrozen flow alike until a link fills
// or a demand is met, freeze what is stuck, repeat.
inline FluidRates maxMinRates(const std::map<std::string, FluidNode>& nodes,
                              const std::vector<std::pair<std::string, std::string>>& flows) {
  struct F {
    std::string upOf, downOf;  // "" when the flow does not cross that kind of link
    double demand;
    double rate = 0.0;
    bool frozen = false;
  };
  std::vector<F> all;
  for (const auto& [from, to] : flows) all.push_back({from, to, std::numeric_limits<double>::infinity()});
  const std::size_t hnow = all.size();
  for (const auto& [name, n] : nodes) {
    if (n.otherUp > 0) all.push_back({name, "", n.otherUp});
    if (n.otherDown > 0) all.push_back({"", name, n.otherDown});
  }
  auto capacity = [&](const std::string& node, bool up) {
    const FluidNode& n = nodes.at(node);
    return up ? n.up : n.down;
  };
  for (int guard = 0; guard < 1000; ++guard) {
    // Room and unfrozen flows per link.
    std::map<std::pair<std::string, bool>, std::pair<double, int>> links;
    for (const auto& [name, n] : nodes) {
      links[{name, true}] = {n.up, 0};
      links[{name, false}] = {n.down, 0};
    }
    for (const F& f : all) {
      if (!f.upOf.empty()) links[{f.upOf, true}].first -= f.rate;
      if (!f.downOf.empty()) links[{f.downOf, false}].first -= f.rate;
      if (f.frozen) continue;
      if (!f.upOf.empty()) ++links[{f.upOf, true}].second;
      if (!f.downOf.empty()) ++links[{f.downOf, false}].second;
    }
    double step = std::numeric_limits<double>::infinity();
    for (const auto& [key, room] : links)
      if (room.second > 0) step = std::min(step, std::max(0.0, room.first) / room.second);
    for (const F& f : all)
      if (!f.frozen) step = std::min(step, f.demand - f.rate);
    if (!std::isfinite(step)) break;
    bool any = false;
    for (F& f : all)
      if (!f.frozen) f.rate += step, any = true;
    if (!any) break;
    auto full = [&](const std::string& node, bool up) {
      double used = 0;
      for (const F& g : all)
        if ((up && g.upOf == node) || (!up && g.downOf == node)) used += g.rate;
      return used >= capacity(node, up) * (1 - 1e-9);
    };
    for (F& f : all) {
      if (f.frozen) continue;
      if (f.rate >= f.demand * (1 - 1e-12) || (!f.upOf.empty() && full(f.upOf, true)) ||
          (!f.downOf.empty() && full(f.downOf, false)))
        f.frozen = true;
    }
    if (std::all_of(all.begin(), all.end(), [](const F& f) { return f.frozen; })) break;
  }
  FluidRates out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const F& f = all[i];
    if (i < hnow) {
      out.flows.push_back(f.rate);
      out.sent[f.upOf] += f.rate;
      out.received[f.downOf] += f.rate;
    } else if (!f.upOf.empty()) {
      out.otherSent[f.upOf] += f.rate;
    } else {
      out.otherReceived[f.downOf] += f.rate;
    }
  }
  return out;
}

}  // namespace hnow::testing
