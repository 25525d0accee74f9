#pragma once
// The progress line the client draws on stderr while an operation runs
// (`hnow send`, `hnow run`, an upload; docs/send.md, docs/jobs.md): on a
// terminal one line redrawn in place, so `--json` on stdout stays clean.
// The text of each kind's line is a function of its report, so whoever
// follows an operation (its own client, or one that waits for it later)
// draws the same line.
#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "api/run.h"
#include "api/send_status.h"

namespace hnow::cli {

// One line on stderr, redrawn in place with \r when stderr is a terminal,
// at most ten times a second (a terminal scrolled by a report every chunk
// costs more than the line is worth); nothing at all when it is not one (a
// log or a pipe has no use for redraws).
class ProgressLine {
 public:
  explicit ProgressLine(bool tty) : tty_(tty) {}
  // stderr's: a terminal or not.
  static ProgressLine onStderr();
  bool tty() const { return tty_; }
  // Draws `text`, or keeps it for the next draw when the last was under
  // 0.1 s ago (end() draws what was kept).
  void draw(std::string text);
  // Erases the line: what is printed next starts at the line's start.
  void clear();
  // The last text drawn, then a new line (the line stays on screen).
  void end();

 private:
  void put(const std::string& text);
  bool tty_;
  std::string shown_;    // on screen now
  std::string pending_;  // drawn too soon after the last, not yet shown
  std::chrono::steady_clock::time_point drawn_{};
};

// Units or bytes done per second over the last `windowS` seconds: a
// sliding window, so a burst or a stall long ago stops moving the rate and
// the ETA follows what happens now.
class RateWindow {
 public:
  explicit RateWindow(double windowS = 5.0) : windowS_(windowS) {}
  // `done` (a running total) at `atS` seconds on any steady clock.
  void add(double atS, double done);
  // 0 until two samples span some time, or when `done` went down.
  double perSecond() const;

 private:
  double windowS_;
  std::deque<std::pair<double, double>> samples_;  // (at, done), oldest first
};

// "ETA 8 s", "ETA 2 min 05 s", "ETA 1 h 02 min": `remaining` at `ratePerS`,
// whole seconds rounded up (it never says 0 s while work remains); "" when
// the rate is 0 or below (an ETA from no rate would be infinite, or noise).
std::string etaText(double remaining, double ratePerS);

// The line of a send (the copies' bytes, a bar, rate, ETA while bytes move,
// copies done); `moving`: bytes move at more than a sliver of their peak.
std::string sendProgressText(const api::SendStatus& s, double rateBytesPerS, bool moving);

// The line of a run: its phase, units accepted of the total with percent,
// agents working, units/s, ETA and the elapsed time of the planned part.
std::string runProgressText(const api::RunStatus& r, double rateUnitsPerS);
// Units whose share's result was accepted.
std::uint64_t runUnitsDone(const api::RunStatus& r);

// The line of an upload to hnowd: bytes sent of `total` (none for standard
// input being read: its size is known only at its end), rate, ETA.
std::string uploadProgressText(const char* what, std::uint64_t sent, std::optional<std::uint64_t> total,
                               double rateBytesPerS);

// A send's progress as hnowd pushes it: on a terminal the line above; on
// anything else a dated line a second (logs of scripted sends show how
// they went). Keeps the rate as a moving average of the pushes.
class SendProgress {
 public:
  explicit SendProgress(bool tty);
  void show(const api::SendStatus& s);
  // Ends the line on a terminal: what follows starts on a line of its own.
  void end() { line_.end(); }

 private:
  ProgressLine line_;
  std::chrono::steady_clock::time_point last_, lastLine_;
  std::uint64_t lastBytes_ = 0;
  double rate_ = 0.0;
  double peak_ = 0.0;  // the highest rate_ so far
};

}  // namespace hnow::cli
