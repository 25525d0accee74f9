#pragma once
// One line a person reads for an operation record's summary (the JSON
// object state.db keeps, which `hnow ops --json` gives whole): what was
// moved or run, where, how it went and how long it took.
#include <string>

#include "base/result.h"

namespace hnow::cli {

// The picture a send's record keeps (its summary's "picture",
// api/send_picture_json.h) as JSON text, or why there is none.
Result<std::string> recordPictureJson(const std::string& summary);

// `summary` as hnowd recorded it for an operation of `kind` ("send",
// "run", "manifest"); a summary that is not JSON is shown as it is.
std::string readableSummary(const std::string& kind, const std::string& summary);

}  // namespace hnow::cli
