#include <doctest/doctest.h>

#include "base/bandwidth_limits.h"

using hnow::BandwidthLimits;
using hnow::capsAt;
using hnow::LocalTime;
using hnow::parseScheduleWindow;
using hnow::ScheduleWindow;
using hnow::secondsUntilNextChange;

namespace {

constexpr int kSun = 0, kMon = 1, kFri = 5, kSat = 6;

ScheduleWindow window(const char* text) {
  auto w = parseScheduleWindow(text);
  REQUIRE_MESSAGE(w.ok(), (w.ok() ? "" : w.error().message));
  return *w;
}

BandwidthLimits limitsOf(std::initializer_list<const char*> entries, double up = 0, double down = 0) {
  BandwidthLimits limits;
  limits.maxUplinkMbps = up;
  limits.maxDownlinkMbps = down;
  for (const char* e : entries) limits.schedule.push_back(window(e));
  return limits;
}

double upAt(const BandwidthLimits& l, LocalTime t, double capacity = 0) { return capsAt(l, t).up.bytesPerSecond(capacity); }
double downAt(const BandwidthLimits& l, LocalTime t, double capacity = 0) {
  return capsAt(l, t).down.bytesPerSecond(capacity);
}

std::string errorOf(const char* entry) {
  auto w = parseScheduleWindow(entry);
  return w.ok() ? "" : w.error().message;
}

}  // namespace

TEST_CASE("no limits cap nothing at any time") {
  BandwidthLimits none;
  CHECK(none.empty());
  CHECK(upAt(none, {kMon, 12, 0, 0}, 1e9) == 0);
  CHECK(downAt(none, {kMon, 12, 0, 0}, 1e9) == 0);
  CHECK_FALSE(secondsUntilNextChange(none, {kMon, 12, 0, 0}));
  CHECK(capsAt(none, {kMon, 12, 0, 0}).up.source(1e9, "max_uplink_mbps").empty());
}

TEST_CASE("static caps apply at all times, each to its own direction") {
  auto limits = limitsOf({}, 200, 500);
  CHECK(upAt(limits, {kSun, 3, 0, 0}) == doctest::Approx(25e6));
  CHECK(downAt(limits, {kSun, 3, 0, 0}) == doctest::Approx(62.5e6));
  CHECK(capsAt(limits, {kSun, 3, 0, 0}).up.source(0, "max_uplink_mbps") == "max_uplink_mbps");
}

TEST_CASE("a weekday window is in force from its start up to but not including its end on weekdays only") {
  auto limits = limitsOf({"08:00-18:00 weekdays: 40 mbps"});
  CHECK(upAt(limits, {kMon, 7, 59, 59}) == 0);
  CHECK(upAt(limits, {kMon, 8, 0, 0}) == doctest::Approx(5e6));
  CHECK(downAt(limits, {kFri, 17, 59, 0}) == doctest::Approx(5e6));
  CHECK(upAt(limits, {kFri, 18, 0, 0}) == 0);
  CHECK(upAt(limits, {kSat, 12, 0, 0}) == 0);
  CHECK(upAt(limits, {kSun, 12, 0, 0}) == 0);
}

TEST_CASE("days may be named as weekends, a day, a full name, a range, a wrapping range or a list") {
  CHECK(window("weekends 00:00-24:00: 10%").days == std::array<bool, 7>{true, false, false, false, false, false, true});
  CHECK(window("wed 01:00-02:00: 10%").days == std::array<bool, 7>{false, false, false, true, false, false, false});
  CHECK(window("Wednesday 01:00-02:00: 10%").days == std::array<bool, 7>{false, false, false, true, false, false, false});
  CHECK(window("mon-wed 01:00-02:00: 10%").days == std::array<bool, 7>{false, true, true, true, false, false, false});
  CHECK(window("fri-mon 01:00-02:00: 10%").days == std::array<bool, 7>{true, true, false, false, false, true, true});
  CHECK(window("mon,wed,sat-sun 01:00-02:00: 10%").days == std::array<bool, 7>{true, true, false, true, false, false, true});
  CHECK(window("01:00-02:00: 10%").days == std::array<bool, 7>{true, true, true, true, true, true, true});
  CHECK(window("daily 01:00-02:00: 10%").days == std::array<bool, 7>{true, true, true, true, true, true, true});
  // The days may come before or after the time range.
  CHECK(window("01:00-02:00 tue: 10%").days == std::array<bool, 7>{false, false, true, false, false, false, false});
}

TEST_CASE("a window that ends before it starts runs past midnight into the next day") {
  auto limits = limitsOf({"fri 22:00-06:00: 8 mbps"});
  CHECK(upAt(limits, {kFri, 21, 59, 0}) == 0);
  CHECK(upAt(limits, {kFri, 22, 0, 0}) == doctest::Approx(1e6));
  CHECK(upAt(limits, {kSat, 5, 59, 0}) == doctest::Approx(1e6));
  CHECK(upAt(limits, {kSat, 6, 0, 0}) == 0);
  // Only the night that starts on a listed day.
  CHECK(upAt(limits, {kFri, 3, 0, 0}) == 0);
}

TEST_CASE("a Saturday night window runs into Sunday morning across the end of the week") {
  auto limits = limitsOf({"sat 23:00-02:00: 8 mbps"});
  CHECK(upAt(limits, {kSun, 1, 30, 0}) == doctest::Approx(1e6));
  CHECK(upAt(limits, {kSun, 2, 0, 0}) == 0);
  CHECK(upAt(limits, {kSat, 1, 30, 0}) == 0);
}

TEST_CASE("a percentage applies to the measured capacity, else to the static cap, else caps nothing") {
  auto limits = limitsOf({"08:00-18:00: 20%"}, 200);
  const LocalTime noon{kMon, 12, 0, 0};
  CHECK(upAt(limits, noon, 100e6) == doctest::Approx(20e6));   // 20% of 800 Mbit/s measured
  CHECK(upAt(limits, noon, 0) == doctest::Approx(5e6));        // 20% of the 200 Mbit/s cap
  CHECK(downAt(limits, noon, 0) == 0);                          // no capacity, no cap: nothing
  CHECK(downAt(limits, noon, 50e6) == doctest::Approx(10e6));
}

TEST_CASE("where windows overlap the lowest cap wins and is named as the one in force") {
  auto limits = limitsOf({"08:00-18:00 weekdays: 20%", "mon-fri 12:00-13:00: 50 mbps up", "12:30-12:45: 10%"}, 200);
  const double capacity = 125e6;  // 1 Gbit/s
  // 20% of 1 Gbit/s = 200 Mbit/s, the static cap too: the schedule says why.
  CHECK(upAt(limits, {kMon, 9, 0, 0}, capacity) == doctest::Approx(25e6));
  CHECK(capsAt(limits, {kMon, 9, 0, 0}).up.source(capacity, "max_uplink_mbps") == "08:00-18:00 weekdays: 20%");
  CHECK(upAt(limits, {kMon, 12, 10, 0}, capacity) == doctest::Approx(6.25e6));
  CHECK(capsAt(limits, {kMon, 12, 10, 0}).up.source(capacity, "max_uplink_mbps") == "mon-fri 12:00-13:00: 50 mbps up");
  // 10% of 1 Gbit/s is 100 Mbit/s: 50 Mbit/s still wins for the uplink.
  CHECK(upAt(limits, {kMon, 12, 40, 0}, capacity) == doctest::Approx(6.25e6));
  // The downlink: the "up" window does not apply; 10% beats 20%.
  CHECK(downAt(limits, {kMon, 12, 40, 0}, capacity) == doctest::Approx(12.5e6));
  CHECK(capsAt(limits, {kMon, 12, 40, 0}).down.source(capacity, "max_downlink_mbps") == "12:30-12:45: 10%");
  // Saturday afternoon: only the static cap.
  CHECK(upAt(limits, {kSat, 14, 0, 0}, capacity) == doctest::Approx(25e6));
  CHECK(capsAt(limits, {kSat, 14, 0, 0}).up.source(capacity, "max_uplink_mbps") == "max_uplink_mbps");
}

TEST_CASE("a direction after the amount limits the window to that direction") {
  CHECK_FALSE(window("01:00-02:00: 5 mbps up").down);
  CHECK_FALSE(window("01:00-02:00: 5 mbps down").up);
  auto both = window("01:00-02:00: 5% both");
  CHECK((both.up && both.down));
  CHECK_FALSE(window("01:00-02:00: 5%up").down);
  CHECK(window("01:00-02:00: 1 gbps").mbps == doctest::Approx(1000));
  CHECK(window("01:00-02:00: 500 kbps").mbps == doctest::Approx(0.5));
  CHECK(window("01:00-02:00: 50Mbit/s").mbps == doctest::Approx(50));
}

TEST_CASE("the next change is the next start or end of any window, across midnight and the week's end") {
  auto limits = limitsOf({"08:00-18:00 weekdays: 20%"});
  CHECK(*secondsUntilNextChange(limits, {kMon, 7, 59, 30}) == 30);
  CHECK(*secondsUntilNextChange(limits, {kMon, 8, 0, 0}) == 10 * 3600);
  CHECK(*secondsUntilNextChange(limits, {kFri, 18, 0, 0}) == (6 + 48 + 8) * 3600);
  auto night = limitsOf({"sat 23:00-02:00: 8 mbps"});
  CHECK(*secondsUntilNextChange(night, {kSat, 23, 30, 0}) == 150 * 60);
}

TEST_CASE("every malformed schedule entry is refused with what is wrong and how to write it") {
  // Without the ':' before the amount the last time's colon is taken for it.
  CHECK(errorOf("08:00-18:00 weekdays 20%").find("'08:00-18' is not a time range") != std::string::npos);
  CHECK(errorOf("weekdays: 20%").find("no time range") != std::string::npos);
  CHECK(errorOf("8-18 weekdays: 20%").find("not a set of days") != std::string::npos);
  CHECK(errorOf("08:00-25:00: 20%").find("not a time range") != std::string::npos);
  CHECK(errorOf("08:60-09:00: 20%").find("not a time range") != std::string::npos);
  CHECK(errorOf("24:00-09:00: 20%").find("not a time range") != std::string::npos);
  CHECK(errorOf("08:00-08:00: 20%").find("00:00-24:00") != std::string::npos);
  CHECK(errorOf("00:00-24:00: 20%").empty());
  CHECK(errorOf("08:00-09:00 funday: 20%").find("'funday' is not a set of days") != std::string::npos);
  CHECK(errorOf("08:00-09:00 mon tue: 20%").find("more than one set of days") != std::string::npos);
  CHECK(errorOf("08:00-09:00 10:00-11:00: 20%").find("more than one time range") != std::string::npos);
  CHECK(errorOf("08:00-09:00: 120%").find("at most 100") != std::string::npos);
  CHECK(errorOf("08:00-09:00: 0%").find("a number > 0") != std::string::npos);
  CHECK(errorOf("08:00-09:00: 20").find("no unit") != std::string::npos);
  CHECK(errorOf("08:00-09:00: 20 MB/s").find("unknown unit") != std::string::npos);
  CHECK(errorOf("08:00-09:00: 20% sideways").find("not a direction") != std::string::npos);
  CHECK(errorOf("08:00-09:00: 20% up now").find("unexpected 'now'") != std::string::npos);
  CHECK(errorOf("").find("no ':'") != std::string::npos);
  // Every message names the entry and shows the grammar.
  const std::string message = errorOf("08:00-09:00: 20");
  CHECK(message.find("'08:00-09:00: 20'") != std::string::npos);
  CHECK(message.find("e.g. \"08:00-18:00 weekdays: 20%\"") != std::string::npos);
}
