#pragma once
// hnowd.toml's settings as the options of the rate table, the link book
// and the survey runner.
#include "conf/runtime_config.h"
#include "core/coordinator.h"
#include "core/links/survey_runner.h"

namespace hnow::daemon {

RateTableOptions rateOptionsOf(const conf::CoordinatorConfig& config);
LinkOptions linkOptionsOf(const conf::CoordinatorConfig& config);
SurveyRunnerOptions surveyOptionsOf(const conf::CoordinatorConfig& config);

}  // namespace hnow::daemon
