#include "cli/progress_line.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "cli/number_format.h"

namespace hnow::cli {

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr auto kRedrawEvery = 100ms;
// Below this share of the peak, a send's bytes count as not moving.
constexpr double kMovingShare = 0.01;

// Columns of the terminal on stderr; 0 when unknown. A line wider than the
// terminal wraps, and \r then redraws only its last row.
std::size_t terminalColumns() {
  struct winsize size {};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

// A rate of units: two or three significant digits, no exponent.
std::string unitsRateText(double perS) {
  char out[32];
  std::snprintf(out, sizeof out, perS < 10 ? "%.2f" : perS < 100 ? "%.1f" : "%.0f", perS);
  return out;
}

// Whole percent of `done` in `total`, rounded down: 100% only once all is done.
unsigned percentOf(std::uint64_t done, std::uint64_t total) {
  if (total == 0) return 0;
  return static_cast<unsigned>(std::min<long double>(100.0L, static_cast<long double>(done) * 100 / total));
}

// A send's bytes over its copies not failed, and the copies done.
struct SendTotals {
  std::uint64_t done = 0, total = 0;
  std::size_t finished = 0;
};

SendTotals sendTotals(const api::SendStatus& s) {
  SendTotals t;
  for (const auto& c : s.copies) {
    if (c.state == api::CopyStatus::State::kFailed) continue;
    t.done += c.bytes;
    t.total += s.size;
    t.finished += c.state == api::CopyStatus::State::kDone;
  }
  return t;
}

// Nothing left to move, copies still to finish: the agents verify, sync,
// expand and unpack.
bool allBytesIn(const api::SendStatus& s, const SendTotals& t) { return t.done == t.total && t.finished < s.copies.size(); }

std::string allInText(const api::SendStatus& s, const SendTotals& t) {
  const char* after = s.tree ? (s.compression.algo == "zstd" ? " expanded and unpacked" : " and unpacked")
                             : (s.compression.algo == "zstd" ? " and expanded" : "");
  char line[160];
  std::snprintf(line, sizeof line, "%5.1f s  every byte in; %zu/%zu copies verified%s", s.elapsedS, t.finished,
                s.copies.size(), after);
  return line;
}

}  // namespace

ProgressLine ProgressLine::onStderr() { return ProgressLine(::isatty(STDERR_FILENO)); }

void ProgressLine::put(const std::string& text) {
  std::string shown = text;
  if (const std::size_t columns = terminalColumns(); columns > 1 && shown.size() >= columns) shown.resize(columns - 1);
  std::string out = "\r" + shown;
  if (shown.size() < shown_.size()) out.append(shown_.size() - shown.size(), ' ');
  std::fputs(out.c_str(), stderr);
  std::fflush(stderr);
  shown_ = std::move(shown);
  pending_.clear();
  drawn_ = Clock::now();
}

void ProgressLine::draw(std::string text) {
  if (!tty_) return;
  if (!shown_.empty() && Clock::now() - drawn_ < kRedrawEvery) {
    pending_ = std::move(text);
    return;
  }
  put(text);
}

void ProgressLine::clear() {
  pending_.clear();
  if (!tty_ || shown_.empty()) return;
  std::fputs(("\r" + std::string(shown_.size(), ' ') + "\r").c_str(), stderr);
  std::fflush(stderr);
  shown_.clear();
}

void ProgressLine::end() {
  if (!tty_) return;
  if (!pending_.empty()) put(pending_);
  if (shown_.empty()) return;
  std::fputs("\n", stderr);
  shown_.clear();
}

void RateWindow::add(double atS, double done) {
  samples_.emplace_back(atS, done);
  // The newest sample before the window stays: the rate spans the whole window.
  while (samples_.size() > 2 && samples_[1].first <= atS - windowS_) samples_.pop_front();
}

double RateWindow::perSecond() const {
  if (samples_.size() < 2) return 0.0;
  const auto& [firstAt, firstDone] = samples_.front();
  const auto& [lastAt, lastDone] = samples_.back();
  if (lastAt <= firstAt || lastDone < firstDone) return 0.0;
  return (lastDone - firstDone) / (lastAt - firstAt);
}

std::string etaText(double remaining, double ratePerS) {
  if (!(ratePerS > 0) || !std::isfinite(ratePerS) || !(remaining >= 0)) return "";
  const double s = std::ceil(remaining / ratePerS);
  char out[48];
  if (s >= 100 * 3600.0) return "ETA over 100 h";
  const auto whole = static_cast<long long>(s);
  if (whole < 100) std::snprintf(out, sizeof out, "ETA %lld s", whole);
  else if (whole < 3600) std::snprintf(out, sizeof out, "ETA %lld min %02lld s", whole / 60, whole % 60);
  else std::snprintf(out, sizeof out, "ETA %lld h %02lld min", whole / 3600, whole % 3600 / 60);
  return out;
}

std::string sendProgressText(const api::SendStatus& s, double rateBytesPerS, bool moving) {
  const SendTotals t = sendTotals(s);
  if (allBytesIn(s, t)) return allInText(s, t);
  const double fraction = t.total ? static_cast<double>(t.done) / static_cast<double>(t.total) : 1.0;
  const double eta = rateBytesPerS > 0 ? static_cast<double>(t.total - t.done) / rateBytesPerS : 0.0;
  char etaShown[32];
  if (moving) std::snprintf(etaShown, sizeof etaShown, "%5.1f s", eta);
  else std::snprintf(etaShown, sizeof etaShown, "    ? s");
  std::string bar(30, ' ');
  for (int i = 0; i < static_cast<int>(fraction * 30); ++i) bar[static_cast<std::size_t>(i)] = '#';
  char line[160];
  std::snprintf(line, sizeof line, "[%s] %3.0f%% %10s/s  ETA %s  %zu/%zu copies ", bar.c_str(), fraction * 100,
                bytesText(rateBytesPerS).c_str(), etaShown, t.finished, s.copies.size());
  return line;
}

std::uint64_t runUnitsDone(const api::RunStatus& r) {
  std::uint64_t done = r.unitsKept;  // accepted before hnowd restarted
  for (const auto& a : r.agents) done += a.units;
  return done;
}

std::string runProgressText(const api::RunStatus& r, double rateUnitsPerS) {
  // A job waiting for its agents (hnowd's queue): why, and nothing else yet.
  if (r.phase == "queued") return "queued: " + (r.waiting.empty() ? std::string("waiting for agents") : r.waiting);
  const std::uint64_t done = runUnitsDone(r);
  std::string out = r.phase;
  if (r.units > 0)
    out += "  " + std::to_string(done) + "/" + std::to_string(r.units) + " units (" +
           std::to_string(percentOf(done, r.units)) + "%)";
  else if (done > 0)
    out += "  " + std::to_string(done) + " units";
  if (r.agentsWorking > 0)
    out += "  " + std::to_string(r.agentsWorking) + (r.agentsWorking == 1 ? " agent" : " agents") + " working";
  if (r.phase == "running") {
    out += "  " + unitsRateText(std::max(0.0, rateUnitsPerS)) + " units/s";
    if (r.units > done)
      if (auto eta = etaText(static_cast<double>(r.units - done), rateUnitsPerS); !eta.empty()) out += "  " + eta;
  }
  if (r.elapsedS > 0) {
    char elapsed[32];
    std::snprintf(elapsed, sizeof elapsed, "  %.1f s", r.elapsedS);
    out += elapsed;
  }
  return out;
}

std::string uploadProgressText(const char* what, std::uint64_t sent, std::optional<std::uint64_t> total,
                               double rateBytesPerS) {
  std::string out = std::string(what) + "  " + bytesText(static_cast<double>(sent));
  if (total)
    out += "/" + bytesText(static_cast<double>(*total)) + " (" + std::to_string(percentOf(sent, *total)) + "%)";
  out += "  " + bytesText(std::max(0.0, rateBytesPerS)) + "/s";
  if (total && *total > sent)
    if (auto eta = etaText(static_cast<double>(*total - sent), rateBytesPerS); !eta.empty()) out += "  " + eta;
  return out;
}

SendProgress::SendProgress(bool tty) : line_(tty), last_(Clock::now()), lastLine_(last_) {}

void SendProgress::show(const api::SendStatus& s) {
  const SendTotals t = sendTotals(s);
  const auto now = Clock::now();
  const double dt = std::chrono::duration<double>(now - last_).count();
  if (dt > 0 && t.done >= lastBytes_)
    rate_ = 0.6 * rate_ + 0.4 * static_cast<double>(t.done - lastBytes_) / dt;
  last_ = now;
  lastBytes_ = t.done;
  peak_ = std::max(peak_, rate_);
  // Bytes barely moving (agents busy writing what landed, or a relay lost
  // and its children moving): an ETA from the falling rate would grow
  // without bound, so none is shown until bytes move again.
  const bool moving = rate_ > kMovingShare * peak_;
  if (line_.tty()) {
    line_.draw(sendProgressText(s, rate_, moving));
    return;
  }
  if (now - lastLine_ < 1s && !(s.finished && !allBytesIn(s, t))) return;
  lastLine_ = now;
  if (allBytesIn(s, t)) {
    std::fputs((allInText(s, t) + "\n").c_str(), stderr);
    return;
  }
  const double fraction = t.total ? static_cast<double>(t.done) / static_cast<double>(t.total) : 1.0;
  char eta[32];
  std::snprintf(eta, sizeof eta, "%.1f s", rate_ > 0 ? static_cast<double>(t.total - t.done) / rate_ : 0.0);
  char line[160];
  std::snprintf(line, sizeof line, "%5.1f s  %3.0f%%  %s/s  ETA %s  %zu/%zu copies\n", s.elapsedS, fraction * 100,
                bytesText(rate_).c_str(), moving ? eta : "?", t.finished, s.copies.size());
  std::fputs(line, stderr);
}

}  // namespace hnow::cli
