#pragma once
// Time for everything that waits or measures: logic reads it only through this interface: main() passes the
// real clock, tests a ManualClock they advance by hand (as kj's TimerImpl
// and Envoy's simulated time do; docs/architecture.md "Conventions the code
// follows").
#include <chrono>
#include <ctime>

namespace hnow {

using Duration = std::chrono::nanoseconds;
using TimePoint = std::chrono::time_point<std::chrono::steady_clock, Duration>;
// Calendar time, for what outlives the process (state/): steady time
// points mean nothing after a restart.
using WallTime = std::chrono::time_point<std::chrono::system_clock, Duration>;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
  virtual WallTime wallNow() const = 0;
};

class SteadyClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
  WallTime wallNow() const override { return std::chrono::system_clock::now(); }
};

class ManualClock final : public Clock {
 public:
  TimePoint now() const override { return now_; }
  // Starts at 2024-01-01T00:00:00Z and moves with now().
  WallTime wallNow() const override { return WallTime(std::chrono::seconds(1704067200)) + now_.time_since_epoch(); }
  void advance(Duration d) { now_ += d; }

 private:
  TimePoint now_{};
};

inline double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

// A steady time point as calendar time and back, by the clock's offset now:
// what is stored across restarts is written as calendar time.
inline WallTime wallOf(const Clock& clock, TimePoint t) { return clock.wallNow() - (clock.now() - t); }
inline TimePoint steadyOf(const Clock& clock, WallTime t) { return clock.now() - (clock.wallNow() - t); }

// Calendar fields of the local time, as std::tm gives them: what a
// time-of-day schedule is read at (base/bandwidth_limits.h).
struct LocalTime {
  int weekday = 0;  // 0 Sunday .. 6 Saturday (tm_wday)
  int hour = 0;
  int minute = 0;
  int second = 0;
};

// `t` in the process's time zone.
inline LocalTime localTimeOf(WallTime t) {
  const std::time_t seconds =
      std::chrono::system_clock::to_time_t(std::chrono::time_point_cast<std::chrono::system_clock::duration>(t));
  std::tm local{};
  localtime_r(&seconds, &local);
  return {local.tm_wday, local.tm_hour, local.tm_min, local.tm_sec};
}

}  // namespace hnow
