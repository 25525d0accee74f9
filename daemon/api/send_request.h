#pragma once
// What `hnow send` asks of hnowd (transport/send.capnp SendRequest), as
// one plain value: the CLI fills it from its options, the codec
// (send_request_wire.h) carries it, and hnowd's SendService takes it as its
// own request's part (core/send/send_service.h). A new flag of `hnow send` is a
// field here, or, when the agents act on it, of `copy` (docs/architecture.md,
// "Adding a flag to hnow send").
#include <cstdint>
#include <string>
#include <vector>

#include "transport/orders/copy_options.h"

namespace hnow::api {

// A client's file as its machine stamps it (transport/control.capnp
// FileStamp): hnowd's kept copy of its last upload is sent again only
// while the file still carries the stamp it had then. A user can set an
// mtime back, not a ctime, and a file written anew has another inode.
struct FileStamp {
  std::uint64_t size = 0;
  std::int64_t mtimeNs = 0;
  std::int64_t ctimeNs = 0;
  std::uint64_t inode = 0;
  bool operator==(const FileStamp& o) const {
    return size == o.size && mtimeNs == o.mtimeNs && ctimeNs == o.ctimeNs && inode == o.inode;
  }
};

struct SendRequest {
  std::string path;  // absolute, on hnowd's machine, as named: what logs and records say
  std::string dest;
  std::vector<std::string> to;  // empty or ["all"]: every agent; else sites or agent names
  std::string algo = "auto";
  bool replan = true;  // re-plan on drift events and losses; off: --no-replan (losses still re-parent)
  // What each agent acts on (--atomic, --delete): given to it whole in its receive order.
  transport::orders::CopyOptions copy{};
  std::string compress = "auto";  // auto|zstd|none (docs/compression.md)
  // Agents without a copy when it ends stay owed it (docs/until-all.md).
  bool untilAll = false;
  // --max-rate: every link the send uses at most this, bytes/s; 0: none.
  double maxRateBytesPerSecond = 0.0;
  // A file: replace a different file already at `dest`; without it such a
  // send is refused before a byte moves (docs/send.md, "A file already there").
  bool force = false;
  // Not 0: the client's upload of this id is sent, not `path` (which then
  // names the client's file, "-" its standard input).
  std::uint64_t upload = 0;
  // The upload is the client's directory packed as a tree's bundle: unpacked
  // at hnowd first, then sent as a tree (docs/tree-send.md).
  bool uploadIsTree = false;
  // With uploadIsTree: the bundle holds only what hnowd's kept copy of the
  // client's directory under this key lacked; "": the whole tree. A file's:
  // its upload becomes hnowd's kept copy under this key, or, with no
  // upload, that copy is sent (docs/tree-send.md, "Kept files").
  std::string uploadKey{};
  // With a file's uploadKey: the client's stamp of the file.
  FileStamp uploadStamp{};
};

}  // namespace hnow::api
