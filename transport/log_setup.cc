#include "transport/log_setup.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

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

}  // namespace

std::unique_ptr<spdlog::formatter> daemonLogFormatter() {
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<SyslogPriority>('*').add_flag<EscapedMessage>('&').set_pattern(
      "%*%Y-%m-%d %H:%M:%S.%e %n %l: %&");
  return formatter;
}

void setupLogging(const std::string& program, const std::string& level) {
  auto logger = spdlog::stderr_logger_mt(program);
  logger->set_formatter(daemonLogFormatter());
  logger->set_level(spdlog::level::from_str(level));
  // A daemon's log is read while it runs (and after a crash).
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

}  // namespace hnow::transport
