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

// `level`: trace | debug | info | warn | error (checked by conf/).
void setupLogging(const std::string& program, const std::string& level);

}  // namespace hnow::transport
