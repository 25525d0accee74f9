#pragma once
// `hnow run`'s request and report (api/run.h), in core's words: JobService
// takes the one and fills the other in.
#include "api/run.h"

namespace hnow::daemon {

using api::RunAgentStatus;
using api::RunBar;
using api::RunRequest;
using api::RunStatus;

}  // namespace hnow::daemon
