#pragma once
// hnowd's copies of the files clients uploaded (docs/tree-send.md, "Kept
// files"): the last upload under each key (the operator, the client's host
// and the file's path) stays in a directory of hnowd's with the client's
// stamp of the file, so the same file sent again is sent from that copy
// and not uploaded again, as a directory's kept tree is (kept_trees.cc).
// Each upload kept is a file of its own (a generation): a send reads the
// copy it was given to its end, whatever uploads replace it meanwhile,
// and that copy goes once no send reads it. Used on one thread (hnowd's kj
// thread) but for moveIntoKept, which reads.
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "api/send_request.h"
#include "base/result.h"

namespace hnow::daemon {

// The files kept at most: the least recently sent go first. A lab's
// operators send a handful of large files (images, data sets) each week.
inline constexpr std::size_t kMaxKeptFiles = 8;

class KeptFiles {
 public:
  // In `dir` (created when needed), at most `maxFiles` of them.
  explicit KeptFiles(std::string dir, std::size_t maxFiles = kMaxKeptFiles)
      : dir_(std::move(dir)), maxFiles_(maxFiles) {}

  // Does the copy under `key` carry `stamp`?
  bool holds(const std::string& key, const api::FileStamp& stamp) const;
  // The copy under `key`, when it carries `stamp`: its path, read until
  // release(path); marked as just used (the last to be evicted).
  Result<std::string> use(const std::string& key, const api::FileStamp& stamp);

  // Keeping an upload of `size` bytes under `key`: where it goes (a new
  // generation's path, for moveIntoKept), or why it is not kept: the disk
  // would keep less free than another upload of it needs (server/uploads.h:
  // kUploadReserveBytes), so it is sent as scratch rather than evict every
  // other copy for it.
  Result<std::string> place(std::uint64_t size);
  // The upload moved to `generation` (place's) made the copy under `key`,
  // read as use() gives it; the one it replaces is removed now, or once no
  // send reads it. Past maxFiles, the least recently used are evicted, never
  // one a send reads.
  std::string commit(const std::string& key, const api::FileStamp& stamp, const std::string& generation);
  // A send of this copy ended.
  void release(const std::string& path);

 private:
  // Removes the generations no record names (an earlier hnowd stopped
  // between the move and the record); how many. Before place's first.
  std::size_t sweep() const;
  bool swept_ = false;
  std::string recordPath(const std::string& key) const;
  void evict();
  std::string dir_;
  std::size_t maxFiles_;
  std::map<std::string, std::size_t> readers_;  // by generation: the sends reading it
  std::set<std::string> replaced_;              // read while replaced: removed at its last release
  std::uint64_t nextGeneration_ = 0;
};

// The upload at `uploadPath` renamed to `generation` (same filesystem),
// its digests carried over: hnowd remembers a file's digests by its stamp
// (transport/data/digest_cache.h), which the rename changes (its ctime),
// and a send from the copy must not read 1 GiB again to hash it. Reads the
// file only when its digests were forgotten: off hnowd's kj thread.
Result<void> moveIntoKept(const std::string& uploadPath, const std::string& generation);

}  // namespace hnow::daemon
