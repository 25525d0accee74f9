#include <doctest/doctest.h>

#include <string>

#include "planner/schedule_check.h"

using hnow::Result;
using hnow::planner::checkBroadcast;
using hnow::planner::checkReduction;
using hnow::planner::Schedule;

namespace {

// Refused, with a message that says `part`.
bool rejects(const Result<double>& check, const std::string& part) {
  if (check) return false;
  return check.error().message.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a valid broadcast replays to its makespan") {
  std::vector<double> t{1, 2, 3};
  Schedule s{{0, 1, 0, 1}, {0, 2, 1, 2}};
  auto check = checkBroadcast(t, 0, s);
  REQUIRE(check.ok());
  CHECK(*check == doctest::Approx(2));
}

TEST_CASE("broadcast replay rejects a sender that does not hold the message yet") {
  std::vector<double> t{1, 1, 1};
  Schedule s{{1, 2, 0, 1}, {0, 1, 1, 2}};
  auto check = checkBroadcast(t, 0, s);
  CHECK(rejects(check, "has not received"));
}

TEST_CASE("broadcast replay rejects two sends at once from one node") {
  std::vector<double> t{1, 1, 1};
  Schedule s{{0, 1, 0, 1}, {0, 2, 0.5, 1.5}};
  auto check = checkBroadcast(t, 0, s);
  CHECK(rejects(check, "still busy"));
}

TEST_CASE("broadcast replay rejects a receiver busy sending") {
  std::vector<double> t{1, 1, 1, 1};
  Schedule s{{0, 1, 0, 1}, {1, 2, 1, 2}, {0, 1, 1, 2}};
  CHECK_FALSE(checkBroadcast(t, 0, s).ok());
}

TEST_CASE("broadcast replay rejects a second receive, a receive by the source, a missed node") {
  std::vector<double> t{1, 1, 1};
  CHECK(rejects(checkBroadcast(t, 0, Schedule{{0, 1, 0, 1}, {0, 1, 1, 2}}), "already got"));
  CHECK(rejects(checkBroadcast(t, 0, Schedule{{0, 1, 0, 1}, {1, 0, 1, 2}}), "source never"));
  CHECK(rejects(checkBroadcast(t, 0, Schedule{{0, 1, 0, 1}}), "never receives"));
}

TEST_CASE("broadcast replay rejects a transfer whose length is not the sender's t") {
  std::vector<double> t{1, 2};
  CHECK(rejects(checkBroadcast(t, 0, Schedule{{0, 1, 0, 2}}), "lasts"));
}

TEST_CASE("broadcast replay accepts back-to-back transfers despite rounding") {
  std::vector<double> t{0.1, 0.1, 0.1, 0.1};
  double a = 0.1, b = 0.1 + 0.1;
  Schedule s{{0, 1, 0, a}, {0, 2, a, b}, {1, 3, 0.1, 0.30000000000000004 - 0.1 + 0.1}};
  s[2].end = s[2].start + 0.1;
  CHECK(checkBroadcast(t, 0, s).ok());
}

TEST_CASE("broadcast replay checks only the given targets for a multicast") {
  std::vector<double> t{1, 1, 1};
  std::vector<int> targets{1};
  CHECK(checkBroadcast(t, 0, Schedule{{0, 1, 0, 1}}, targets).ok());
}

TEST_CASE("a valid reduction replays to its makespan") {
  std::vector<double> t{1, 1, 3};
  Schedule s{{0, 1, 0, 1}, {1, 2, 1, 2}};
  auto check = checkReduction(t, 2, s);
  REQUIRE(check.ok());
  CHECK(*check == doctest::Approx(2));
}

TEST_CASE("reduction replay rejects a sink that sends, a double send, and a receive after sending") {
  std::vector<double> t{1, 1, 1};
  CHECK(rejects(checkReduction(t, 2, Schedule{{2, 0, 0, 1}, {0, 1, 1, 2}, {1, 2, 2, 3}}), "sink never sends"));
  CHECK(rejects(checkReduction(t, 2, Schedule{{0, 2, 0, 1}, {0, 1, 1, 2}, {1, 2, 2, 3}}), "already sent"));
  CHECK(rejects(checkReduction(t, 2, Schedule{{0, 2, 0, 1}, {1, 0, 1, 2}}), "has already sent"));
}

TEST_CASE("reduction replay rejects a node that never sends and one that sends while receiving") {
  std::vector<double> t{1, 1, 1};
  CHECK(rejects(checkReduction(t, 2, Schedule{{0, 2, 0, 1}}), "never sends"));
  CHECK(rejects(checkReduction(t, 2, Schedule{{0, 1, 0, 1}, {1, 2, 0.5, 1.5}}), "still busy"));
}

TEST_CASE("an empty schedule is valid for a single node") {
  std::vector<double> t{1};
  CHECK(checkBroadcast(t, 0, Schedule{}).ok());
  CHECK(checkReduction(t, 0, Schedule{}).ok());
}
