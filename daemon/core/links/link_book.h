#pragma once
// hnowd's book of every node's link rates (docs/link-rates.md): what a
// survey measured, what hnow's own transfers confirmed or corrected, what
// an agent emulates, and the other traffic on each link now. Plans use
// what is available now (the capacity less other traffic, which lowers a
// link only while it lasts); drift, and with it replanning, follows the
// capacity alone: a link busy with hnow's own traffic, or carrying a share
// smaller than itself, is not slower. Logic only: time through Clock.
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/links/link_rate.h"
#include "core/links/link_survey.h"

namespace hnow::daemon {

struct LinkBookOptions {
  // A capacity that moves more than this fraction is a change (a drift
  // event); passive readings within it are folded in by `ewmaWeight`.
  double driftThreshold = 0.25;
  // Passive readings that disagree must keep disagreeing this long...
  Duration dwell = std::chrono::seconds(2);
  // ...without a gap longer than this (hnowd judges transfers every second).
  Duration gap = std::chrono::seconds(3);
  double ewmaWeight = 0.3;
  // An agent's told (emulated) link is belied when its saturated readings
  // stay under this fraction of what it tells for the dwell time, with at
  // least `beliedReadings` of them: a paced link reads within a few percent
  // of its pace, so only a rate far above what the agent achieves is taken
  // for a lie, not a relay briefly short of CPU.
  double beliedFraction = 0.5;
  int beliedReadings = 3;
  // Other traffic under this fraction of a link is noise (control traffic,
  // the ACKs of other flows).
  double foreignNoise = 0.05;
  // Other traffic on a node no longer heard from has gone after this long.
  Duration foreignHold = std::chrono::seconds(3);
  // TCP shares a link filled by other traffic: a new flow gets about half.
  double leastAvailable = 0.5;
};

struct LinkChange {
  LinkId link;
  double before = 0.0;  // the capacity plans were made with
  double after = 0.0;
};

class LinkBook {
 public:
  LinkBook(const Clock& clock, LinkBookOptions options);

  // What an earlier run of hnowd knew (state/).
  void restore(const LinkId& link, const LinkRate& rate);
  // The node paces its data plane at `bytesPerSecond` (kEmulated), or it
  // was configured so (kConfigured): exact, no survey or reading moves it,
  // unless the agent's own transfers belie what it tells (`observe`): from
  // then on the link is measured like a real one, and what the agent tells
  // is kept only to show (LinkRate::toldBytesPerSecond).
  void setFixed(const LinkId& link, double bytesPerSecond, RateMethod method);
  // The node no longer paces this link: it must be measured.
  void clearFixed(const LinkId& link);
  // Every link of `node` dropped (a machine gone for good).
  void forget(const std::string& node);
  // The link's node paces it under its capacity for now, at `bytesPerSecond`
  // (0: no longer): hnowd's own uplink and the agents' during a send.
  // Findings of it, and readings near the pace, measure the pacing and are
  // left out; a reading below the pace by more than the drift threshold
  // still counts: the link cannot carry even that.
  void pace(const LinkId& link, double bytesPerSecond);

  // A survey's findings (link_survey.h). A saturated finding replaces the
  // link's rate; a bound replaces a target's rate unless a capacity known
  // before is within it (the survey could not fill the link this time).
  // `targets` are the links the survey was for; other links it crossed only
  // gain what they were seen to carry. A target measured while other
  // traffic was on its round is measured again once that traffic has gone.
  void applySurvey(const std::vector<SurveyFinding>& findings, const std::vector<LinkId>& targets,
                   bool otherTraffic);
  // Readings of hnow's transfers over one window (link_verdict.h).
  void observe(const std::vector<LinkReading>& readings);
  // A reading that stands for a whole operation (what a machine's agents
  // took in over a send, host_intake.h): readings come minutes apart, so
  // the dwell that keeps a one-second burst from moving a link would never
  // pass. Taken at once: a capacity when saturated; a bound (which plans
  // do not use) when it is well over what is known, which it shows stale.
  void adopt(const LinkReading& reading);
  // Other traffic on a node's links over the latest window.
  void noteForeign(const std::string& node, double sent, double received);

  // Null when nothing is known.
  const LinkRate* rate(const LinkId& link) const;
  // What the link is known to carry at least (a capacity or a bound), 0 unknown.
  double knownAtLeast(const LinkId& link) const;
  // What a plan made now should take: the capacity less other traffic on it.
  double available(const LinkId& link) const;
  double foreign(const LinkId& link) const;
  // Readings behind the current rate (survey and passive).
  int samples(const LinkId& link) const;
  bool fixed(const LinkId& link) const;
  // The node paces both its links (an emulated agent, hnow local): it
  // shares no real switch or trunk with anyone.
  bool pacesBoth(const std::string& node) const;
  bool paced(const LinkId& link) const;
  // Every measured link (not emulated or configured), for state/.
  std::vector<std::pair<LinkId, LinkRate>> measured() const;

  // Capacity changes beyond the threshold since the last call.
  std::vector<LinkChange> takeChanges();
  // Links to measure again now: measured under other traffic that has
  // gone, or lowered by hnow's own transfers (a CPU-bound relay reads low).
  std::vector<LinkId> remeasureNow() const;
  void remeasured(const LinkId& link);

 private:
  struct Evidence {
    std::optional<TimePoint> since;
    TimePoint last{};
    bool lower = false;
    std::vector<double> values;
  };
  struct Foreign {
    double bytesPerSecond = 0.0;
    TimePoint at{};
  };
  struct Entry {
    LinkRate rate;
    bool fixed = false;
    double pacedAt = 0.0;  // bytes/s; 0: not paced
    double baseline = 0.0;  // the capacity plans were made with (drift)
    std::deque<double> recent;  // saturated readings behind the rate
    Evidence evidence;
    Evidence lie;          // saturated readings far under a told rate
    double told = 0.0;     // what the agent tells, once belied
    bool belied = false;
    Foreign foreign;
    // Measured under other traffic, or lowered by passive readings: measure
    // again when the traffic has gone and no data moves.
    bool disturbed = false;
  };

  Entry& entry(const LinkId& link);
  const Entry* find(const LinkId& link) const;
  // The rate becomes `value` by `method`; a change event if beyond the threshold.
  void set(const LinkId& link, Entry& e, double value, RateMethod method, double spread);
  void confirm(Entry& e, double value);
  // A told link's saturated reading: belied once they stay far under it.
  void weighTold(const LinkId& link, Entry& e, const LinkReading& reading);
  void weigh(const LinkId& link, Entry& e, const LinkReading& reading);
  bool otherTrafficNow(TimePoint now) const;

  const Clock& clock_;
  LinkBookOptions options_;
  std::map<LinkId, Entry> links_;
  std::vector<LinkChange> changes_;
};

}  // namespace hnow::daemon
