#pragma once
// Both daemons log to stderr, one line per event, with a syslog priority
// prefix ("<6>") that journald turns into the entry's level; when run by
// hand or by `hnow local`, the line stays readable.
#include <string>

namespace hnow::transport {

// `level`: trace | debug | info | warn | error (checked by conf/).
void setupLogging(const std::string& program, const std::string& level);

}  // namespace hnow::transport
