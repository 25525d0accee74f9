#include <doctest/doctest.h>

#include "planner/schedule_check.h"

using hnow::planner::checkBroadcast;
using hnow::planner::checkReduction;
using hnow::planner::Schedule;

TEST_CASE("a valid broadcast replays to its makespan") {
  std::vector<double> t{1, 2, 3};
  Schedule s{{0, 1, 0, 1}, {0, 2, 1, 2}};
  auto check = checkBroadcast(t, 0, s);
  CHECK(check.valid);
  CHECK(check.makespan == doctest::Approx(2));
}

TEST_CASE("broadcast replay rejects a sender that does not hold the message yet") {
  std::vector<double> t{1, 1, 1};
  Schedule s{{1, 2, 0, 1}, {0, 1, 1, 2}};
  auto check = checkBroadcast(t, 0, s);
  CHECK_FALSE(check.valid);
  CHECK(check.reason.find("has not received") != std::string::npos);
}

TEST_CASE("broadcast replay rejects two sends at once from one node") {
  std::vector<double> t{1, 1, 1};
  Schedule s{{0, 1, 0, 1}, {0, 2, 0.5, 1.5}};
  auto check = checkBroadcast(t, 0, s);
  CHECK_FALSE(check.valid);
  CHECK(check.reason.find("still busy") != std::string::npos);
}

TEST_CASE("broadcast replay rejects a receiver busy sending") {
  std::vector<double> t{1, 1, 1, 1};
  Schedule s{{0, 1, 0, 1}, {1, 2, 1, 2}, {0, 1, 1, 2}};
  CHECK_FALSE(checkBroadcast(t, 0, s).valid);
}

TEST_CASE("broadcast replay rejects a second receive, a receive by the source, a missed node") {
  std::vector<double> t{1, 1, 1};
  CHECK(checkBroadcast(t, 0, Schedule{{0, 1, 0, 1}, {0, 1, 1, 2}}).reason.find("already got") !=
        std::string::npos);
  CHECK(checkBroadcast(t, 0, Schedule{{0, 1, 0, 1}, {1, 0, 1, 2}}).reason.find("source never") !=
        std::string::npos);
  CHECK(checkBroadcast(t, 0, Schedule{{0, 1, 0, 1}}).reason.find("never receives") !=
        std::string::npos);
}

TEST_CASE("broadcast replay rejects a transfer whose length is not the sender's t") {
  std::vector<double> t{1, 2};
  CHECK(checkBroadcast(t, 0, Schedule{{0, 1, 0, 2}}).reason.find("lasts") != std::string::npos);
}

TEST_CASE("broadcast replay accepts back-to-back transfers despite rounding") {
  std::vector<double> t{0.1, 0.1, 0.1, 0.1};
  double a = 0.1, b = 0.1 + 0.1;
  Schedule s{{0, 1, 0, a}, {0, 2, a, b}, {1, 3, 0.1, 0.30000000000000004 - 0.1 + 0.1}};
  s[2].end = s[2].start + 0.1;
  CHECK(checkBroadcast(t, 0, s).valid);
}

TEST_CASE("broadcast replay checks only the given targets for a multicast") {
  std::vector<double> t{1, 1, 1};
  std::vector<int> targets{1};
  CHECK(checkBroadcast(t, 0, Schedule{{0, 1, 0, 1}}, targets).valid);
}

TEST_CASE("a valid reduction replays to its makespan") {
  std::vector<double> t{1, 1, 3};
  Schedule s{{0, 1, 0, 1}, {1, 2, 1, 2}};
  auto check = checkReduction(t, 2, s);
  CHECK(check.valid);
  CHECK(check.makespan == doctest::Approx(2));
}

TEST_CASE("reduction replay rejects a sink that sends, a double send, and a receive after sending") {
  std::vector<double> t{1, 1, 1};
  CHECK(checkReduction(t, 2, Schedule{{2, 0, 0, 1}, {0, 1, 1, 2}, {1, 2, 2, 3}})
            .reason.find("sink never sends") != std::string::npos);
  CHECK(checkReduction(t, 2, Schedule{{0, 2, 0, 1}, {0, 1, 1, 2}, {1, 2, 2, 3}})
            .reason.find("already sent") != std::string::npos);
  CHECK(checkReduction(t, 2, Schedule{{0, 2, 0, 1}, {1, 0, 1, 2}})
            .reason.find("has already sent") != std::string::npos);
}

TEST_CASE("reduction replay rejects a node that never sends and one that sends while receiving") {
  std::vector<double> t{1, 1, 1};
  CHECK(checkReduction(t, 2, Schedule{{0, 2, 0, 1}}).reason.find("never sends") != std::string::npos);
  CHECK(checkReduction(t, 2, Schedule{{0, 1, 0, 1}, {1, 2, 0.5, 1.5}}).reason.find("still busy") !=
        std::string::npos);
}

TEST_CASE("an empty schedule is valid for a single node") {
  std::vector<double> t{1};
  CHECK(checkBroadcast(t, 0, Schedule{}).valid);
  CHECK(checkReduction(t, 0, Schedule{}).valid);
}
