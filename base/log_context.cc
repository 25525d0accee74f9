#include "base/log_context.h"

namespace hnow {

namespace {

thread_local LogFields current;

}  // namespace

const LogFields& logFields() { return current; }

LogScope::LogScope(const LogFields& set) : saved_(current) {
  if (set.operation != 0) current.operation = set.operation;
  if (!set.agent.empty()) current.agent = set.agent;
  if (!set.peer.empty()) current.peer = set.peer;
}

LogScope::~LogScope() { current = std::move(saved_); }

}  // namespace hnow
