#include "transport/log_setup.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

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

}  // namespace

void setupLogging(const std::string& program, const std::string& level) {
  auto logger = spdlog::stderr_logger_mt(program);
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<SyslogPriority>('*').set_pattern("%*%Y-%m-%d %H:%M:%S.%e %n %l: %v");
  logger->set_formatter(std::move(formatter));
  logger->set_level(spdlog::level::from_str(level));
  // A daemon's log is read while it runs (and after a crash).
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

}  // namespace hnow::transport
