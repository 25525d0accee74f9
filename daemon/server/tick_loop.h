#pragma once
// hnowd's tick: every 250 ms on the control thread, the rate table marks
// lost agents, hnowd's caps are evaluated at its local time, the services
// end what waited in vain, passive windows judge the links every second,
// and state.db is saved. Also the log lines of rate events and surveys.
#include <kj/async-io.h>

#include <memory>
#include <utility>

#include "base/bandwidth_limits.h"
#include "base/clock.h"
#include "core/coordinator.h"
#include "core/jobs/job_service.h"
#include "core/manifest/manifest_service.h"
#include "core/send/owed_sends.h"
#include "core/send/send_service.h"
#include "core/send/sends_under_way.h"
#include "core/links/survey_runner.h"
#include "transport/data/data_plane.h"

namespace hnow::daemon {

// What a tick reaches; copied into each tick's continuation.
struct Ticked {
  Coordinator& coordinator;
  SurveyRunner& surveys;
  JobService& jobs;
  OwedSends& owed;
  SendsUnderWay& underWay;
  SendService& sends;
  ManifestService& manifests;
  transport::data::DataPlane& plane;
  double configuredUplink;  // bytes/s, 0: not set
  const BandwidthLimits& limits;  // [limits] in hnowd.toml
  const hnow::Clock& clock;
  // What hnowd's data plane is paced at while idle: the configured uplink
  // within the caps in force (shared by the ticks, which copy Ticked).
  std::shared_ptr<std::pair<double, double>> idleRates = std::make_shared<std::pair<double, double>>(-1, -1);
  // When the last tick ran, and when hnowd last said its loop was late.
  std::shared_ptr<std::pair<hnow::TimePoint, hnow::TimePoint>> lastTick =
      std::make_shared<std::pair<hnow::TimePoint, hnow::TimePoint>>();
};

void logSurvey(const SurveyReport& report);
// state.db saved; a failure is logged and the state kept pending for the next try.
void persist(Coordinator& coordinator);
// hnowd's own caps at its local time; the sends under way are paced anew when they change.
void evaluateCaps(const Ticked& t);
// Ticks until the promise is dropped.
kj::Promise<void> tickEvery(kj::Timer& timer, Ticked t, int tick = 0);

}  // namespace hnow::daemon
