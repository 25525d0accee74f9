#pragma once
// An operation's report as it travels, its clock stopped: two reads that
// differ only in elapsed time give the same bytes. hnowd pushes a report to
// the client following it only when these differ from the last push's
// (daemon/server/progress_follow.h).
#include <string>

#include "api/manifest.h"
#include "api/run.h"
#include "api/send_status.h"

namespace hnow::api {

std::string reportPrint(SendStatus status);
std::string reportPrint(ManifestStatus status);
std::string reportPrint(RunStatus status);

}  // namespace hnow::api
