#include "server/coordinator_options.h"

#include <chrono>

namespace hnow::daemon {

namespace {

hnow::Duration secondsToDuration(double s) {
  return std::chrono::duration_cast<hnow::Duration>(std::chrono::duration<double>(s));
}

}  // namespace

RateTableOptions rateOptionsOf(const conf::CoordinatorConfig& config) {
  RateTableOptions options;
  options.lostAfter = secondsToDuration(config.lostTimeoutSeconds);
  options.driftThreshold = config.driftThreshold;
  options.driftDwell = secondsToDuration(config.driftDwellSeconds);
  options.ewmaWeight = config.ewmaWeight;
  return options;
}

LinkOptions linkOptionsOf(const conf::CoordinatorConfig& config) {
  LinkOptions links;
  links.book.driftThreshold = config.driftThreshold;
  links.book.dwell = secondsToDuration(config.driftDwellSeconds);
  links.book.ewmaWeight = config.ewmaWeight;
  links.measureEmulated = config.survey.emulatedLinks;
  return links;
}

SurveyRunnerOptions surveyOptionsOf(const conf::CoordinatorConfig& config) {
  SurveyRunnerOptions options;
  options.warmSeconds = config.survey.warmSeconds;
  options.windowSeconds = config.survey.windowSeconds;
  options.survey.maxPeers = config.survey.peers;
  options.every = secondsToDuration(config.survey.intervalSeconds);
  return options;
}

}  // namespace hnow::daemon
