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
#include "cli/progress_line.h"
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

}  // namespace

Result<double> sendMaxRate(const SendOptions& options) {
  if (options.maxRate.empty()) return 0.0;
  auto rate = parseBitRate(options.maxRate);
  if (!rate) return Error{"--max-rate: " + rate.error().message};
  return rate;
}

namespace {

// hnowd keeps a send of a path on its own host, or of a client's file or
// directory it keeps a copy of, and runs it again when it is back
// (docs/send.md, "A send outlives hnowd"); an upload it keeps no copy of
// (standard input, a file that changed while it was read, a directory
// uploaded whole) goes with the hnowd that held it.
int reportLostHnowdSending(const api::SendRequest& request, std::uint64_t record, const std::string& why) {
  const auto id = static_cast<unsigned long long>(record);
  if ((request.upload != 0 || request.uploadIsTree) && request.uploadKey.empty()) {
    const char* what = request.uploadIsTree ? "your directory" : request.path == "-" ? "standard input" : "your file";
    const char* again = request.path == "-" ? "pipe it into `hnow send -` again" : "send it again";
    std::fprintf(stderr,
                 "hnow: lost hnowd while sending: %s\n"
                 "hnow: hnowd keeps no copy of %s to send it again: send %llu ends interrupted when hnowd is back "
                 "(`hnow ops show %llu` says why); %s then, and each agent resumes from the part it holds\n",
                 why.c_str(), what, id, id, again);
    return 1;
  }
  // A copy hnowd had no room to keep was sent as a bare upload, a directory's
  // copy may change before the send runs again: the record says which.
  const char* unless = request.uploadKey.empty() ? ""
                       : request.uploadIsTree
                           ? " (unless its copy of your directory changes first: another upload of it)"
                           : " (unless it had no room to keep a copy of your file)";
  std::fprintf(stderr,
               "hnow: lost hnowd while sending: %s\n"
               "hnow: hnowd keeps send %llu%s: when it is back it runs it again, each agent resuming from what it "
               "holds (`hnow ops wait %llu` follows it)\n",
               why.c_str(), id, unless, id);
  return 1;
}

}  // namespace

int runSendCommand(const SendOptions& options) {
  if (options.file.empty() || options.request.dest.empty()) {
    std::fprintf(stderr, "hnow: send needs FILE and --dest PATH, or --manifest M.toml\n");
    return 2;
  }
  if (options.detach && !options.svgPath.empty()) {
    std::fprintf(stderr, "hnow: --svg draws the send once it ends, which --detach does not wait for; drop --svg "
                         "and draw it later with `hnow ops show ID --svg FILE`\n");
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
  if (options.detach) return reportDetached("send", status.record, status.finished ? "ended" : "started");
  // On stderr, so `--json` output on stdout stays clean.
  SendProgress progress(::isatty(STDERR_FILENO));
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
    return reportLostHnowdSending(request, status.record, followed.error().message);
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
  if (!options.svgPath.empty()) {
    auto svg = sendPictureSvg(status);
    if (auto written = svg ? writeFileAtomically(options.svgPath, *svg) : Result<void>(svg.error()); !written)
      std::fprintf(stderr, "hnow: --svg %s: %s\n", options.svgPath.c_str(), written.error().message.c_str());
  }
  for (const auto& c : status.copies)
    if (c.state != api::CopyStatus::State::kDone || (c.tree && c.tree->failedCount > 0)) return 1;
  return 0;
}

}  // namespace hnow::cli
