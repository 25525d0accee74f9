#pragma once
// A tree's staging directory, filled as its bundle lands (docs/tree-send.md).
// unpackTree writes a whole bundle into it at once; an agent receiving a
// bundle writes each file as soon as the bundle's bytes for it have
// landed, so that the copying overlaps the transfer and little is left
// once the last byte is in. The data plane writes every byte of a
// receive once, in order per range, and only after its chunk checked
// (plane_receive.cc), so a byte that has landed is the byte the bundle's
// SHA-256 is checked over at the end. Nothing of the staging is published
// before finish(), which the caller runs only on a verified bundle: a
// bundle that fails its digest leaves nothing behind.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "transport/data/tree_bundle.h"

namespace hnow::transport::data {

// Bundle bytes [offset, offset + length) that have landed in its file.
struct LandedSpan {
  std::uint64_t offset = 0, length = 0;
};

// How many bytes from the bundle's start have landed without a gap.
std::uint64_t landedFromStart(std::vector<LandedSpan> spans);

// Removes the staging directory `staging` in `parentFd`; what cannot be
// removed now the agent's startup sweep removes (isTreeStagingName), so it
// is only logged.
void removeStaging(int parentFd, const std::string& staging, const std::string& displayPath);

class TreeStaging {
 public:
  // Creates the staging directory (`.NAME.hnow-stage-<16 hex>`, mode 0700)
  // for `name` in `parentFd` (borrowed; it must outlive the staging);
  // `displayPath` is that directory's absolute path, for messages;
  // `bundleSize` the whole bundle's. Fails when `name` is not a single
  // name, is a file or symlink there, or the directory cannot be made.
  static Result<std::unique_ptr<TreeStaging>> open(int parentFd, const std::string& name,
                                                   const std::string& displayPath, std::uint64_t bundleSize,
                                                   bool atomic);
  // How many bytes from the bundle's start have landed without a gap.
std::uint64_t landedFromStart(std::vector<LandedSpan> spans);

// Removes the staging directory unless finish() published it.
  ~TreeStaging();
  TreeStaging(const TreeStaging&) = delete;
  TreeStaging& operator=(const TreeStaging&) = delete;

  // Reads the index once its bytes are within `landed` (then makes the
  // directories and symlinks), and writes every file whose bytes all are
  // and that is not written yet, each file's writeback started as it is
  // written. A bad index or a write that fails is kept: it is returned
  // again here and by finish(), and nothing more is written.
  Result<void> advance(int bundleFd, const std::vector<LandedSpan>& landed);

  // For a bundle whose SHA-256 matched: reads its index again (it must be
  // the one advance() read), writes what is not written yet (held files
  // copied in, with `atomic`), syncs, and publishes as unpackTree says.
  Result<UnpackedTree> finish(int bundleFd, bool deleteOthers);

  // Where a held file not at its path is looked for and copied from
  // (missingFiles' `searchFd`): `rootFd` (borrowed; it must outlive the
  // staging), an agent's whole root. Unset: the tree `name` itself.
  void searchUnder(int rootFd) { searchFd_ = rootFd; }

  // advance() failed: nothing more is written, and finish() says why.
  bool failed() const { return failed_.has_value(); }
  // Files written into the staging so far (with their bytes), for logs.
  std::uint64_t filesWritten() const { return filesWritten_; }
  std::uint64_t bytesWritten() const { return bytesWritten_; }

 private:
  TreeStaging(int parentFd, std::string name, std::string displayPath, std::string staging, int stageFd,
              std::uint64_t bundleSize, bool atomic);
  // Reads the index (adoptIndex takes one read already) and makes the
  // directories and symlinks in the staging.
  Result<void> readIndex(int bundleFd);
  Result<void> adoptIndex(TreeIndex index);
  // Writes entry k (a file) from the bundle.
  Result<void> writeFile(int bundleFd, std::size_t k, bool startWriteback);
  // Writes every entry not written yet, held ones too (atomic), and sets
  // the directories' modes and mtimes (atomic).
  Result<void> writeRest(int bundleFd);
  Result<UnpackedTree> publish(bool deleteOthers);
  std::string where() const;

  int parentFd_;
  std::string name_, displayPath_, staging_;
  int stageFd_;
  std::uint64_t bundleSize_;
  bool atomic_;
  int searchFd_ = -1;
  std::optional<TreeIndex> index_;
  std::vector<bool> written_;          // per entry of the index
  std::vector<std::uint32_t> pending_; // files with bytes in the bundle not written yet, by offset
  std::optional<Error> failed_;
  // The directories of the last file written, kept open for the next: files
  // land mostly in index order, so mostly in the same directory.
  std::unique_ptr<class DirWalk> fileDirs_;
  bool published_ = false;
  std::uint64_t filesWritten_ = 0, bytesWritten_ = 0;
  std::uint64_t copied_ = 0;  // held files copied from another path of the tree (writeRest)
};

}  // namespace hnow::transport::data
