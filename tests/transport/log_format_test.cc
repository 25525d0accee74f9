// The daemons' log line (transport/log_setup.h): a peer's string with a
// newline and journald's "<4>" priority stays inside its own line.
#include <doctest/doctest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

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
