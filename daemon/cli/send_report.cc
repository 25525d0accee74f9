// What `hnow send` prints once the send is over: the table of copies and
// parents, the tree or stripes, what was held or replaced, its picture,
// and what an --until-all send still owes (send_command.h).
#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "base/bit_rate.h"
#include "base/joined.h"
#include "base/printable.h"
#include "api/send_picture_svg.h"
#include "cli/number_format.h"
#include "cli/send_command.h"
#include "cli/send_report.h"

namespace hnow::cli {

namespace {

// Past this many nodes a stripe's tree is told by its shape, not its edges.
constexpr std::size_t kEdgesListedUpTo = 16;

// A tree (one stripe's, or the single tree's): every edge on a lab small
// enough to read them, else its shape (`--json` lists every edge of any
// lab). `parentOf(copy)` names a copy's parent in it.
template <typename ParentOf>
std::string treeText(const api::SendStatus& s, ParentOf parentOf) {
  std::map<std::string, std::string> up;
  std::map<std::string, int> children;
  for (const auto& c : s.copies)
    if (const std::string* p = parentOf(c)) {
      up[c.node] = *p;
      ++children[*p];
    }
  if (up.size() <= kEdgesListedUpTo) {
    std::string text = " (parent>node):";
    for (const auto& c : s.copies)
      if (const std::string* p = parentOf(c)) text += " " + *p + ">" + c.node;
    return text;
  }
  int depth = 0, widest = 0;
  for (const auto& [node, parent] : up) {
    int d = 1;
    for (auto above = up.find(parent); above != up.end() && d <= static_cast<int>(up.size());
         above = up.find(above->second))
      ++d;
    depth = std::max(depth, d);
  }
  std::string fromSource;
  for (const auto& [parent, n] : children) widest = std::max(widest, n);
  for (const auto& c : s.copies)
    if (const std::string* p = parentOf(c); p && *p == "hnowd") fromSource += " " + c.node;
  const std::size_t relays = children.size() - children.count("hnowd");
  return ": " + std::to_string(up.size()) + " nodes, " + std::to_string(relays) + " relays, depth " +
         std::to_string(depth) + ", at most " + std::to_string(widest) + " children; from hnowd:" + fromSource;
}

std::string stripeTreeText(const api::SendStatus& s, std::size_t k) {
  return treeText(s, [k](const api::CopyStatus& c) {
    return k < c.stripeParents.size() ? &c.stripeParents[k] : nullptr;
  });
}


// What hnowd packed of a directory, and what it left out.
std::string treeSummaryText(const api::TreeSummary& t) {
  char line[400];
  std::snprintf(line, sizeof line, "  tree: %llu files (%s) in %llu entries%s%s\n",
                static_cast<unsigned long long>(t.files), bytesText(static_cast<double>(t.fileBytes)).c_str(),
                static_cast<unsigned long long>(t.entries), t.atomic ? ", published at once (--atomic)" : "",
                t.deleteOthers ? ", what it does not name removed (--delete)" : "");
  std::string out = line;
  std::snprintf(line, sizeof line,
                "  sent: %llu files (%s) some agent lacked; the rest each agent held (asking them took %s)\n",
                static_cast<unsigned long long>(t.sentFiles), bytesText(static_cast<double>(t.sentBytes)).c_str(),
                bytesText(static_cast<double>(t.queryBytes)).c_str());
  out += line;
  if (t.refusedCount > 0) {
    out += "  left out at hnowd: " + std::to_string(t.refusedCount) + "\n";
    for (const auto& p : t.refused) out += "    " + p.path + ": " + p.why + "\n";
    if (t.refusedCount > t.refused.size())
      out += "    (and " + std::to_string(t.refusedCount - t.refused.size()) + " more)\n";
  }
  return out;
}

// A bundle per group of agents by what they lack: each group's line.
std::string groupsText(const std::vector<api::BundleGroupStatus>& groups) {
  std::string out;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const api::BundleGroupStatus& k = groups[g];
    std::string agents;
    for (const std::string& a : k.agents) agents += (agents.empty() ? "" : ", ") + a;
    char line[400];
    std::snprintf(line, sizeof line, "  bundle %zu of %zu, to %s: %llu files (%s)", g + 1, groups.size(),
                  agents.c_str(), static_cast<unsigned long long>(k.sentFiles),
                  bytesText(static_cast<double>(k.sentBytes)).c_str());
    out += line;
    if (!k.error.empty()) {
      out += ", not sent: " + k.error + "\n";
      continue;
    }
    std::snprintf(line, sizeof line, ", %s moved along %s: predicted %.2f s", bytesText(static_cast<double>(k.size)).c_str(),
                  k.algo.c_str(), k.predictedS);
    out += line;
    if (k.finished) {
      std::snprintf(line, sizeof line, ", actual %.2f s", k.elapsedS);
      out += line;
    }
    out += "\n";
  }
  return out;
}

// One agent's unpack: what it published, and every entry it could not.
std::string treeOutcomeText(const api::TreeOutcome& t) {
  char line[300];
  std::snprintf(line, sizeof line,
                "             published %llu files (%s), %llu held already, %llu copied from another path here, "
                "%llu replaced, %llu deleted, %llu failed\n",
                static_cast<unsigned long long>(t.files), bytesText(static_cast<double>(t.bytes)).c_str(),
                static_cast<unsigned long long>(t.held), static_cast<unsigned long long>(t.copied),
                static_cast<unsigned long long>(t.replaced),
                static_cast<unsigned long long>(t.deleted), static_cast<unsigned long long>(t.failedCount));
  std::string out = line;
  for (const auto& p : t.failed) out += "               failed " + p.path + ": " + p.why + "\n";
  if (t.failedCount > t.failed.size())
    out += "               (and " + std::to_string(t.failedCount - t.failed.size()) + " more)\n";
  return out;
}

// "compressed with zstd: 1.0 GiB -> 412.0 MiB in 2.10 s (auto: ...)" or
// "not compressed (auto: random-looking data, ratio 1.00)".
std::string compressionText(const api::SendCompression& c) {
  const std::size_t colon = c.why.find(": ");
  const std::string reason = colon == std::string::npos ? c.why : c.why.substr(colon + 2);
  const std::string said = reason.rfind("--compress", 0) == 0 ? reason : "auto: " + reason;
  if (c.algo != "zstd") return "  not compressed (" + said + ")\n";
  char line[160];
  std::snprintf(line, sizeof line, "  compressed with zstd: %s -> %s in %.2f s",
                bytesText(static_cast<double>(c.plainBytes)).c_str(), bytesText(static_cast<double>(c.sentBytes)).c_str(),
                c.compressS);
  return line + (" (" + said + ")\n");
}

}  // namespace

// The tree at the start, then every parent change as it happens, on stderr
// (bench/replan.sh reads the tree from here to pick the busiest relay).
std::string treeLine(const api::SendStatus& s) {
  if (s.stripeOffsets.size() < 2)
    return "tree" + treeText(s, [](const api::CopyStatus& c) { return &c.parent; }) + "\n";
  std::string lines;
  for (std::size_t k = 0; k + 1 < s.stripeOffsets.size(); ++k)
    lines += "stripe " + std::to_string(k + 1) + " tree" + stripeTreeText(s, k) + "\n";
  return lines;
}

std::string changeLine(const api::ParentChange& c) {
  char line[400];
  std::snprintf(line, sizeof line, "%.1f s: %s now pulls from %s, not %s (%s)\n", c.atS, c.node.c_str(),
                c.newParent.c_str(), c.oldParent.c_str(), c.reason.c_str());
  return line;
}

// A file already at the destination (docs/send.md): who had it, whose file --force replaced.
static std::string heldText(const api::SendStatus& s) {
  std::string out;
  std::vector<std::string> there;
  std::string copied;
  for (const std::string& a : s.held)
    if (std::none_of(s.copiedHere.begin(), s.copiedHere.end(), [&a](const auto& c) { return c.agent == a; }))
      there.push_back(a);
  for (const auto& c : s.copiedHere) copied += (copied.empty() ? "" : ", ") + c.agent + " (from " + c.path + ")";
  if (!there.empty()) out += "held already (the same SHA-256 at --dest; nothing sent): " + joined(there) + "\n";
  if (!copied.empty()) out += "copied on the agent (the same SHA-256 under another path; nothing sent): " + copied + "\n";
  if (!s.replaced.empty()) out += "replaced (a different file was at --dest; --force): " + joined(s.replaced) + "\n";
  return out;
}

std::string sendTable(const api::SendStatus& s, const std::string& file) {
  std::string out;
  char line[512];
  if (s.copies.empty() && !s.held.empty()) {
    std::snprintf(line, sizeof line, "nothing to send: every agent it is for holds %s (%s) %s already\n",
                  file.c_str(), bytesText(static_cast<double>(s.size)).c_str(),
                  s.copiedHere.empty() ? "at --dest" : "at --dest or under another path");
    out += line + heldText(s);
    std::string skipped;
    for (const auto& k : s.skipped) skipped += (skipped.empty() ? "" : ", ") + k.node + " (" + k.why + ")";
    if (!skipped.empty()) out += "skipped: " + skipped + "\n";
    return out;
  }
  const std::string from = s.source.empty() ? "" : " from " + s.source + " (it held the file already)";
  // The file's own size: what moved, when compressed, is the frame (said on the next line).
  const bool compressed = s.compression.algo == "zstd" && s.compression.plainBytes > 0;
  const std::uint64_t fileBytes = compressed ? s.compression.plainBytes : s.size;
  std::snprintf(line, sizeof line, "sent %s (%s)%s along %s: predicted %.2f s, actual %.2f s\n", file.c_str(),
                bytesText(static_cast<double>(fileBytes)).c_str(), from.c_str(), s.algo.c_str(), s.predictedS,
                s.elapsedS);
  out += line;
  if (!s.compression.algo.empty()) out += compressionText(s.compression);
  if (s.maxRateBytesPerSecond > 0) {
    std::snprintf(line, sizeof line, "  every link at most %.1f Mbit/s (--max-rate), planned and paced so\n",
                  s.maxRateBytesPerSecond * 8 / 1e6);
    out += line;
  }
  // What the plan was chosen over: auto's two candidates, or one tree's two modes.
  for (const auto& o : s.considered) {
    std::snprintf(line, sizeof line, "  weighed %-10s %-18s predicted %8.2f s\n", o.algo.c_str(), o.mode.c_str(),
                  o.predictedSeconds);
    out += line;
  }
  if (!s.why.empty()) out += "  chosen: " + s.why + "\n";
  if (s.fluidBoundS > 0) {
    std::snprintf(line, sizeof line, "  fluid lower bound %.2f s\n", s.fluidBoundS);
    out += line;
  }
  if (s.boundS > 0) {
    std::snprintf(line, sizeof line, "  Kumar-Ross bound %.2f s (actual %.2fx)\n", s.boundS,
                  s.finished ? s.elapsedS / s.boundS : 0.0);
    out += line;
  }
  // A striped send: each stripe's bytes and tree.
  for (std::size_t k = 0; k + 1 < s.stripeOffsets.size(); ++k) {
    std::snprintf(line, sizeof line, "  stripe %zu: bytes %llu-%llu", k + 1,
                  static_cast<unsigned long long>(s.stripeOffsets[k]),
                  static_cast<unsigned long long>(s.stripeOffsets[k + 1]));
    out += line + stripeTreeText(s, k) + "\n";
  }
  // No probe could fill these links: the plan took the most they were seen to carry.
  for (const std::string& bound : s.rateBounds) out += "  planned with a lower bound: " + bound + "\n";
  if (s.replans > 0) {
    std::snprintf(line, sizeof line, "  replanned %d time%s; the last replan predicted the end at %.2f s\n",
                  s.replans, s.replans == 1 ? "" : "s", s.replannedPredictedS);
    out += line;
  } else if (!s.replanning) {
    out += "  replanning off (--no-replan)\n";
  }
  for (const auto& c : s.parentChanges) {
    std::snprintf(line, sizeof line, "  %7.2f s  %-12s %s -> %s  (%s)\n", c.atS, c.node.c_str(), c.oldParent.c_str(),
                  c.newParent.c_str(), c.reason.c_str());
    out += line;
  }
  if (s.tree) out += treeSummaryText(*s.tree) + groupsText(s.groups);
  std::snprintf(line, sizeof line, "%-12s %-12s %10s %10s  %s\n", "node", "parent", "planned_s", "finished_s", "path");
  out += line;
  std::string ok, failed;
  for (const auto& c : s.copies) {
    const bool done = c.state == api::CopyStatus::State::kDone;
    std::snprintf(line, sizeof line, "%-12s %-12s %10.2f %10s  %s\n", c.node.c_str(),
                  (c.stripeParents.empty() ? c.parent : std::to_string(c.stripeParents.size()) + " parents").c_str(),
                  c.plannedS,
                  done ? std::to_string(c.finishedS).substr(0, 6).c_str() : "-",
                  done ? c.path.c_str() : ("FAILED: " + c.message).c_str());
    out += line;
    if (c.tree) out += treeOutcomeText(*c.tree);
    (done ? ok : failed) += (done ? (ok.empty() ? "" : ", ") : (failed.empty() ? "" : ", ")) + c.node;
  }
  out += "ok: " + (ok.empty() ? std::string("none") : ok) + "\n";
  out += "failed: " + (failed.empty() ? std::string("none") : failed) + "\n";
  out += heldText(s);
  // Agents the send was for that could not take part: said, never passed over.
  std::string skipped;
  for (const auto& k : s.skipped) skipped += (skipped.empty() ? "" : ", ") + k.node + " (" + k.why + ")";
  if (!skipped.empty()) out += "skipped: " + skipped + "\n";
  return out;
}

Result<std::string> sendPictureSvg(const api::SendStatus& s) {
  if (!s.picture) return Error{"hnowd sent no picture of this send (an hnowd older than this hnow, or a send that "
                               "never started): nothing to draw"};
  return api::renderSendPicture(*s.picture);
}

std::string owedLine(const api::SendStatus& status) {
  std::string owed;
  for (const auto& c : status.copies)
    if (c.state != api::CopyStatus::State::kDone) owed += (owed.empty() ? "" : ", ") + c.node;
  for (const auto& k : status.skipped) owed += (owed.empty() ? "" : ", ") + k.node;
  if (owed.empty()) return "  every agent has its copy (--until-all: nothing owed)\n";
  return "  owed (--until-all): " + owed +
         "; each gets it from hnowd when it is connected again (hnow status lists what is owed, hnow ops when it went)\n";
}

}  // namespace hnow::cli
