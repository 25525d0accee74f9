#pragma once
// An agent a send was for that could not take part: the report's
// (api/send_status.h), in core's words.
#include "api/send_status.h"

namespace hnow::daemon {

using api::SkippedAgent;

}  // namespace hnow::daemon
