#include "core/links/link_knowledge.h"

#include <algorithm>

#include "core/links/trunk_verdict.h"

namespace hnow::daemon {

namespace {

std::optional<RateMethod> storedMethod(const std::string& name) {
  for (RateMethod m : {RateMethod::kProbe, RateMethod::kPassive, RateMethod::kBound})
    if (name == rateMethodName(m)) return m;
  return std::nullopt;
}

}  // namespace

LinkKnowledge::LinkKnowledge(const Clock& clock, LinkOptions options)
    : clock_(clock), options_(std::move(options)), book_(clock, options_.book) {}

Result<void> LinkKnowledge::restore(StateStore& store) {
  auto links = store.loadLinks();
  if (!links) return links.error();
  for (const StoredLink& stored : *links) {
    auto method = storedMethod(stored.method);
    if (!method || (stored.direction != "uplink" && stored.direction != "downlink")) continue;
    const LinkId link{stored.node, stored.direction == "uplink" ? LinkDirection::kUp : LinkDirection::kDown};
    const TimePoint at = steadyOf(clock_, stored.measuredAt);
    book_.restore(link, {stored.bytesPerSecond, *method, at, stored.spread, stored.toldBytesPerSecond});
    saved_[link] = at;
  }
  return {};
}

Result<void> LinkKnowledge::persist(StateStore& store) {
  std::vector<StoredLink> rows;
  std::map<LinkId, TimePoint> saved;
  for (const auto& [link, rate] : book_.measured()) {
    auto last = saved_.find(link);
    if (last != saved_.end() && last->second == rate.at) continue;
    rows.push_back({link.node, directionName(link.direction), rate.bytesPerSecond, rateMethodName(rate.method),
                    wallOf(clock_, rate.at), rate.spread, rate.toldBytesPerSecond});
    saved[link] = rate.at;
  }
  if (auto written = store.saveLinks(rows); !written) return written;
  for (auto& [link, at] : saved) saved_[link] = at;
  return {};
}

// Other traffic is what a plan made now must leave room for: it is taken
// from the latest interval alone, so traffic that stopped frees the link
// within a heartbeat.
void LinkKnowledge::counters(const std::string& node, const CounterSample& counters) {
  loads_.add(node, clock_.now(), counters);
  if (auto now = loads_.latest(node)) book_.noteForeign(node, now->foreignSent, now->foreignReceived);
}

void LinkKnowledge::emulated(const std::string& node, const EmulatedLinks& emulated) {
  for (auto [direction, paced] : {std::pair{LinkDirection::kUp, emulated.uplinkBytesPerSecond},
                                  std::pair{LinkDirection::kDown, emulated.downlinkBytesPerSecond}}) {
    if (paced > 0 && !options_.measureEmulated) book_.setFixed({node, direction}, paced, RateMethod::kEmulated);
    else book_.clearFixed({node, direction});
  }
}

void LinkKnowledge::observe(std::vector<Flow> flows, const std::map<std::string, std::string>& roomOf) {
  const TimePoint now = clock_.now();
  std::map<std::string, NodeLoad> loads;
  for (const std::string& node : loads_.nodes()) {
    if (auto load = loads_.over(node, now - options_.window, now)) loads[node] = *load;
  }
  // A flow is judged by both ends' loads: without one, it says nothing.
  std::erase_if(flows, [&](const Flow& f) { return !loads.count(f.from) || !loads.count(f.to); });
  if (flows.empty()) return;
  const KnownRate known = [this](const LinkId& l) { return book_.knownAtLeast(l); };
  if (!roomOf.empty()) flows = judgeTrunkFlows(std::move(flows), loads, roomOf, known);
  book_.observe(judgeFlows(flows, loads, known, options_.verdict));
}

std::vector<Flow> LinkKnowledge::judgeTrunkFlows(std::vector<Flow> flows, const std::map<std::string, NodeLoad>& loads,
                                                 const std::map<std::string, std::string>& roomOf,
                                                 const KnownRate& known) {
  // Agents that pace both their links (hnow local) share no real trunk:
  // their flows are the end links' to judge.
  auto paced = [this](const std::string& node) { return node != kCoordinatorNode && book_.pacesBoth(node); };
  std::vector<Flow> across, rest;
  for (Flow& f : flows) (paced(f.from) || paced(f.to) ? rest : across).push_back(std::move(f));
  TrunkVerdict verdict = judgeTrunks(across, loads, roomOf, known, options_.verdict);
  std::map<LinkId, double> before;
  for (const LinkReading& r : verdict.readings) before[r.link] = book_.knownAtLeast(r.link);
  book_.observe(verdict.readings);
  // A trunk first known while data crosses it: plans made without it change.
  for (const auto& [link, was] : before)
    if (was <= 0.0 && book_.rate(link) && !book_.rate(link)->bound())
      trunkNews_.push_back({link, 0.0, book_.knownAtLeast(link)});
  rest.insert(rest.end(), verdict.rest.begin(), verdict.rest.end());
  return rest;
}

std::vector<LinkChange> LinkKnowledge::takeChanges() {
  std::vector<LinkChange> changes = book_.takeChanges();
  changes.insert(changes.end(), trunkNews_.begin(), trunkNews_.end());
  trunkNews_.clear();
  return changes;
}

LinkView LinkKnowledge::view(const std::string& node, LinkDirection direction) const {
  const LinkId link{node, direction};
  LinkView view;
  if (const LinkRate* r = book_.rate(link)) {
    view.rate = *r;
    view.ageSeconds = seconds(clock_.now() - r->at);
  }
  view.foreign = book_.foreign(link);
  view.available = book_.available(link);
  view.samples = book_.samples(link);
  return view;
}

NodeLinks LinkKnowledge::of(const std::string& node) const {
  return {view(node, LinkDirection::kUp), view(node, LinkDirection::kDown)};
}

void LinkKnowledge::forget(const std::string& node) {
  book_.forget(node);
  loads_.forget(node);
  for (LinkDirection d : {LinkDirection::kUp, LinkDirection::kDown}) saved_.erase({node, d});
}

}  // namespace hnow::daemon
