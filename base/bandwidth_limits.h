#pragma once
// Bandwidth limits (docs/bandwidth-limits.md): what hnow may use of a node's
// links, as static caps and time-of-day windows ("08:00-18:00 weekdays:
// 20%"). Pure: the caller passes the local time and the link's capacity;
// nothing here reads a clock or a file.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/result.h"

namespace hnow {

// The lower of a rate and a cap, either 0 when there is none (0 and 0: 0).
inline double capped(double rate, double cap) { return cap > 0 && (rate <= 0 || cap < rate) ? cap : rate; }

// One schedule entry: on `days`, from `startMinute` to `endMinute` (minutes
// after midnight; an end at or before the start runs past midnight into
// the next day), cap one or both directions.
struct ScheduleWindow {
  std::array<bool, 7> days{};  // indexed like LocalTime::weekday: the day a window starts
  int startMinute = 0;
  int endMinute = 0;          // up to 1440 (24:00)
  double percent = 0.0;       // of the link's capacity; 0: an absolute cap
  double mbps = 0.0;          // an absolute cap, Mbit/s; 0: a percentage
  bool up = true;
  bool down = true;
  std::string text;           // the entry as written, for status and logs
};

// A node's limits; 0 and no windows: none.
struct BandwidthLimits {
  double maxUplinkMbps = 0.0;
  double maxDownlinkMbps = 0.0;
  std::vector<ScheduleWindow> schedule;
  bool empty() const { return maxUplinkMbps <= 0 && maxDownlinkMbps <= 0 && schedule.empty(); }
};

// The caps in force on one direction of a link, before the capacity is
// known: the static cap, the lowest absolute window and the lowest
// percentage window (each 0 when none). A percentage needs a capacity: the
// measured one when known, else the static cap; with neither it caps nothing.
struct DirectionCap {
  double staticBytesPerSecond = 0.0;
  double windowBytesPerSecond = 0.0;
  std::string absoluteWindow;  // the entry that set windowBytesPerSecond
  double percent = 0.0;
  std::string percentWindow;   // the entry that set percent

  // The cap in bytes/s given the link's capacity (0: not known); 0: none.
  double bytesPerSecond(double capacity) const;
  // The absolute caps alone (static, windows in Mbit/s): what a node can
  // pace at without knowing its link's capacity; 0: none.
  double absoluteBytesPerSecond() const { return capped(staticBytesPerSecond, windowBytesPerSecond); }
  // What set bytesPerSecond(capacity): "max_uplink_mbps" (or downlink), the
  // schedule entry, or "" when nothing caps the link.
  std::string source(double capacity, std::string_view staticKey) const;
};

struct CapsInForce {
  DirectionCap up, down;
};

// The caps in force at `t`.
CapsInForce capsAt(const BandwidthLimits& limits, const LocalTime& t);

// Seconds from `t` until the next time a window starts or ends, when the
// caps are to be evaluated again; nullopt without windows.
std::optional<int> secondsUntilNextChange(const BandwidthLimits& limits, const LocalTime& t);

// One schedule entry, e.g. "08:00-18:00 weekdays: 20%" or
// "mon-fri 12:00-13:00: 50 mbps up"; the Error says what is wrong and how
// to write it (the caller adds the file and key).
Result<ScheduleWindow> parseScheduleWindow(std::string_view entry);

// The grammar in one line, for error messages and docs.
inline constexpr const char* kScheduleGrammar =
    "[DAYS] HH:MM-HH:MM: N% or N mbps [up|down|both], DAYS one of daily, weekdays, weekends, "
    "a day (mon), a range (mon-fri) or a list (mon,wed,sat-sun)";

inline double mbpsToBytesPerSecond(double mbps) { return mbps * 1e6 / 8; }

}  // namespace hnow
