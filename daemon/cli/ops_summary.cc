#include "cli/ops_summary.h"

#include <nlohmann/json.hpp>

#include <cstdio>

#include "cli/number_format.h"

namespace hnow::cli {

namespace {

using Json = nlohmann::json;

std::string text(const Json& s, const char* key) {
  auto it = s.find(key);
  return it != s.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double number(const Json& s, const char* key, double otherwise = -1) {
  auto it = s.find(key);
  return it != s.end() && it->is_number() ? it->get<double>() : otherwise;
}

std::string seconds(double s) {
  char out[32];
  std::snprintf(out, sizeof out, "%.2f s", s);
  return out;
}

// ", 2.31 s (predicted 2.10 s)", or what of it is known.
std::string timing(const Json& s) {
  const double actual = number(s, "actual_s"), predicted = number(s, "predicted_s");
  if (actual >= 0) return ", " + seconds(actual) + (predicted >= 0 ? " (predicted " + seconds(predicted) + ")" : "");
  return predicted >= 0 ? ", predicted " + seconds(predicted) : "";
}

// ", 7 ok, 1 failed": copies of a send or a manifest.
std::string copies(const Json& s) {
  const double ok = number(s, "ok"), failed = number(s, "failed");
  if (ok < 0) return "";
  std::string out = ", " + shortNumber(ok) + " ok";
  if (failed > 0) out += ", " + shortNumber(failed) + " failed";
  return out;
}

// How it ended, when not as planned: who cancelled it, why it failed, whom it still owes.
std::string ending(const Json& s) {
  std::string out;
  if (const std::string by = text(s, "cancelled_by"); !by.empty()) out += "; cancelled by " + by;
  if (const std::string why = text(s, "error"); !why.empty()) out += "; " + why;
  if (auto owed = s.find("owed"); owed != s.end() && owed->is_array() && !owed->empty())
    out += "; owed to " + std::to_string(owed->size()) + " agent(s) (--until-all)";
  return out;
}

std::string sendLine(const Json& s) {
  std::string out = text(s, "file") + " -> " + text(s, "dest");
  if (auto tree = s.find("tree"); tree != s.end() && tree->is_object())
    out += ": a tree of " + shortNumber(number(*tree, "files", 0)) + " files (" +
           bytesText(number(*tree, "file_bytes", 0)) + ")";
  else if (const double size = number(s, "size"); size >= 0)
    out += ": " + bytesText(size);
  if (const double agents = number(s, "agents"); agents >= 0) out += " to " + shortNumber(agents) + " agent(s)";
  if (const double groups = number(s, "groups"); groups > 1) out += " in " + shortNumber(groups) + " groups";
  if (const std::string plan = text(s, "plan"); !plan.empty()) out += ", " + plan;
  if (text(s, "compress") == "zstd" && number(s, "sent_size") >= 0)
    out += ", zstd (" + bytesText(number(s, "sent_size")) + " moved)";
  return out + copies(s) + timing(s) + ending(s);
}

std::string runLine(const Json& s) {
  std::string out = "`" + text(s, "command") + "` over " + text(s, "input");
  if (const double units = number(s, "units"); units >= 0) out += ": " + shortNumber(units) + " units";
  if (const std::string plan = text(s, "plan"); !plan.empty()) out += ", " + plan;
  if (const double reissued = number(s, "reissued"); reissued > 0) out += ", " + shortNumber(reissued) + " reissued";
  return out + timing(s) + ending(s);
}

std::string manifestLine(const Json& s) {
  std::string out = shortNumber(number(s, "items", 0)) + " item(s)";
  if (const std::string algo = text(s, "algo"); !algo.empty()) out += ", " + algo;
  return out + copies(s) + timing(s) + ending(s);
}

}  // namespace

std::string readableSummary(const std::string& kind, const std::string& summary) {
  const Json s = Json::parse(summary, nullptr, false);
  if (s.is_discarded() || !s.is_object()) return summary;
  if (kind == "send") return sendLine(s);
  if (kind == "run") return runLine(s);
  if (kind == "manifest") return manifestLine(s);
  return summary;
}

Result<std::string> recordPictureJson(const std::string& summary) {
  const Json s = Json::parse(summary, nullptr, false);
  if (s.is_discarded() || !s.is_object()) return Error{"its record's summary is not a JSON object"};
  auto picture = s.find("picture");
  if (picture == s.end() || !picture->is_object())
    return Error{"its record keeps no picture (a send that never started, or one an older hnowd ran)"};
  return picture->dump();
}

}  // namespace hnow::cli
