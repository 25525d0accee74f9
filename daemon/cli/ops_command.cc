#include "cli/ops_command.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <thread>

#include "api/send_picture_json.h"
#include "api/send_picture_svg.h"
#include "cli/cancel_command.h"
#include "cli/manifest_command.h"
#include "cli/ops_summary.h"
#include "cli/progress_line.h"
#include "cli/run_command.h"
#include "cli/run_output_pull.h"
#include "cli/send_command.h"
#include "cli/text_file.h"
#include "cli/status_command.h"

namespace hnow::cli {

int exitOfRecord(const std::string& status) {
  if (status == "done") return 0;
  if (status == "cancelled") return kCancelledExit;
  return 1;
}

namespace {

// How long `hnow ops wait` waits for a running send's operation, and how often it asks.
constexpr std::chrono::steady_clock::duration kAwaitSend = std::chrono::minutes(2);
constexpr std::chrono::steady_clock::duration kAwaitStep = std::chrono::milliseconds(500);

// The record `options.record` located, or a message and the exit status.
std::optional<CoordinatorClient::Located> locateOrReport(CoordinatorClient& client, std::uint64_t record, int& exitCode) {
  auto where = client.locate(record);
  if (!where) {
    std::fprintf(stderr, "hnow: %s\n", where.error().message.c_str());
    exitCode = 1;
    return std::nullopt;
  }
  if (where->entry.id == 0) {
    std::fprintf(stderr, "hnow: no operation %llu (`hnow ops` lists them)\n", static_cast<unsigned long long>(record));
    exitCode = 1;
    return std::nullopt;
  }
  return *where;
}

// A record hnowd holds no operation for: how it ended, as state.db keeps it.
int reportRecord(const api::OperationSummary& r, bool json) {
  std::string text = json ? opsJson({r}) : opsTable({r});
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (r.status == "queued" || r.status == "running") {
    std::fprintf(stderr, "hnow: operation %lld (%s) is %s, but hnowd holds nothing to follow for it\n",
                 static_cast<long long>(r.id), r.kind.c_str(), r.status.c_str());
    return 1;
  }
  // Why it did not finish, as its record says (a send a restarted hnowd could not run again says what to do).
  if (const std::string why = recordError(r.summary); !why.empty() && r.status != "done")
    std::fprintf(stderr, "hnow: %s %lld %s: %s\n", r.kind.c_str(), static_cast<long long>(r.id), r.status.c_str(),
                 why.c_str());
  return exitOfRecord(r.status);
}

int waitRun(CoordinatorClient& client, std::uint64_t operation, std::uint64_t record) {
  auto report = followRunOnTerminal(client, operation, record);
  if (!report) return reportLostHnowdRunning(record, report.error().message);
  if (!report->cancelledBy.empty()) {
    std::fprintf(stderr, "hnow: run %llu cancelled by %s\n", static_cast<unsigned long long>(record),
                 report->cancelledBy.c_str());
    return kCancelledExit;
  }
  if (!report->error.empty()) {
    std::fprintf(stderr, "hnow: run %llu failed: %s\n", static_cast<unsigned long long>(record), report->error.c_str());
    return 1;
  }
  std::fputs(runTable(*report).c_str(), stdout);
  return 0;
}

int sendExit(const api::SendStatus& status) {
  if (!status.cancelledBy.empty()) return kCancelledExit;
  for (const auto& c : status.copies)
    if (c.state != api::CopyStatus::State::kDone || (c.tree && c.tree->failedCount > 0)) return 1;
  return 0;
}

int waitSend(CoordinatorClient& client, std::uint64_t operation, std::uint64_t record) {
  SendProgress progress(::isatty(STDERR_FILENO));
  auto report = client.followSend(operation, [&](const api::SendStatus& now) {
    progress.show(now);
    return true;
  }, record);
  progress.end();
  if (!report) return reportLostHnowd("following", "send", "nothing", "`hnow ops wait` it again", report.error().message);
  if (!report->cancelledBy.empty())
    std::fprintf(stderr, "hnow: send %llu cancelled by %s\n", static_cast<unsigned long long>(record),
                 report->cancelledBy.c_str());
  else
    std::fputs(sendTable(*report, "").c_str(), stdout);
  return sendExit(*report);
}

int manifestExit(const api::ManifestStatus& status) {
  for (const auto& item : status.items)
    for (const auto& c : item.send.copies)
      if (c.state != api::CopyStatus::State::kDone) return 1;
  return 0;
}

int waitManifest(CoordinatorClient& client, std::uint64_t operation) {
  auto report = client.followManifest(operation, [](const api::ManifestStatus&) { return true; });
  if (!report) return reportLostHnowd("following", "manifest", "nothing", "`hnow ops wait` it again", report.error().message);
  std::fputs(manifestTable(*report).c_str(), stdout);
  return manifestExit(*report);
}

}  // namespace

int runOpsWait(const OpsRecordOptions& options) {
  int exitCode = 0;
  auto client = connectOrReport(options.configPath, exitCode);
  if (!client) return exitCode;
  auto where = locateOrReport(*client, options.record, exitCode);
  if (!where) return exitCode;
  // A send's record runs before hnowd holds its operation: while hnowd
  // prepares it, and while a restarted hnowd waits for its agents to run it
  // again (docs/send.md, "A send outlives hnowd").
  for (auto waited = std::chrono::steady_clock::duration{};
       where->operation == 0 && where->entry.kind == "send" && where->entry.status == "running" && waited < kAwaitSend;
       waited += kAwaitStep) {
    std::this_thread::sleep_for(kAwaitStep);
    where = locateOrReport(*client, options.record, exitCode);
    if (!where) return exitCode;
  }
  if (where->operation == 0) return reportRecord(where->entry, false);
  client->watchOnly();  // Ctrl-C leaves: it did not start the operation
  if (where->kind == "run") return waitRun(*client, where->operation, options.record);
  if (where->kind == "send") return waitSend(*client, where->operation, options.record);
  return waitManifest(*client, where->operation);
}

namespace {

// The picture of the send `entry` names: from `report` while hnowd holds
// the send, else from its record. Written to `path`; 0, or 1 saying why not.
int writePicture(const std::string& path, const api::OperationSummary& entry, const api::SendStatus* report) {
  Result<std::string> svg = Error{"operation " + std::to_string(entry.id) + " is a " + entry.kind +
                                  ": only a send has a picture"};
  if (entry.kind == "send" && report) {
    svg = sendPictureSvg(*report);
  } else if (entry.kind == "send") {
    auto json = recordPictureJson(entry.summary);
    auto picture = json ? api::sendPictureFromJson(*json) : Result<api::SendPicture>(json.error());
    svg = picture ? Result<std::string>(api::renderSendPicture(*picture)) : Result<std::string>(picture.error());
  }
  auto written = svg ? writeFileAtomically(path, *svg) : Result<void>(svg.error());
  if (written) return 0;
  std::fprintf(stderr, "hnow: --svg %s: %s\n", path.c_str(), written.error().message.c_str());
  return 1;
}

}  // namespace

int runOpsShow(const OpsRecordOptions& options) {
  int exitCode = 0;
  auto client = connectOrReport(options.configPath, exitCode);
  if (!client) return exitCode;
  auto where = locateOrReport(*client, options.record, exitCode);
  if (!where) return exitCode;
  if (where->operation == 0) {
    reportRecord(where->entry, options.json);
    return options.svgPath.empty() ? 0 : writePicture(options.svgPath, where->entry, nullptr);
  }
  // Its report now: the first one a follow is pushed (at once), and then it stops.
  std::string text;
  std::optional<api::SendStatus> shownSend;
  auto first = [&](const auto& report, auto print) {
    text = print(report);
    return false;
  };
  if (where->kind == "run") {
    client->followRun(where->operation, [&](const RunReportView& r) {
      return first(r, [&](const RunReportView& x) { return options.json ? runJson(x) : runTable(x); });
    });
  } else if (where->kind == "send") {
    client->followSend(where->operation, [&](const api::SendStatus& s) {
      shownSend = s;
      return first(s, [&](const api::SendStatus& x) { return options.json ? sendJson(x) : sendTable(x, ""); });
    });
  } else {
    client->followManifest(where->operation, [&](const api::ManifestStatus& m) {
      return first(m, [&](const api::ManifestStatus& x) { return options.json ? manifestJson(x) : manifestTable(x); });
    });
  }
  if (text.empty()) {
    std::fprintf(stderr, "hnow: operation %llu: hnowd sent no report\n", static_cast<unsigned long long>(options.record));
    return 1;
  }
  if (!options.json) {
    const auto& e = where->entry;
    std::printf("operation %lld: %s, %s%s%s\n", static_cast<long long>(e.id), e.kind.c_str(), e.status.c_str(),
                e.progress.empty() ? "" : ", ", e.progress.c_str());
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (options.svgPath.empty()) return 0;
  return writePicture(options.svgPath, where->entry, shownSend ? &*shownSend : nullptr);
}

int runOpsOutput(const OpsRecordOptions& options) {
  int exitCode = 0;
  auto client = connectOrReport(options.configPath, exitCode);
  if (!client) return exitCode;
  auto where = locateOrReport(*client, options.record, exitCode);
  if (!where) return exitCode;
  const auto id = static_cast<unsigned long long>(options.record);
  if (where->entry.kind != "run") {
    std::fprintf(stderr, "hnow: operation %llu is a %s: only a run has an output\n", id, where->entry.kind.c_str());
    return 1;
  }
  if (where->operation == 0) {
    std::fprintf(stderr, "hnow: run %llu is %s and hnowd no longer keeps its result (it keeps those of the newest 64 runs, 8 once fetched, until it "
                 "restarts); run it again, or give --output to write it on hnowd's machine\n",
                 id, where->entry.status.c_str());
    return 1;
  }
  if (options.output.empty() || options.output == "-") {
    if (auto copied = pullRunOutput(*client, where->operation, stdout); !copied) {
      std::fprintf(stderr, "hnow: run %llu: %s\n", id, copied.error().message.c_str());
      return 1;
    }
    return 0;
  }
  // Written whole or not at all: a temp file beside it, renamed once checked.
  const std::string temp = options.output + ".hnow-part";
  std::FILE* out = std::fopen(temp.c_str(), "wb");
  if (!out) {
    std::fprintf(stderr, "hnow: cannot write %s: %s\n", temp.c_str(), std::strerror(errno));
    return 1;
  }
  auto copied = pullRunOutput(*client, where->operation, out);
  const bool closed = std::fclose(out) == 0;
  std::error_code error;
  if (!copied || !closed) {
    std::filesystem::remove(temp, error);
    std::fprintf(stderr, "hnow: run %llu: %s\n", id,
                 copied ? ("cannot write " + options.output).c_str() : copied.error().message.c_str());
    return 1;
  }
  std::filesystem::rename(temp, options.output, error);
  if (error) {
    std::filesystem::remove(temp, error);
    std::fprintf(stderr, "hnow: cannot write %s: %s\n", options.output.c_str(), error.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace hnow::cli
