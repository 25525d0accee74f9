#include "agent/agent_runtime.h"

#include <spdlog/spdlog.h>

#include <initializer_list>
#include <map>
#include <string>
#include <utility>

#include "agent/job_runner.h"
#include "agent/receiver.h"
#include "transport/wire_caps.h"

// The rates this agent paces its data plane at: the emulated link, the
// caps of [limits] in force, and every live receive's pace.
namespace hnow::agent {

void AgentRuntime::paceReceive(const std::string& token, double up, double down) {
  bool changed = false;
  for (auto [paces, pace] : {std::pair{&paces_, up}, std::pair{&downPaces_, down}}) {
    if (pace > 0) {
      (*paces)[token] = pace;
      changed = true;
    } else if (paces->erase(token) > 0) {
      changed = true;
    }
  }
  if (changed) applyRates();
}

namespace {

// The lowest of the rates that are set (0: none is).
double lowest(std::initializer_list<double> rates, const std::map<std::string, double>& paces) {
  double low = 0.0;
  for (double r : rates) low = capped(low, r);
  for (const auto& [token, pace] : paces) low = capped(low, pace);
  return low;
}

// The caps this agent paces at by itself: a percentage needs the link's
// capacity, which only an emulated link knows here; of a real link hnowd
// resolves it against what it measured and sends it as a receive's pace
// (applied here, a percentage of a link paced at it would be measured as
// the link, and shrink at every survey).
double ownCap(const DirectionCap& cap, double emulated) {
  return emulated > 0 ? cap.bytesPerSecond(emulated) : cap.absoluteBytesPerSecond();
}

}  // namespace

// The slowest of: the emulated link, the caps this agent knows how to
// apply, and every live receive's pace (hnowd's share of a measured
// uplink, the caps resolved by hnowd, a send's --max-rate); unpaced when
// none is set.
void AgentRuntime::applyRates() {
  if (!receiver_) return;
  const double emulatedUp = mbpsToBytesPerSecond(emulation_.uplinkMbps);
  const double emulatedDown = mbpsToBytesPerSecond(emulation_.downlinkMbps);
  receiver_->setRates(lowest({emulatedUp, ownCap(caps_.up, emulatedUp)}, paces_),
                      lowest({emulatedDown, ownCap(caps_.down, emulatedDown)}, downPaces_));
}

void AgentRuntime::evaluateCaps() {
  caps_ = capsAt(config_.limits, localTimeOf(clock_.wallNow()));
  applyRates();
  const double up = mbpsToBytesPerSecond(emulation_.uplinkMbps), down = mbpsToBytesPerSecond(emulation_.downlinkMbps);
  if (!config_.limits.empty())
    spdlog::info("caps in force: uplink {}, downlink {}",
                 caps_.up.bytesPerSecond(up) > 0
                     ? fmt::format("{:.1f} Mbit/s ({})", caps_.up.bytesPerSecond(up) * 8 / 1e6,
                                   caps_.up.source(up, "max_uplink_mbps"))
                     : std::string("none"),
                 caps_.down.bytesPerSecond(down) > 0
                     ? fmt::format("{:.1f} Mbit/s ({})", caps_.down.bytesPerSecond(down) * 8 / 1e6,
                                   caps_.down.source(down, "max_downlink_mbps"))
                     : std::string("none"));
}

kj::Promise<void> AgentRuntime::capsSchedule(wire::AgentSession::Client session) {
  evaluateCaps();
  auto request = session.reportCapsRequest();
  transport::capsToWire(caps_, request.initCaps());
  // An hnowd that cannot take caps (an older one) plans without them; the
  // agent still paces by them, and its session goes on.
  auto reported = request.send().ignoreResult().catch_([](kj::Exception&& e) {
    if (e.getType() == kj::Exception::Type::DISCONNECTED) kj::throwFatalException(kj::mv(e));
    spdlog::warn("hnowd did not take this agent's bandwidth caps ({}); it plans without them",
                 e.getDescription().cStr());
  });
  auto next = secondsUntilNextChange(config_.limits, localTimeOf(clock_.wallNow()));
  if (!next) return reported.then([]() { return kj::Promise<void>(kj::NEVER_DONE); });
  // Half a second past the boundary: the new minute is surely the one read.
  return reported.then([this, session, wait = *next]() mutable {
    return timer_.afterDelay(wait * kj::SECONDS + 500 * kj::MILLISECONDS).then([this, session]() mutable {
      return capsSchedule(session);
    });
  });
}

void AgentRuntime::setEmulation(double uplinkMbps, double downlinkMbps, double computeFactor) {
  if (uplinkMbps > 0) emulation_.uplinkMbps = uplinkMbps;
  if (downlinkMbps > 0) emulation_.downlinkMbps = downlinkMbps;
  if (computeFactor > 0) emulation_.computeFactor = computeFactor;
  if (jobs_ && computeFactor > 0) jobs_->setComputeFactor(computeFactor);  // runs under way too
  applyRates();
  spdlog::info("emulating uplink {} Mbit/s, downlink {} Mbit/s, compute x{} (0 = not limited)",
               emulation_.uplinkMbps, emulation_.downlinkMbps, emulation_.computeFactor);
  requestProbe();
}

}  // namespace hnow::agent
