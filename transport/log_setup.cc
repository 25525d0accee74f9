#include "transport/log_setup.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>

#include "base/log_context.h"
#include "base/printable.h"

namespace hnow::transport {

namespace {

// sd-daemon(3) priorities: err 3, warning 4, info 6, debug 7.
class SyslogPriority final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    const char* prefix = "<6>";
    switch (msg.level) {
      case spdlog::level::trace:
      case spdlog::level::debug: prefix = "<7>"; break;
      case spdlog::level::warn: prefix = "<4>"; break;
      case spdlog::level::err: prefix = "<3>"; break;
      case spdlog::level::critical: prefix = "<2>"; break;
      default: break;
    }
    dest.append(prefix, prefix + 3);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<SyslogPriority>();
  }
};

// The message, as %v, with control bytes escaped: escaping here, not where
// each peer string is logged, leaves no log line to forget it in.
class EscapedMessage final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    const std::string line = oneLine(std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<EscapedMessage>(); }
};

// journald's and syslog's names of the levels, as the text line's %l gives them.
const char* levelName(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace: return "trace";
    case spdlog::level::debug: return "debug";
    case spdlog::level::warn: return "warning";
    case spdlog::level::err: return "error";
    case spdlog::level::critical: return "critical";
    default: return "info";
  }
}

// "2024-01-01T12:00:00.123Z": RFC 3339 in UTC, what log stores parse.
std::string utcTime(spdlog::log_clock::time_point when) {
  const auto sinceEpoch = when.time_since_epoch();
  const std::time_t seconds = std::chrono::duration_cast<std::chrono::seconds>(sinceEpoch).count();
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(sinceEpoch).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char out[40];
  const std::size_t n = std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(out + n, sizeof out - n, ".%03dZ", static_cast<int>(millis));
  return out;
}

class JsonLine final : public spdlog::formatter {
 public:
  explicit JsonLine(std::string program) : program_(std::move(program)) {}
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    nlohmann::ordered_json line;
    line["time"] = utcTime(msg.time);
    line["level"] = levelName(msg.level);
    line["program"] = program_;
    line["message"] = std::string(msg.payload.data(), msg.payload.size());
    const LogFields& fields = logFields();
    if (fields.operation != 0) line["operation"] = fields.operation;
    if (!fields.agent.empty()) line["agent"] = fields.agent;
    if (!fields.peer.empty()) line["peer"] = fields.peer;
    // A peer's bytes that are not UTF-8 (an agent's site, a path) become
    // U+FFFD instead of an exception that would lose the line.
    const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonLine>(program_); }

 private:
  std::string program_;
};

}  // namespace

std::unique_ptr<spdlog::formatter> jsonLogFormatter(const std::string& program) {
  return std::make_unique<JsonLine>(program);
}

std::unique_ptr<spdlog::formatter> daemonLogFormatter() {
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<SyslogPriority>('*').add_flag<EscapedMessage>('&').set_pattern(
      "%*%Y-%m-%d %H:%M:%S.%e %n %l: %&");
  return formatter;
}

void setupLogging(const std::string& program, const std::string& level, const std::string& format) {
  auto logger = spdlog::stderr_logger_mt(program);
  logger->set_formatter(format == "json" ? jsonLogFormatter(program) : daemonLogFormatter());
  logger->set_level(spdlog::level::from_str(level));
  // A daemon's log is read while it runs (and after a crash).
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

}  // namespace hnow::transport
