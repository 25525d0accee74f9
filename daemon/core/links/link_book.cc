#include "core/links/link_book.h"

#include <algorithm>
#include <cmath>

namespace hnow::daemon {

namespace {

constexpr std::size_t kRecent = 8;

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double spreadOf(const std::deque<double>& recent) {
  if (recent.size() < 2) return 0.0;
  auto [lo, hi] = std::minmax_element(recent.begin(), recent.end());
  const double mid = median({recent.begin(), recent.end()});
  return mid > 0 ? (*hi - *lo) / mid : 0.0;
}

}  // namespace

const char* directionName(LinkDirection direction) {
  return direction == LinkDirection::kUp ? "uplink" : "downlink";
}

const char* rateMethodName(RateMethod method) {
  switch (method) {
    case RateMethod::kUnknown: return "unknown";
    case RateMethod::kProbe: return "probe";
    case RateMethod::kPassive: return "passive";
    case RateMethod::kBound: return "bound";
    case RateMethod::kEmulated: return "emulated";
    case RateMethod::kConfigured: return "configured";
  }
  return "unknown";
}

LinkBook::LinkBook(const Clock& clock, LinkBookOptions options) : clock_(clock), options_(options) {}

LinkBook::Entry& LinkBook::entry(const LinkId& link) { return links_[link]; }

const LinkBook::Entry* LinkBook::find(const LinkId& link) const {
  auto it = links_.find(link);
  return it == links_.end() ? nullptr : &it->second;
}

void LinkBook::restore(const LinkId& link, const LinkRate& rate) {
  Entry& e = entry(link);
  e.rate = rate;
  e.baseline = rate.bytesPerSecond;
  e.fixed = false;  // an emulated or configured rate is told again at registration
  // A link its agent's transfers belied stays measured: what it tells is not believed again.
  e.belied = rate.toldBytesPerSecond > 0;
  e.told = rate.toldBytesPerSecond;
}

void LinkBook::set(const LinkId& link, Entry& e, double value, RateMethod method, double spread) {
  e.rate = {value, method, clock_.now(), spread, e.belied ? e.told : 0.0};
  e.evidence = {};
  if (e.baseline <= 0) {
    e.baseline = value;
  } else if (std::fabs(value / e.baseline - 1.0) > options_.driftThreshold) {
    changes_.push_back({link, e.baseline, value});
    e.baseline = value;  // plans made from now on use the new value
  }
}

void LinkBook::setFixed(const LinkId& link, double bytesPerSecond, RateMethod method) {
  Entry& e = entry(link);
  if (e.belied) {
    e.told = e.rate.toldBytesPerSecond = bytesPerSecond;
    return;
  }
  if (e.fixed && e.rate.bytesPerSecond == bytesPerSecond && e.rate.method == method) {
    e.rate.at = clock_.now();
    return;
  }
  e.fixed = true;
  e.recent.clear();
  e.disturbed = false;
  set(link, e, bytesPerSecond, method, 0.0);
}

void LinkBook::clearFixed(const LinkId& link) {
  auto it = links_.find(link);
  if (it == links_.end() || !it->second.fixed) return;
  it->second.fixed = false;
  it->second.rate = {};  // unknown until measured; the baseline stays for drift
}

void LinkBook::pace(const LinkId& link, double bytesPerSecond) { entry(link).pacedAt = bytesPerSecond; }

std::vector<std::pair<LinkId, LinkRate>> LinkBook::measured() const {
  std::vector<std::pair<LinkId, LinkRate>> out;
  for (const auto& [link, e] : links_)
    if (!e.fixed && e.rate.known()) out.emplace_back(link, e.rate);
  return out;
}

void LinkBook::confirm(Entry& e, double value) {
  e.rate.bytesPerSecond = (1.0 - options_.ewmaWeight) * e.rate.bytesPerSecond + options_.ewmaWeight * value;
  e.rate.at = clock_.now();
  e.recent.push_back(value);
  while (e.recent.size() > kRecent) e.recent.pop_front();
  e.rate.spread = spreadOf(e.recent);
  e.evidence = {};
}

void LinkBook::applySurvey(const std::vector<SurveyFinding>& findings, const std::vector<LinkId>& targets,
                           bool otherTraffic) {
  for (const SurveyFinding& f : findings) {
    Entry& e = entry(f.link);
    if (e.fixed || e.pacedAt > 0 || !(f.bytesPerSecond > 0)) continue;
    const bool target = std::find(targets.begin(), targets.end(), f.link) != targets.end();
    const double was = e.rate.known() ? e.rate.bytesPerSecond : 0.0;
    const bool wasCapacity = e.rate.known() && !e.rate.bound();
    if (f.saturated) {
      set(f.link, e, f.bytesPerSecond, RateMethod::kProbe, f.spread);
      e.recent.assign(1, f.bytesPerSecond);
      if (target) e.disturbed = false;
      continue;
    }
    const bool above = f.bytesPerSecond > was * (1.0 + options_.driftThreshold);
    if (target) {
      // A capacity known before that the bound does not exceed still stands.
      if (!wasCapacity || above) set(f.link, e, f.bytesPerSecond, RateMethod::kBound, 0.0);
      e.disturbed = otherTraffic;
    } else if (!e.rate.known() || (e.rate.bound() && f.bytesPerSecond > was) || above) {
      set(f.link, e, f.bytesPerSecond, RateMethod::kBound, 0.0);
    }
  }
}

void LinkBook::weigh(const LinkId& link, Entry& e, const LinkReading& reading) {
  const double v = reading.bytesPerSecond;
  if (!e.rate.known()) {
    set(link, e, v, reading.saturated ? RateMethod::kPassive : RateMethod::kBound, 0.0);
    if (reading.saturated) e.recent.assign(1, v);
    return;
  }
  const double c = e.rate.bytesPerSecond;
  const double threshold = options_.driftThreshold;
  if (reading.saturated) {
    if (e.rate.bound() && v >= c * (1.0 - threshold)) {
      // Saturated near or above the bound: a capacity at last.
      set(link, e, v, RateMethod::kPassive, 0.0);
      e.recent.assign(1, v);
      return;
    }
    if (!e.rate.bound() && std::fabs(v / c - 1.0) <= threshold) {
      confirm(e, v);
      return;
    }
  } else if (v <= c * (1.0 + threshold)) {
    // A share smaller than the link says nothing; a bound only rises.
    if (e.rate.bound() && v > c) set(link, e, v, RateMethod::kBound, 0.0);
    return;
  }
  // A reading that disagrees: adopted once readings have disagreed the same
  // way for the whole dwell time (a burst or a hiccup is not a change).
  Evidence& ev = e.evidence;
  const bool lower = v < c;
  const TimePoint now = clock_.now();
  // A gap without readings breaks the run.
  if (!ev.since || ev.lower != lower || now - ev.last > std::max(options_.gap, options_.dwell)) ev = {now, now, lower, {}};
  ev.last = now;
  ev.values.push_back(v);
  if (now - *ev.since < options_.dwell) return;
  const double adopted = median(ev.values);
  e.recent.assign(ev.values.begin(), ev.values.end());
  while (e.recent.size() > kRecent) e.recent.pop_front();
  set(link, e, adopted, reading.saturated ? RateMethod::kPassive : RateMethod::kBound, spreadOf(e.recent));
  // A relay short of CPU (expanding zstd, hashing, a busy PC) reads its
  // links low as surely as a slower link does, and once paced at the lower
  // rate it cannot show more. A probe with nothing else running tells the
  // two apart: the lowered link is measured again once no data moves.
  if (lower) e.disturbed = true;
}

void LinkBook::weighTold(const LinkId& link, Entry& e, const LinkReading& reading) {
  const double told = e.rate.bytesPerSecond;
  Evidence& ev = e.lie;
  const TimePoint now = clock_.now();
  if (!reading.saturated || reading.bytesPerSecond >= options_.beliedFraction * told) {
    ev = {};  // a reading near the told rate: no lie, or not yet
    return;
  }
  if (!ev.since || now - ev.last > std::max(options_.gap, options_.dwell)) ev = {now, now, true, {}};
  ev.last = now;
  ev.values.push_back(reading.bytesPerSecond);
  if (now - *ev.since < options_.dwell || static_cast<int>(ev.values.size()) < options_.beliedReadings) return;
  // Planned with what it achieves from now on, measured like a real link.
  e.fixed = false;
  e.belied = true;
  e.told = told;
  e.recent.assign(ev.values.begin(), ev.values.end());
  set(link, e, median(ev.values), RateMethod::kPassive, spreadOf(e.recent));
  e.rate.toldBytesPerSecond = told;
  e.lie = {};
}

void LinkBook::observe(const std::vector<LinkReading>& readings) {
  for (const LinkReading& r : readings) {
    Entry& e = entry(r.link);
    if (!(r.bytesPerSecond > 0)) continue;
    // A reading near the pace hnowd set measures the pacing, not the link.
    if (e.pacedAt > 0 && r.bytesPerSecond >= e.pacedAt * (1.0 - options_.driftThreshold)) continue;
    if (e.fixed) {
      if (e.rate.method == RateMethod::kEmulated) weighTold(r.link, e, r);
      continue;
    }
    weigh(r.link, e, r);
  }
}

void LinkBook::adopt(const LinkReading& r) {
  const double v = r.bytesPerSecond;
  if (!(v > 0)) return;
  Entry& e = entry(r.link);
  if (r.saturated) {
    set(r.link, e, v, RateMethod::kPassive, 0.0);
    e.recent.assign(1, v);
    return;
  }
  const double c = e.rate.bytesPerSecond;
  if (!e.rate.known() || (e.rate.bound() && v > c) || v > c * (1.0 + options_.driftThreshold))
    set(r.link, e, v, RateMethod::kBound, 0.0);
}

void LinkBook::noteForeign(const std::string& node, double sent, double received) {
  const TimePoint now = clock_.now();
  for (auto [direction, value] : {std::pair{LinkDirection::kUp, sent}, std::pair{LinkDirection::kDown, received}}) {
    auto it = links_.find({node, direction});
    if (it == links_.end() || !it->second.rate.known()) continue;
    Entry& e = it->second;
    // A window without other traffic says it has gone.
    e.foreign = {value > options_.foreignNoise * e.rate.bytesPerSecond ? value : 0.0, now};
  }
}

const LinkRate* LinkBook::rate(const LinkId& link) const {
  const Entry* e = find(link);
  return e && e->rate.known() ? &e->rate : nullptr;
}

double LinkBook::knownAtLeast(const LinkId& link) const {
  const LinkRate* r = rate(link);
  return r ? r->bytesPerSecond : 0.0;
}

double LinkBook::foreign(const LinkId& link) const {
  const Entry* e = find(link);
  if (!e || e->foreign.bytesPerSecond <= 0 || clock_.now() - e->foreign.at > options_.foreignHold) return 0.0;
  return e->foreign.bytesPerSecond;
}

double LinkBook::available(const LinkId& link) const {
  const double capacity = knownAtLeast(link);
  const double other = foreign(link);
  if (other <= 0) return capacity;
  return std::max(capacity - other, options_.leastAvailable * capacity);
}

int LinkBook::samples(const LinkId& link) const {
  const Entry* e = find(link);
  return e ? static_cast<int>(e->recent.size()) : 0;
}

bool LinkBook::fixed(const LinkId& link) const {
  const Entry* e = find(link);
  return e && e->fixed;
}

bool LinkBook::pacesBoth(const std::string& node) const {
  return fixed({node, LinkDirection::kUp}) && fixed({node, LinkDirection::kDown});
}

bool LinkBook::paced(const LinkId& link) const {
  const Entry* e = find(link);
  return e && e->pacedAt > 0;
}

std::vector<LinkChange> LinkBook::takeChanges() {
  std::vector<LinkChange> out;
  out.swap(changes_);
  return out;
}

bool LinkBook::otherTrafficNow(TimePoint now) const {
  for (const auto& [link, e] : links_)
    if (e.foreign.bytesPerSecond > 0 && now - e.foreign.at <= options_.foreignHold) return true;
  return false;
}

std::vector<LinkId> LinkBook::remeasureNow() const {
  std::vector<LinkId> out;
  if (otherTrafficNow(clock_.now())) return out;
  for (const auto& [link, e] : links_)
    if (e.disturbed && !e.fixed) out.push_back(link);
  return out;
}

void LinkBook::remeasured(const LinkId& link) {
  if (auto it = links_.find(link); it != links_.end()) it->second.disturbed = false;
}

void LinkBook::forget(const std::string& node) {
  for (LinkDirection d : {LinkDirection::kUp, LinkDirection::kDown}) links_.erase({node, d});
}

}  // namespace hnow::daemon
