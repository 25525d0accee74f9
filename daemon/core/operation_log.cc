#include "core/operation_log.h"

#include <cmath>
#include <cstdio>

namespace hnow::daemon {

namespace {

OperationRecord recordOf(const Clock& clock, const std::string& kind, const std::string& summary,
                         const std::string& status) {
  OperationRecord record;
  record.kind = kind;
  record.started = clock.wallNow();
  record.status = status;
  record.summary = summary;
  return record;
}

}  // namespace

Result<OperationId> OperationLog::begin(const std::string& kind, const std::string& summary) {
  return store_.beginOperation(recordOf(clock_, kind, summary, "running"));
}

Result<OperationId> OperationLog::queue(const std::string& kind, const std::string& summary) {
  return store_.beginOperation(recordOf(clock_, kind, summary, "queued"));
}

Result<void> OperationLog::finish(OperationId id, const std::string& status, const std::string& summary) {
  return store_.finishOperation(id, clock_.wallNow(), status, summary);
}

std::string jsonStrings(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + jsonString(values[i]);
  return out + "]";
}

std::string jsonNumber(double x) {
  if (!std::isfinite(x)) return "null";
  char out[32];
  std::snprintf(out, sizeof out, "%.3f", x);
  return out;
}

std::string jsonString(const std::string& value) {
  std::string out = "\"";
  for (unsigned char c : value) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += static_cast<char>(c);  // UTF-8 passes through as it is
        }
    }
  }
  return out + "\"";
}

}  // namespace hnow::daemon
