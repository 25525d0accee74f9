#include "cli/send_command.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "base/bit_rate.h"
#include "cli/cancel_command.h"
#include "cli/coordinator_client.h"
#include "cli/number_format.h"
#include "cli/send_report.h"
#include "cli/send_upload.h"
#include "cli/text_file.h"
#include "transport/data/tree_bundle.h"
#include "transport/data/tree_walk.h"

namespace hnow::cli {

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
// No byte moving anywhere for this long: the send is stuck, stop waiting.
constexpr auto kStallLimit = 30s;
// Every byte in and copies still to finish: the agents verify, sync and
// (a tree) unpack, which on a slow disk takes long for a large tree.
constexpr auto kFinishingLimit = 10min;

// Progress on stderr, so `--json` output on stdout stays clean.
class Progress {
 public:
  explicit Progress(bool tty) : tty_(tty), last_(Clock::now()), lastLine_(last_) {}

  void show(const api::SendStatus& s) {
    std::uint64_t done = 0, total = 0;
    std::size_t finished = 0;
    for (const auto& c : s.copies) {
      if (c.state == api::CopyStatus::State::kFailed) continue;
      done += c.bytes;
      total += s.size;
      finished += c.state == api::CopyStatus::State::kDone;
    }
    const auto now = Clock::now();
    const double dt = std::chrono::duration<double>(now - last_).count();
    if (dt > 0 && done >= lastBytes_) rate_ = 0.6 * rate_ + 0.4 * static_cast<double>(done - lastBytes_) / dt;
    last_ = now;
    lastBytes_ = done;
    const double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
    peak_ = std::max(peak_, rate_);
    // Bytes barely moving (agents busy writing what landed, or a relay
    // lost and its children moving): an ETA from the falling rate would
    // grow without bound, so none is shown until bytes move again.
    const bool moving = rate_ > kMovingShare * peak_;
    const double eta = rate_ > 0 ? static_cast<double>(total - done) / rate_ : 0.0;
    char etaText[32];
    if (moving) std::snprintf(etaText, sizeof etaText, "%5.1f s", eta);
    else std::snprintf(etaText, sizeof etaText, "    ? s");
    char line[160];
    if (done == total && finished < s.copies.size()) {
      // Nothing left to move: an ETA from the falling rate would be noise.
      if (tty_ || now - lastLine_ >= 1s) {
        lastLine_ = now;
        const char* after = s.tree ? (s.compression.algo == "zstd" ? " expanded and unpacked" : " and unpacked")
                                   : (s.compression.algo == "zstd" ? " and expanded" : "");
        std::snprintf(line, sizeof line, "%s%5.1f s  every byte in; %zu/%zu copies verified%s%s", tty_ ? "\r" : "",
                      s.elapsedS, finished, s.copies.size(), after, tty_ ? "    " : "\n");
        std::fputs(line, stderr);
      }
    } else if (tty_) {
      std::string bar(30, ' ');
      for (int i = 0; i < static_cast<int>(fraction * 30); ++i) bar[static_cast<std::size_t>(i)] = '#';
      std::snprintf(line, sizeof line, "\r[%s] %3.0f%% %10s/s  ETA %s  %zu/%zu copies ", bar.c_str(),
                    fraction * 100, bytesText(rate_).c_str(), etaText, finished, s.copies.size());
      std::fputs(line, stderr);
    } else if (now - lastLine_ >= 1s || s.finished) {
      lastLine_ = now;
      std::snprintf(line, sizeof line, "%5.1f s  %3.0f%%  %s/s  ETA %s  %zu/%zu copies\n", s.elapsedS,
                    fraction * 100, bytesText(rate_).c_str(), moving ? etaText + std::strspn(etaText, " ") : "?",
                    finished, s.copies.size());
      std::fputs(line, stderr);
    }
  }
  void end() {
    if (tty_) std::fputs("\n", stderr);
  }

 private:
  bool tty_;
  Clock::time_point last_, lastLine_;
  std::uint64_t lastBytes_ = 0;
  double rate_ = 0.0;
  double peak_ = 0.0;  // the highest rate_ so far
  // Below this share of the peak, bytes count as not moving.
  static constexpr double kMovingShare = 0.01;
};

}  // namespace

Result<double> sendMaxRate(const SendOptions& options) {
  if (options.maxRate.empty()) return 0.0;
  auto rate = parseBitRate(options.maxRate);
  if (!rate) return Error{"--max-rate: " + rate.error().message};
  return rate;
}

int runSendCommand(const SendOptions& options) {
  if (options.file.empty() || options.request.dest.empty()) {
    std::fprintf(stderr, "hnow: send needs FILE and --dest PATH, or --manifest M.toml\n");
    return 2;
  }
  auto maxRate = sendMaxRate(options);
  if (!maxRate) {
    std::fprintf(stderr, "hnow: %s\n", maxRate.error().message.c_str());
    return 2;
  }
  int exitCode = 0;
  auto client = connectOrReport(options.configPath, exitCode);
  if (!client) return exitCode;
  std::error_code error;
  api::SendRequest request = options.request;
  if (auto uploaded = uploadIfUnseen(*client, options.file, request); !uploaded) {
    std::fprintf(stderr, "hnow: %s\n", uploaded.error().message.c_str());
    return 1;
  }
  request.path = options.file == "-" ? "-" : std::filesystem::absolute(options.file, error).string();
  request.maxRateBytesPerSecond = *maxRate;
  auto started = client->startSend(request);
  if (!started) {
    std::fprintf(stderr, "hnow: %s\n", started.error().message.c_str());
    return 1;
  }
  const std::uint64_t id = started.value().first;
  api::SendStatus status = started.value().second;
  if (options.detach) {
    std::printf("%llu\n", static_cast<unsigned long long>(status.record));
    std::fprintf(stderr, "hnow: send %llu %s; `hnow ops wait %llu` follows it\n",
                 static_cast<unsigned long long>(status.record), status.finished ? "ended" : "started",
                 static_cast<unsigned long long>(status.record));
    return 0;
  }
  Progress progress(::isatty(STDERR_FILENO));
  std::fputs(treeLine(status).c_str(), stderr);
  std::size_t changesShown = 0;
  auto lastMove = Clock::now();
  std::uint64_t lastBytes = 0;
  std::chrono::seconds gaveUpAfter{0};
  // Each report hnowd pushes, and the final one (none when it ended at once).
  auto follow = [&](const api::SendStatus& now) {
    for (; changesShown < now.parentChanges.size(); ++changesShown) {
      progress.end();
      std::fputs(changeLine(now.parentChanges[changesShown]).c_str(), stderr);
    }
    progress.show(now);
    // Progress is bytes moved or copies finished.
    std::uint64_t bytes = 0;
    bool allIn = true;
    for (const auto& c : now.copies) {
      bytes += c.bytes + (c.state == api::CopyStatus::State::kDone ? 1 : 0);
      allIn = allIn && (c.bytes >= now.size || c.state == api::CopyStatus::State::kDone ||
                        c.state == api::CopyStatus::State::kFailed);
    }
    if (bytes != lastBytes) lastMove = Clock::now(), lastBytes = bytes;
    const auto limit = allIn ? std::chrono::duration_cast<std::chrono::seconds>(kFinishingLimit) : kStallLimit;
    if (!now.finished && Clock::now() - lastMove > limit) gaveUpAfter = limit;
    return gaveUpAfter.count() == 0;
  };
  auto followed = status.finished ? Reply<api::SendStatus>(status) : client->followSend(id, follow, status.record);
  if (gaveUpAfter.count() != 0) {
    progress.end();
    std::fprintf(stderr, "hnow: no progress for %lld s; giving up (hnowd keeps the operation)\n",
                 static_cast<long long>(gaveUpAfter.count()));
    return 1;
  }
  if (!followed) {
    progress.end();
    return reportLostHnowd("sending", "send", "their partial copies", "Send again", followed.error().message);
  }
  status = std::move(followed.value());
  progress.end();
  if (!status.cancelledBy.empty()) {
    std::fprintf(stderr, "hnow: send %llu cancelled by %s\n", static_cast<unsigned long long>(status.record),
                 status.cancelledBy.c_str());
    return client->interrupted() ? kInterruptedExit : kCancelledExit;
  }
  std::fputs((options.json ? sendJson(status) : sendTable(status, options.file)).c_str(), stdout);
  if (options.request.untilAll && !options.json) std::fputs(owedLine(status).c_str(), stdout);
  if (!options.ganttPath.empty()) {
    if (auto written = writeFileAtomically(options.ganttPath, sendGanttSvg(status)); !written)
      std::fprintf(stderr, "hnow: %s\n", written.error().message.c_str());
  }
  for (const auto& c : status.copies)
    if (c.state != api::CopyStatus::State::kDone || (c.tree && c.tree->failedCount > 0)) return 1;
  return 0;
}

}  // namespace hnow::cli
