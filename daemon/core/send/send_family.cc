// The family of a tree sent as a bundle per group (send_family.h): its
// status merges its groups', and its record ends once the last group has.
#include "core/send/send_family.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/operation_records.h"
#include "core/send/send_runs.h"

namespace hnow::daemon {

namespace {

// The family's record: an open JSON object, as a send's (send_service_start.cc's summaryOf).
std::string familySummary(const SendRequest& request, const SendStatus& s) {
  const TreeSummary t = s.tree.value_or(TreeSummary{});
  std::size_t agents = 0;
  for (const BundleGroupStatus& g : s.groups) agents += g.agents.size();
  return "{\"file\":" + recordedFile(request) + ",\"dest\":" + jsonString(request.dest) +
         ",\"tree\":{\"entries\":" + std::to_string(t.entries) + ",\"files\":" + std::to_string(t.files) +
         ",\"file_bytes\":" + std::to_string(t.fileBytes) + ",\"sent_files\":" + std::to_string(t.sentFiles) +
         ",\"sent_bytes\":" + std::to_string(t.sentBytes) + ",\"refused\":" + std::to_string(t.refusedCount) +
         ",\"atomic\":" + (t.atomic ? "true" : "false") + "}" + ",\"algo\":" + jsonString(request.algo) +
         ",\"plan\":" + jsonString(s.algo) + ",\"size\":" + std::to_string(s.size) +
         ",\"agents\":" + std::to_string(agents) + ",\"groups\":" + std::to_string(s.groups.size()) +
         ",\"predicted_s\":" + jsonNumber(s.predictedS) + ",\"bound_s\":" + jsonNumber(s.boundS) +
         ",\"replan\":" + (request.replan ? "true" : "false");
}

}  // namespace

SendStatus SendService::familyStatus(const Family& family) const {
  SendStatus out;
  out.finished = true;
  out.tree = family.whole;
  out.boundS = family.boundS;
  out.skipped = family.skipped;
  out.record = family.request.record;
  std::vector<std::string> algos;
  std::uint64_t largest = 0;  // the group whose bundle was largest says why it went (un)compressed
  for (std::size_t g = 0; g < family.groups.size(); ++g) {
    BundleGroupStatus group = family.groups[g];
    const std::optional<SendStatus> child = family.children[g] == 0 ? std::nullopt : runs_.status(family.children[g]);
    if (!child) {
      for (const std::string& agent : group.agents) {
        CopyStatus failed;
        failed.node = agent;
        failed.state = CopyStatus::State::kFailed;
        failed.message = group.error;
        out.copies.push_back(std::move(failed));
      }
      out.groups.push_back(std::move(group));
      continue;
    }
    const SendStatus& s = *child;  // over once ended and recorded (SendRuns::status)
    group.size = s.size;
    group.algo = s.algo;
    group.predictedS = s.predictedS;
    group.elapsedS = s.elapsedS;
    group.finished = s.finished;
    out.groups.push_back(std::move(group));
    if (out.cancelledBy.empty()) out.cancelledBy = s.cancelledBy;
    if (out.cancelledBy.empty() && family.cancel) out.cancelledBy = family.cancel->by;
    out.finished = out.finished && s.finished;
    out.size += s.size;
    out.predictedS = std::max(out.predictedS, s.predictedS);
    out.elapsedS = std::max(out.elapsedS, s.elapsedS);
    out.copies.insert(out.copies.end(), s.copies.begin(), s.copies.end());
    out.replanning = out.replanning || s.replanning;
    out.replans += s.replans;
    out.replannedPredictedS = std::max(out.replannedPredictedS, s.replannedPredictedS);
    out.parentChanges.insert(out.parentChanges.end(), s.parentChanges.begin(), s.parentChanges.end());
    for (const std::string& b : s.rateBounds)
      if (std::find(out.rateBounds.begin(), out.rateBounds.end(), b) == out.rateBounds.end()) out.rateBounds.push_back(b);
    out.maxRateBytesPerSecond = s.maxRateBytesPerSecond;
    SendCompression& c = out.compression;
    if (c.algo != "zstd") c.algo = s.compression.algo;
    c.plainBytes += s.compression.plainBytes;
    c.sentBytes += s.compression.sentBytes;
    c.compressS += s.compression.compressS;
    if (s.compression.plainBytes >= largest) largest = s.compression.plainBytes, c.why = s.compression.why;
    if (std::find(algos.begin(), algos.end(), s.algo) == algos.end()) algos.push_back(s.algo);
  }
  for (const std::string& a : algos) out.algo += (out.algo.empty() ? "" : "+") + a;
  out.why = std::to_string(family.groups.size()) +
            " bundles, one per group of agents by the files they lack, sent at once";
  return out;
}

void SendService::familyStarted(Family& family) {
  const SendStatus s = familyStatus(family);
  describeRecord(coordinator_, family.request.record, familySummary(family.request, s) + "}");
  family.started(std::make_pair(family.id, s));
  endFamilyIfOver(family);  // every group that ran may have ended already
}

void SendService::groupEnded(const SendEnd& end) {
  for (const auto& [id, family] : families_) {
    if (family->cancel != end.request.cancel || family->over) continue;
    ++family->ended;
    SendEnd& all = family->end;
    all.delivered.insert(all.delivered.end(), end.delivered.begin(), end.delivered.end());
    all.missed.insert(all.missed.end(), end.missed.begin(), end.missed.end());
    return endFamilyIfOver(*family);
  }
  spdlog::error("send record {}: a group of a tree ended, but no send of the tree is known", end.record);
}

void SendService::endFamilyIfOver(Family& family) {
  const auto ran = static_cast<std::size_t>(
      std::count_if(family.children.begin(), family.children.end(), [](std::uint64_t id) { return id != 0; }));
  if (family.over || family.waiting > 0 || family.ended < ran) return;
  family.over = true;
  const SendStatus s = familyStatus(family);
  std::size_t ok = 0;
  for (const CopyStatus& c : s.copies) ok += c.state == CopyStatus::State::kDone;
  const bool cancelled = !s.cancelledBy.empty();
  SendEnd end = family.end;
  if (cancelled) end.request.untilAll = false;  // a cancelled send leaves nothing owed
  std::string fields = ",\"actual_s\":" + jsonNumber(s.elapsedS) + ",\"ok\":" + std::to_string(ok) +
                       ",\"failed\":" + std::to_string(s.copies.size() - ok) +
                       ",\"skipped\":" + std::to_string(s.skipped.size()) + ",\"replans\":" + std::to_string(s.replans);
  if (end.request.untilAll) fields += ",\"until_all\":true,\"owed\":" + jsonStrings(end.missed);
  if (end.request.owedBy) fields += ",\"owed_by\":" + std::to_string(end.request.owedBy);
  if (cancelled) fields += ",\"cancelled_by\":" + jsonString(s.cancelledBy);
  const char* outcome = cancelled ? "cancelled" : ok == s.copies.size() ? "done" : "failed";
  spdlog::info("send {} ({} groups) {}: {} of {} copies in {:.2f} s", family.request.path, s.groups.size(), outcome,
               ok, s.copies.size(), s.elapsedS);
  finishRecord(coordinator_, family.request.record, outcome, familySummary(family.request, s) + fields + "}");
  runs_.ended(end);
}

}  // namespace hnow::daemon
