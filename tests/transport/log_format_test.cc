// The daemons' log line (transport/log_setup.h): a peer's string with a
// newline and journald's "<4>" priority stays inside its own line, as text
// and as JSON, and a JSON line carries the fields of base/log_context.h.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "base/log_context.h"
#include "transport/log_setup.h"

TEST_CASE("a logged string with a newline and a journald priority stays in its line, escaped") {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  sink->set_formatter(hnow::transport::daemonLogFormatter());
  spdlog::logger logger("hnowd", sink);
  logger.warn("agent {} (site {}) registered", "a1", "lab\n<4>forged: agent-2 revoked\r\x1b[2J");
  logger.info("path {}", "C:\\data\tx");
  const std::string text = out.str();
  std::istringstream lines(text);
  std::vector<std::string> all;
  for (std::string line; std::getline(lines, line);) all.push_back(line);
  REQUIRE(all.size() == 2);
  CHECK(all[0].rfind("<4>", 0) == 0);
  CHECK(all[0].find(" hnowd warning: agent a1 (site lab\\x0a<4>forged: agent-2 revoked\\x0d\\x1b[2J) registered") !=
        std::string::npos);
  CHECK(all[1].rfind("<6>", 0) == 0);
  CHECK(all[1].find(" hnowd info: path C:\\data\tx") != std::string::npos);
}

namespace {

// The lines `formatter` writes for what `log` logs.
template <class Log>
std::vector<std::string> linesOf(std::unique_ptr<spdlog::formatter> formatter, Log log) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  sink->set_formatter(std::move(formatter));
  spdlog::logger logger("hnowd", sink);
  log(logger);
  std::istringstream lines(out.str());
  std::vector<std::string> all;
  for (std::string line; std::getline(lines, line);) all.push_back(line);
  return all;
}

}  // namespace

TEST_CASE("a JSON log line carries the operation, agent and peer in force, and nothing once they end") {
  const auto lines = linesOf(hnow::transport::jsonLogFormatter("hnowd"), [](spdlog::logger& logger) {
    {
      hnow::LogScope call(hnow::LogFields{0, "lab-07", "10.0.0.7:41022"});
      {
        hnow::LogScope send(hnow::operationField(12));
        logger.warn("send {}: {} failed", 12, "lab-07");
      }
      logger.info("heartbeat");
    }
    logger.error("alone");
  });
  REQUIRE(lines.size() == 3);
  const auto first = nlohmann::json::parse(lines[0]);
  CHECK(first["level"] == "warning");
  CHECK(first["program"] == "hnowd");
  CHECK(first["message"] == "send 12: lab-07 failed");
  CHECK(first["operation"] == 12);
  CHECK(first["agent"] == "lab-07");
  CHECK(first["peer"] == "10.0.0.7:41022");
  // "2024-01-01T12:00:00.000Z"
  const std::string time = first["time"];
  CHECK(time.size() == 24);
  CHECK(time[10] == 'T');
  CHECK(time.back() == 'Z');
  const auto second = nlohmann::json::parse(lines[1]);
  CHECK_FALSE(second.contains("operation"));  // the send's scope ended, the call's holds
  CHECK(second["agent"] == "lab-07");
  const auto third = nlohmann::json::parse(lines[2]);
  CHECK(third["level"] == "error");
  CHECK_FALSE(third.contains("agent"));
  CHECK_FALSE(third.contains("peer"));
}

TEST_CASE("a JSON log line keeps a peer's newline, forged priority and broken UTF-8 inside one valid object") {
  const auto lines = linesOf(hnow::transport::jsonLogFormatter("hnow-agent"), [](spdlog::logger& logger) {
    logger.warn("site {}", "lab\n<4>forged\r\x1b[2J\xff\xfe");
  });
  REQUIRE(lines.size() == 1);
  const auto line = nlohmann::json::parse(lines[0]);
  CHECK(line["program"] == "hnow-agent");
  const std::string message = line["message"];
  CHECK(message.rfind("site lab\n<4>forged\r\x1b[2J", 0) == 0);
  CHECK(message.find("\xef\xbf\xbd") != std::string::npos);  // U+FFFD for the bytes that are not UTF-8
}
