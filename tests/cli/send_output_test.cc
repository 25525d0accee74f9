// A send's report shows its replans in the table and --json, and draws its
// picture when hnowd sent one.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli/send_command.h"

using namespace hnow;

namespace {

api::SendStatus replannedSend() {
  api::SendStatus s;
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
    api::CopyStatus c;
    c.node = n;
    c.parent = "hnowd";
    c.state = api::CopyStatus::State::kDone;
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
  api::SendStatus plain = replannedSend();
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

TEST_CASE("send report: the table lists each parent change") {
  const std::string table = cli::sendTable(replannedSend(), "f");
  CHECK(table.find("replanned 1 time; the last replan predicted the end at 4.25 s") != std::string::npos);
  CHECK(table.find("b            a -> hnowd  (drift: a uplink 100.0 -> 10.0 Mbit/s)") != std::string::npos);
}

TEST_CASE("send report: --svg draws the picture hnowd sent, and says why when it sent none") {
  api::SendStatus s = replannedSend();
  auto none = cli::sendPictureSvg(s);
  REQUIRE_FALSE(none);
  CHECK(none.error().message.find("hnowd sent no picture of this send") != std::string::npos);
  s.picture = api::SendPicture{};
  s.picture->algo = "pipelined";
  s.picture->nodes = {{"hnowd", true, 0, 0}, {"a", false, 0, 0}};
  s.picture->versions = {{0.0, "plan", {{"hnowd", "a", 0, 0, std::nullopt, 0, 0, 0}}, std::nullopt}};
  auto drawn = cli::sendPictureSvg(s);
  REQUIRE(drawn);
  CHECK(drawn->find("<title>hnowd → a") != std::string::npos);
}

namespace {

// Two stripes of 1000 bytes over `n` agents: in stripe 1 hnowd feeds
// agent-1 and agent-1 feeds the rest; in stripe 2 hnowd feeds agent-2 and
// the others hang off agent-2, agent-3 at depth 3 under agent-2's child.
api::SendStatus stripedSend(int n) {
  api::SendStatus s;
  s.finished = true;
  s.algo = "striped";
  s.size = 2000;
  s.stripeOffsets = {0, 1000, 2000};
  for (int i = 1; i <= n; ++i) {
    api::CopyStatus c;
    c.node = "agent-" + std::to_string(i);
    c.state = api::CopyStatus::State::kDone;
    c.finishedS = 2.0;
    c.plannedS = 2.0;
    c.stripeParents = {i == 1 ? "hnowd" : "agent-1", i == 2 ? "hnowd" : i == 4 ? "agent-3" : "agent-2"};
    c.parent = c.stripeParents[0];
    c.stripeHeldS = {1.0, 2.0};
    c.heldS = 2.0;
    s.copies.push_back(c);
  }
  return s;
}

}  // namespace

TEST_CASE("send report: a striped send's table lists each stripe's edges on a small lab, its shape on a large one") {
  const std::string small = cli::sendTable(stripedSend(4), "f");
  CHECK(small.find("stripe 1: bytes 0-1000 (parent>node): hnowd>agent-1 agent-1>agent-2 agent-1>agent-3 "
                   "agent-1>agent-4\n") != std::string::npos);
  const std::string large = cli::sendTable(stripedSend(40), "f");
  CHECK(large.find("stripe 1: bytes 0-1000: 40 nodes, 1 relays, depth 2, at most 39 children; from hnowd: agent-1\n") !=
        std::string::npos);
  CHECK(large.find("stripe 2: bytes 1000-2000: 40 nodes, 2 relays, depth 3, at most 38 children; from hnowd: agent-2\n") !=
        std::string::npos);
  CHECK(large.find("agent-1>agent-2") == std::string::npos);
}

TEST_CASE("send report: a striped copy's --json has when each stripe was held") {
  auto json = nlohmann::json::parse(cli::sendJson(stripedSend(3)));
  CHECK(json["copies"][0]["stripe_held_s"] == nlohmann::json::array({1.0, 2.0}));
  CHECK(json["copies"][0]["held_s"].get<double>() == doctest::Approx(2.0));
}

TEST_CASE("send report: agents the send was for that could not take part are listed as skipped, with why") {
  api::SendStatus s = replannedSend();
  s.skipped = {{"c", "lost, last heard 3 min ago"}, {"d", "not connected"}};
  const std::string table = cli::sendTable(s, "image.iso");
  CHECK(table.find("ok: a, b\n") != std::string::npos);
  CHECK(table.find("failed: none\n") != std::string::npos);
  CHECK(table.find("skipped: c (lost, last heard 3 min ago), d (not connected)\n") != std::string::npos);
  auto json = nlohmann::json::parse(cli::sendJson(s));
  REQUIRE(json["skipped"].size() == 2);
  CHECK(json["skipped"][0]["node"] == "c");
  CHECK(json["skipped"][0]["why"] == "lost, last heard 3 min ago");
  CHECK(json["skipped"][1]["node"] == "d");
  // None skipped: no line in the table, an empty list in --json.
  const api::SendStatus all = replannedSend();
  CHECK(cli::sendTable(all, "image.iso").find("skipped") == std::string::npos);
  CHECK(nlohmann::json::parse(cli::sendJson(all))["skipped"].empty());
}

TEST_CASE("send report: what --compress decided is a line of the table and an object of --json, absent when hnowd said nothing") {
  api::SendStatus s = replannedSend();
  CHECK(cli::sendTable(s, "f").find("compress") == std::string::npos);
  CHECK_FALSE(nlohmann::json::parse(cli::sendJson(s)).contains("compression"));
  s.compression = {"zstd", 1u << 30, 412u << 20, "zstd: 12.1 s predicted against 25.3 s plain (ratio 0.40)", 2.5};
  s.size = 412u << 20;  // what moved: the frame
  CHECK(cli::sendTable(s, "f").find("  compressed with zstd: 1.0 GiB -> 412.0 MiB in 2.50 s (auto: 12.1 s predicted "
                                    "against 25.3 s plain (ratio 0.40))\n") != std::string::npos);
  // The first line gives the file's own size, not its frame's.
  CHECK(cli::sendTable(s, "f").rfind("sent f (1.0 GiB) along ", 0) == 0);
  auto json = nlohmann::json::parse(cli::sendJson(s));
  CHECK(json["compression"] == nlohmann::json{{"algo", "zstd"},
                                              {"plain_bytes", 1u << 30},
                                              {"sent_bytes", 412u << 20},
                                              {"why", "zstd: 12.1 s predicted against 25.3 s plain (ratio 0.40)"},
                                              {"compress_s", 2.5}});
  s.compression = {"none", 1000, 1000, "none: random-looking data, ratio 1.00", 0.0};
  CHECK(cli::sendTable(s, "f").find("  not compressed (auto: random-looking data, ratio 1.00)\n") != std::string::npos);
  s.compression.why = "none: --compress none";
  CHECK(cli::sendTable(s, "f").find("  not compressed (--compress none)\n") != std::string::npos);
}

TEST_CASE("send --max-rate is read as bits per second with a unit, none when absent, and a bad one names the option") {
  hnow::cli::SendOptions options;
  CHECK(*hnow::cli::sendMaxRate(options) == 0);
  options.maxRate = "100M";
  CHECK(*hnow::cli::sendMaxRate(options) == doctest::Approx(12.5e6));
  options.maxRate = "2G";
  CHECK(*hnow::cli::sendMaxRate(options) == doctest::Approx(250e6));
  options.maxRate = "100";
  auto bad = hnow::cli::sendMaxRate(options);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.rfind("--max-rate: ", 0) == 0);
}

TEST_CASE("a send's report states its --max-rate in text and JSON, and JSON says null without one") {
  hnow::api::SendStatus status;
  status.algo = "tree";
  status.finished = true;
  CHECK(hnow::cli::sendJson(status).find("\"max_rate_bps\": null") != std::string::npos);
  CHECK(hnow::cli::sendTable(status, "f").find("--max-rate") == std::string::npos);
  status.maxRateBytesPerSecond = 12.5e6;
  CHECK(hnow::cli::sendJson(status).find("\"max_rate_bps\": 100000000") != std::string::npos);
  CHECK(hnow::cli::sendTable(status, "f").find("every link at most 100.0 Mbit/s (--max-rate)") != std::string::npos);
}
