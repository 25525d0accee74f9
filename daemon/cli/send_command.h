#pragma once
// `hnow send FILE --dest PATH`: hnowd reads FILE where it sees the same
// file at that path (this machine is hnowd's, or a shared filesystem);
// otherwise, and for `-` (standard input), this command uploads it to
// hnowd first. hnowd plans a tree from the live rates and pushes the file
// along it; this command shows progress and the final report. FILE may be a directory: its tree goes as one bundle and
// each agent reports what it published (docs/tree-send.md).
#include <string>
#include <vector>

#include "base/result.h"
#include "api/send_request.h"
#include "api/send_status.h"

namespace hnow::cli {

struct SendOptions {
  std::string configPath;
  std::string file;  // as typed; `request.path` is its absolute path, set when the send starts
  // What hnowd is asked: the flags that go to hnowd (--dest, --to, --algo,
  // --no-replan, --atomic, --delete, --compress, --until-all, --force) are
  // read straight into it; --max-rate and the upload once the send starts.
  api::SendRequest request;
  bool json = false;
  std::string svgPath;  // --svg: where to write its picture
  // --max-rate, e.g. "100M" (base/bit_rate.h); empty: none.
  std::string maxRate;
  bool detach = false;  // print the record's id once started, and leave
};

// --max-rate in bytes/s (0 when not given), or why it cannot be read.
Result<double> sendMaxRate(const SendOptions& options);

// 0 when every copy verified, 1 when any failed or hnowd refused, 2 for bad options.
int runSendCommand(const SendOptions& options);

// {"id" (the operation's, as `hnow ops` lists it; null without a record), "algo",
// "size", "predicted_s", "actual_s", "considered": [{"algo", "mode",
// "predicted_s"}], "fluid_bound_s", "replanning", "replans", "replanned_predicted_s"
// (null without a replan), "parent_changes": [{"node", "old_parent", "new_parent",
// "at_s", "reason"}], "copies": [{"node", "path", "sha256", "finished_s",
// "parent", "corrupt_chunks"}], "failed": [{"node", "reason"}]}; a
// directory's send adds "tree": {"entries", "files", "file_bytes",
// "sent_files", "sent_bytes", "atomic", "delete", "query_bytes" (the
// indexes hnowd sent asking the agents what they hold), "refused_count",
// "refused": [{"path", "why"}]} and per copy "tree": {"files", "bytes",
// "held", "copied" (held under another path, copied there), "replaced",
// "deleted", "failed_count", "failed": [...]}; and
// "compression": {"algo" ("zstd" | "none"), "plain_bytes" (the file's, a
// tree's bundle's), "sent_bytes" (what moved: "size"), "why", "compress_s"
// (hnowd compressing before the first byte moved)} when hnowd said; and
// "max_rate_bps": the send's --max-rate in bits/s, null when none; "held":
// the agents that held the file at --dest already (nothing sent to them),
// "replaced": those whose different file there --force replaced.
std::string sendJson(const api::SendStatus& status);
std::string sendTable(const api::SendStatus& status, const std::string& file);
// After an --until-all send: the agents still owed it (failed or skipped), or that none are.
std::string owedLine(const api::SendStatus& status);
// The send's picture as SVG (api/send_picture_svg.h): its trees or stripes,
// planned and achieved rates, the bottleneck, the replans; or why hnowd
// sent none.
Result<std::string> sendPictureSvg(const api::SendStatus& status);

}  // namespace hnow::cli
