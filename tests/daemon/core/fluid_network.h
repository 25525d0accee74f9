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
  // The room whose trunk (FluidTrunks) a flow to or from another room
  // crosses; "" for none.
  std::string room{};
};

// Per room: the trunk's capacity into it and out of it (0: not limited).
struct FluidTrunk {
  double in = 0.0;
  double out = 0.0;
};
using FluidTrunks = std::map<std::string, FluidTrunk>;

struct FluidRates {
  std::vector<double> flows;                // per flow, in order
  std::map<std::string, double> sent, received;            // hnow's flows per node
  std::map<std::string, double> otherSent, otherReceived;  // the other traffic's share
};

// Progressive filling: raise every unfrozen flow alike until a link fills
// or a demand is met, freeze what is stuck, repeat. A flow between rooms
// also crosses its sender's room's trunk outwards and its receiver's inwards.
inline FluidRates maxMinRates(const std::map<std::string, FluidNode>& nodes,
                              const std::vector<std::pair<std::string, std::string>>& flows,
                              const FluidTrunks& trunks = {}) {
  using Key = std::pair<std::string, bool>;  // (node, up) or ("room:R", out)
  struct F {
    std::string upOf, downOf;  // "" when the flow does not cross that kind of link
    double demand;
    std::vector<Key> via{};    // every link it crosses
    double rate = 0.0;
    bool frozen = false;
  };
  std::map<Key, double> capacity;
  for (const auto& [name, n] : nodes) {
    capacity[{name, true}] = n.up;
    capacity[{name, false}] = n.down;
  }
  for (const auto& [room, t] : trunks) {
    if (t.out > 0) capacity[{"room:" + room, true}] = t.out;
    if (t.in > 0) capacity[{"room:" + room, false}] = t.in;
  }
  std::vector<F> all;
  for (const auto& [from, to] : flows) {
    F f{from, to, std::numeric_limits<double>::infinity()};
    f.via = {{from, true}, {to, false}};
    const std::string& a = nodes.at(from).room;
    const std::string& b = nodes.at(to).room;
    if (a != b) {
      if (!a.empty() && capacity.count({"room:" + a, true})) f.via.push_back({"room:" + a, true});
      if (!b.empty() && capacity.count({"room:" + b, false})) f.via.push_back({"room:" + b, false});
    }
    all.push_back(f);
  }
  const std::size_t hnow = all.size();
  for (const auto& [name, n] : nodes) {
    if (n.otherUp > 0) all.push_back({name, "", n.otherUp, {{name, true}}});
    if (n.otherDown > 0) all.push_back({"", name, n.otherDown, {{name, false}}});
  }
  for (int guard = 0; guard < 1000; ++guard) {
    // Room and unfrozen flows per link.
    std::map<Key, std::pair<double, int>> links;
    for (const auto& [key, c] : capacity) links[key] = {c, 0};
    for (const F& f : all)
      for (const Key& k : f.via) {
        links[k].first -= f.rate;
        if (!f.frozen) ++links[k].second;
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
    std::map<Key, double> used;
    for (const F& g : all)
      for (const Key& k : g.via) used[k] += g.rate;
    auto full = [&](const Key& k) { return used[k] >= capacity.at(k) * (1 - 1e-9); };
    for (F& f : all) {
      if (f.frozen) continue;
      if (f.rate >= f.demand * (1 - 1e-12) || std::any_of(f.via.begin(), f.via.end(), full)) f.frozen = true;
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
