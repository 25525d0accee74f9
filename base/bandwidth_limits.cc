#include "base/bandwidth_limits.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace hnow {

namespace {

constexpr int kMinutesPerDay = 1440;
constexpr int kMinutesPerWeek = 7 * kMinutesPerDay;
constexpr int kSecondsPerWeek = kMinutesPerWeek * 60;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  const auto last = s.find_last_not_of(" \t");
  return std::string(s.substr(first, last - first + 1));
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

Error bad(std::string_view entry, const std::string& why) {
  return Error{"schedule entry '" + std::string(entry) + "': " + why + " (write " + kScheduleGrammar +
               ", e.g. \"08:00-18:00 weekdays: 20%\")"};
}

// "mon" or "monday" -> 1; -1 when not a day.
int dayNumber(const std::string& word) {
  static const char* const names[] = {"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"};
  for (int d = 0; d < 7; ++d) {
    const std::string full = names[d];
    if (word == full || word == full.substr(0, 3)) return d;
  }
  return -1;
}

// DAYS: daily | weekdays | weekends | a comma list of days and day ranges
// (a range may wrap: fri-mon).
std::optional<std::array<bool, 7>> parseDays(const std::string& word) {
  std::array<bool, 7> days{};
  if (word == "daily" || word == "everyday") return std::array<bool, 7>{true, true, true, true, true, true, true};
  if (word == "weekdays") return std::array<bool, 7>{false, true, true, true, true, true, false};
  if (word == "weekends") return std::array<bool, 7>{true, false, false, false, false, false, true};
  std::istringstream items(word);
  for (std::string item; std::getline(items, item, ',');) {
    const auto dash = item.find('-');
    const int from = dayNumber(item.substr(0, dash));
    const int to = dash == std::string::npos ? from : dayNumber(item.substr(dash + 1));
    if (from < 0 || to < 0) return std::nullopt;
    for (int d = from;; d = (d + 1) % 7) {
      days[d] = true;
      if (d == to) break;
    }
  }
  if (std::none_of(days.begin(), days.end(), [](bool b) { return b; })) return std::nullopt;
  return days;
}

// "HH:MM" -> minutes after midnight; 24:00 only when `end`.
std::optional<int> parseClock(const std::string& s, bool end) {
  const auto colon = s.find(':');
  if (colon == std::string::npos || colon == 0 || colon > 2 || s.size() != colon + 3) return std::nullopt;
  if (!std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == ':'; }))
    return std::nullopt;
  const int hour = std::stoi(s.substr(0, colon)), minute = std::stoi(s.substr(colon + 1));
  if (minute > 59 || hour > 24 || (hour == 24 && (!end || minute != 0))) return std::nullopt;
  return hour * 60 + minute;
}

// The minutes of the week [start, end) a window covers from day `d`.
std::pair<int, int> span(const ScheduleWindow& w, int d) {
  const int start = d * kMinutesPerDay + w.startMinute;
  const int length = w.endMinute > w.startMinute ? w.endMinute - w.startMinute
                                                  : w.endMinute + kMinutesPerDay - w.startMinute;
  return {start, start + length};
}

bool inForce(const ScheduleWindow& w, int minuteOfWeek) {
  for (int d = 0; d < 7; ++d) {
    if (!w.days[d]) continue;
    auto [start, end] = span(w, d);
    // A Saturday window past midnight covers the start of the next week.
    for (int m : {minuteOfWeek, minuteOfWeek + kMinutesPerWeek})
      if (m >= start && m < end) return true;
  }
  return false;
}

int minuteOfWeek(const LocalTime& t) { return t.weekday * kMinutesPerDay + t.hour * 60 + t.minute; }

void lowerTo(DirectionCap& cap, const ScheduleWindow& w) {
  if (w.percent > 0) {
    if (cap.percent <= 0 || w.percent < cap.percent) {
      cap.percent = w.percent;
      cap.percentWindow = w.text;
    }
  } else {
    const double bytes = mbpsToBytesPerSecond(w.mbps);
    if (cap.windowBytesPerSecond <= 0 || bytes < cap.windowBytesPerSecond) {
      cap.windowBytesPerSecond = bytes;
      cap.absoluteWindow = w.text;
    }
  }
}

}  // namespace

double DirectionCap::bytesPerSecond(double capacity) const {
  const double base = capacity > 0 ? capacity : staticBytesPerSecond;
  double cap = 0.0;
  for (double c : {staticBytesPerSecond, windowBytesPerSecond, percent > 0 ? base * percent / 100 : 0.0})
    if (c > 0 && (cap <= 0 || c < cap)) cap = c;
  return cap;
}

std::string DirectionCap::source(double capacity, std::string_view staticKey) const {
  const double cap = bytesPerSecond(capacity);
  if (cap <= 0) return "";
  // The window that binds; a tie goes to the schedule (it says why now).
  if (percent > 0 && (capacity > 0 ? capacity : staticBytesPerSecond) * percent / 100 == cap) return percentWindow;
  if (windowBytesPerSecond == cap) return absoluteWindow;
  return std::string(staticKey);
}

CapsInForce capsAt(const BandwidthLimits& limits, const LocalTime& t) {
  CapsInForce caps;
  caps.up.staticBytesPerSecond = mbpsToBytesPerSecond(limits.maxUplinkMbps);
  caps.down.staticBytesPerSecond = mbpsToBytesPerSecond(limits.maxDownlinkMbps);
  const int now = minuteOfWeek(t);
  for (const ScheduleWindow& w : limits.schedule) {
    if (!inForce(w, now)) continue;
    if (w.up) lowerTo(caps.up, w);
    if (w.down) lowerTo(caps.down, w);
  }
  return caps;
}

std::optional<int> secondsUntilNextChange(const BandwidthLimits& limits, const LocalTime& t) {
  const int now = minuteOfWeek(t) * 60 + t.second;
  std::optional<int> next;
  for (const ScheduleWindow& w : limits.schedule)
    for (int d = 0; d < 7; ++d) {
      if (!w.days[d]) continue;
      auto [start, end] = span(w, d);
      for (int boundary : {start, end}) {
        int delta = (boundary % kMinutesPerWeek) * 60 - now;
        if (delta <= 0) delta += kSecondsPerWeek;
        if (!next || delta < *next) next = delta;
      }
    }
  return next;
}

Result<ScheduleWindow> parseScheduleWindow(std::string_view entry) {
  const std::string text = lower(trim(entry));
  ScheduleWindow w;
  w.text = trim(entry);
  // The amount follows the last ':' (HH:MM's colons come before it).
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) return bad(entry, "no ':' before the amount");
  const std::vector<std::string> when = words(text.substr(0, colon));
  const std::vector<std::string> amount = words(text.substr(colon + 1));

  bool haveTimes = false, haveDays = false;
  for (const std::string& word : when) {
    if (word.find(':') != std::string::npos) {
      const auto dash = word.find('-');
      auto start = dash == std::string::npos ? std::nullopt : parseClock(word.substr(0, dash), false);
      auto end = dash == std::string::npos ? std::nullopt : parseClock(word.substr(dash + 1), true);
      if (haveTimes) return bad(entry, "more than one time range");
      if (!start || !end) return bad(entry, "'" + word + "' is not a time range HH:MM-HH:MM (00:00 to 24:00)");
      if (*start == *end)
        return bad(entry, "'" + word + "' starts where it ends: for the whole day write 00:00-24:00");
      w.startMinute = *start;
      w.endMinute = *end;
      haveTimes = true;
    } else {
      auto days = parseDays(word);
      if (haveDays) return bad(entry, "more than one set of days ('" + word + "')");
      if (!days) return bad(entry, "'" + word + "' is not a set of days");
      w.days = *days;
      haveDays = true;
    }
  }
  if (!haveTimes)
    return bad(entry, when.empty() ? "no time range before the ':' (or a ':' missing after it)"
                                   : "no time range HH:MM-HH:MM");
  if (!haveDays) w.days.fill(true);

  // "20%", "20 %", "50 mbps", "50mbps", "1 gbps", then up | down | both.
  std::string joined;
  for (const std::string& a : amount) joined += a + " ";
  const char* begin = joined.c_str();
  char* rest = nullptr;
  const double number = std::strtod(begin, &rest);
  if (rest == begin || !std::isfinite(number) || number <= 0)
    return bad(entry, "the amount after the ':' must be a number > 0 followed by % or mbps");
  std::vector<std::string> tail = words(rest);
  if (!tail.empty() && tail[0].size() > 1 && tail[0][0] == '%') {  // "20%up": the direction after the unit
    tail.insert(tail.begin() + 1, tail[0].substr(1));
    tail[0] = "%";
  }
  if (tail.empty()) return bad(entry, "the amount has no unit: write % or mbps");
  const std::string unit = tail[0];
  if (unit == "%") {
    if (number > 100) return bad(entry, "a percentage must be at most 100");
    w.percent = number;
  } else if (unit == "mbps" || unit == "mbit/s") {
    w.mbps = number;
  } else if (unit == "gbps" || unit == "gbit/s") {
    w.mbps = number * 1000;
  } else if (unit == "kbps" || unit == "kbit/s") {
    w.mbps = number / 1000;
  } else {
    return bad(entry, "unknown unit '" + unit + "': write %, kbps, mbps or gbps");
  }
  if (tail.size() > 2) return bad(entry, "unexpected '" + tail[2] + "' at the end");
  if (tail.size() == 2) {
    if (tail[1] == "up") w.down = false;
    else if (tail[1] == "down") w.up = false;
    else if (tail[1] != "both") return bad(entry, "'" + tail[1] + "' is not a direction: write up, down or both");
  }
  return w;
}

}  // namespace hnow
