#include "server/tick_loop.h"

#include <spdlog/spdlog.h>

#include "server/link_values.h"

namespace hnow::daemon {

namespace {

// Lost detection happens at a tick: an agent silent for lost_timeout_s is
// marked within one tick more (2.5 s + 0.25 s < 3 s by default).
constexpr auto kTick = 250 * kj::MILLISECONDS;
constexpr int kTicksPerPersist = 4;  // state.db is at most a second behind
constexpr int kTicksPerObservation = 4;  // hnow's transfers are judged every second

void logEvent(const RateEvent& e) {
  switch (e.kind) {
    case RateEvent::Kind::kLost: spdlog::warn("agent {} lost", e.agent); break;
    case RateEvent::Kind::kBack: spdlog::info("agent {} back", e.agent); break;
    case RateEvent::Kind::kDrift:
      if (e.rate == "compute")
        spdlog::info("{} drift: compute {:.4g} -> {:.4g} units/s", e.agent, e.before, e.after);
      else
        spdlog::info("{} drift: {} {:.1f} -> {:.1f} Mbit/s", e.agent, e.rate, e.before * 8 / 1e6, e.after * 8 / 1e6);
      break;
  }
}

// A tick that comes late means hnowd's loop read nothing meanwhile (an
// overloaded machine: 256 agents beside a CPU hog on 2 cores): the agents'
// heartbeats waited in its sockets, and that silence is not theirs.
constexpr auto kLateTick = std::chrono::milliseconds(500);

void measureLag(const Ticked& t) {
  const hnow::TimePoint now = t.clock.now();
  auto& [last, warned] = *t.lastTick;
  if (last != hnow::TimePoint{}) {
    const hnow::Duration late = now - last - std::chrono::milliseconds(kTick / kj::MILLISECONDS);
    if (late > kLateTick) {
      t.coordinator.loopLagged(late);
      if (now - warned > std::chrono::seconds(10)) {
        spdlog::warn("hnowd's loop ran {:.1f} s late (this machine is overloaded?): that silence is not counted "
                     "against the agents",
                     hnow::seconds(late));
        warned = now;
      }
    }
  }
  last = now;
}

}  // namespace

void logSurvey(const SurveyReport& r) {
  if (r.aborted) {
    spdlog::info("link survey of {} link(s) gave way to an operation after {:.1f} s", r.targets.size(), r.seconds);
    return;
  }
  spdlog::info("link survey ({}) of {} link(s) took {:.1f} s", r.asked ? "asked for" : "automatic", r.targets.size(),
               r.seconds);
  for (const auto& f : r.findings)
    spdlog::info("  {} {} {}{:.1f} Mbit/s{}", f.link.node, directionName(f.link.direction),
                 f.saturated ? "" : ">= ", f.bytesPerSecond * 8 / 1e6,
                 f.foreign > 0 ? fmt::format(" (other traffic {:.1f} Mbit/s)", f.foreign * 8 / 1e6) : "");
  for (const auto& f : r.retaken)
    spdlog::info("  {} {} first read {:.1f} Mbit/s, under its capacity: measured again, the higher kept", f.link.node,
                 directionName(f.link.direction), f.bytesPerSecond * 8 / 1e6);
  for (const auto& e : r.errors) spdlog::warn("  {}", e);
}

void persist(Coordinator& coordinator) {
  if (auto saved = coordinator.persist(); !saved)
    spdlog::error("saving state: {}", saved.error().message);  // kept pending: retried next time
}


// hnowd's own caps at its local time (every tick: a schedule's boundary is
// then at most a tick late); sends and jobs that start take them, and the
// sends under way are paced anew when they change.
void evaluateCaps(const Ticked& t) {
  const double before = t.coordinator.pacing().coordinatorCaps().up.bytesPerSecond;
  t.coordinator.pacing().setCoordinatorCaps(capsAt(t.limits, localTimeOf(t.clock.wallNow())), t.configuredUplink);
  if (t.coordinator.pacing().coordinatorCaps().up.bytesPerSecond != before) t.sends.sourceCapsChanged();
}

kj::Promise<void> tickEvery(kj::Timer& timer, Ticked t, int tick) {
  return timer.afterDelay(kTick).then([&timer, t, tick]() {
    measureLag(t);
    t.coordinator.localCounters(countersOf(t.plane.counters()));
    if ((tick + 1) % kTicksPerObservation == 0) t.coordinator.observeTransfers();
    evaluateCaps(t);
    // Nothing runs: hnowd's uplink is no longer paced by what it measured,
    // only by uplink_mbps and the caps in force.
    if (!t.coordinator.moving()) {
      const NodeCaps caps = t.coordinator.pacing().coordinatorCaps();
      const std::pair<double, double> idle{capped(t.configuredUplink, caps.up.bytesPerSecond), caps.down.bytesPerSecond};
      if (t.coordinator.pacing().sourceIdle() || idle != *t.idleRates) {
        t.plane.setRates(idle.first, idle.second);
        *t.idleRates = idle;
      }
    }
    for (const auto& event : t.coordinator.tick()) logEvent(event);
    t.surveys.tick();
    t.jobs.tick();
    t.sends.tick();
    t.underWay.tick();
    t.manifests.tick();
    if ((tick + 1) % kTicksPerObservation == 0) t.owed.tick();
    if ((tick + 1) % kTicksPerPersist == 0) persist(t.coordinator);
    return tickEvery(timer, t, tick + 1);
  });
}

}  // namespace hnow::daemon
