// A send's report shows its replans in the table, --json and the Gantt chart.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli/send_command.h"

using namespace hnow;

namespace {

daemon::SendStatus replannedSend() {
  daemon::SendStatus s;
  s.finished = true;
  s.algo = "pipelined";
  s.size = 1000;
  s.predictedS = 2.0;
  s.elapsedS = 4.5;
  s.replanning = true;
  s.replans = 1;
  s.replannedPredictedS = 4.25;
  s.parentChanges.push_back({"b", "a", "hnowd", 1.5, "drift: a uplink 100.0 -> 10.0 Mbit/s"});
  for (const char* n : {"a", "b"}) {
    daemon::CopyStatus c;
    c.node = n;
    c.parent = "hnowd";
    c.state = daemon::CopyStatus::State::kDone;
    c.finishedS = 4.0;
    c.plannedS = 2.0;
    s.copies.push_back(c);
  }
  return s;
}

}  // namespace

TEST_CASE("send report: --json counts replans and lists parent changes, without replans they are empty") {
  auto json = nlohmann::json::parse(cli::sendJson(replannedSend()));
  CHECK(json["replanning"] == true);
  CHECK(json["replans"] == 1);
  CHECK(json["replanned_predicted_s"].get<double>() == doctest::Approx(4.25));
  CHECK(json["predicted_s"].get<double>() == doctest::Approx(2.0));
  REQUIRE(json["parent_changes"].size() == 1);
  CHECK(json["parent_changes"][0] == nlohmann::json{{"node", "b"},
                                                    {"old_parent", "a"},
                                                    {"new_parent", "hnowd"},
                                                    {"at_s", 1.5},
                                                    {"reason", "drift: a uplink 100.0 -> 10.0 Mbit/s"}});
  daemon::SendStatus plain = replannedSend();
  plain.replanning = false;
  plain.replans = 0;
  plain.replannedPredictedS = 0;
  plain.parentChanges.clear();
  auto kept = nlohmann::json::parse(cli::sendJson(plain));
  CHECK(kept["replans"] == 0);
  CHECK(kept["replanned_predicted_s"].is_null());
  CHECK(kept["parent_changes"].empty());
  CHECK(cli::sendTable(plain, "f").find("replanning off (--no-replan)") != std::string::npos);
}

TEST_CASE("send report: the table lists each parent change, the Gantt chart marks it on the moved node's row") {
  const std::string table = cli::sendTable(replannedSend(), "f");
  CHECK(table.find("replanned 1 time; the last replan predicted the end at 4.25 s") != std::string::npos);
  CHECK(table.find("b            a -> hnowd  (drift: a uplink 100.0 -> 10.0 Mbit/s)") != std::string::npos);
  const std::string svg = cli::sendGanttSvg(replannedSend());
  CHECK(svg.find("class=\"mark\"") != std::string::npos);
  CHECK(svg.find("a → hnowd") != std::string::npos);
  CHECK(svg.find("<title>drift: a uplink 100.0 -&gt; 10.0 Mbit/s</title>") != std::string::npos);
  auto plain = replannedSend();
  plain.parentChanges.clear();
  CHECK(cli::sendGanttSvg(plain).find("class=\"mark\"") == std::string::npos);
}
