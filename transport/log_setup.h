#pragma once
// Both daemons log to stderr, one line per event, with a syslog priority
// prefix ("<6>") that journald turns into the entry's level; when run by
// hand or by `hnow local`, the line stays readable.
#include <spdlog/formatter.h>

#include <memory>
#include <string>

namespace hnow::transport {

// The daemons' line: "<4>2024-01-01 12:00:00.000 hnowd warning: MESSAGE",
// the message with its control bytes escaped (base/printable.h oneLine):
// what a peer sends (an agent's site, a path) cannot start a line of its own.
std::unique_ptr<spdlog::formatter> daemonLogFormatter();

// log_format = "json": one JSON object per line, for a log shipper or jq:
//   {"time":"2024-01-01T12:00:00.000Z","level":"warning","program":"hnowd",
//    "message":"...","operation":12,"agent":"lab-07","peer":"10.0.0.7:41022"}
// "operation", "agent" and "peer" are there when the event set them
// (base/log_context.h); "operation" is the id `hnow ops` shows. The message
// is the text line's, unescaped: JSON's own escaping keeps it on one line.
std::unique_ptr<spdlog::formatter> jsonLogFormatter(const std::string& program);

// `level`: trace | debug | info | warn | error; `format`: text | json
// (both checked by conf/).
void setupLogging(const std::string& program, const std::string& level, const std::string& format = "text");

}  // namespace hnow::transport
