#pragma once
// SourcePlane (core/send/source_plane.h) over hnowd's data plane, on the kj
// thread: the plane's transfer events come back through onTransfer().
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "core/send/source_plane.h"
#include "server/kept_files.h"
#include "transport/off_thread.h"
#include "transport/data/data_plane.h"
#include "transport/data/tree_bundle.h"

namespace hnow::daemon {

class DataSourcePlane final : public SourcePlane {
 public:
  // Trees are packed into bundles in `bundleDir` (created when needed;
  // what an earlier hnowd left there is stale: sweepBundles).
  // Compressed files (compressed_files.cc) go there too.
  DataSourcePlane(transport::data::DataPlane& plane, std::string bundleDir);
  // Waits for the hashes, scans, packs and compressions still running
  // (their answers are dropped).
  ~DataSourcePlane() override;
  void serveFile(const std::string& token, const std::string& path, Served done) override;
  Result<std::uint64_t> sizeOf(const std::string& path) override;
  void hashFile(const std::string& path, Served done) override;
  bool isDirectory(const std::string& path) override;
  void scanTree(const std::string& path, Scanned done) override;
  Result<TreeQueries> digestQueries(std::uint64_t scanId, const std::vector<std::size_t>& files) override;
  void packScanned(std::uint64_t scanId, const std::vector<std::vector<bool>>& sends, const std::vector<bool>& withSha256,
                   Packed done) override;
  void dropScan(std::uint64_t scanId) override { scans_.erase(scanId); }
  void dropScratch(const std::string& bundlePath) override;
  void listTree(const std::string& path, Listed done) override;
  void unpackUpload(const std::string& bundlePath, UnpackedUpload done) override;
  void keptHeld(const std::string& key, const std::string& index, KeptHeld done) override;
  void unpackKept(const std::string& key, const std::string& bundlePath, UnpackedUpload done) override;
  void releaseKept(const std::string& dir) override { keptBusy_.erase(dir); }
  void useKeptTree(const std::string& key, const std::string& listingHex, UnpackedUpload done) override;
  // Kept files (kept_files.cc), under bundleDir/kept-files.
  bool holdsKeptFile(const std::string& key, const api::FileStamp& stamp) override {
    return keptFiles_.holds(key, stamp);
  }
  Result<std::string> useKeptFile(const std::string& key, const api::FileStamp& stamp) override {
    return keptFiles_.use(key, stamp);
  }
  void keepFile(const std::string& key, const api::FileStamp& stamp, const std::string& uploadPath,
                KeptFileDone done) override;
  void releaseKeptFile(const std::string& path) override { keptFiles_.release(path); }
  Result<CompressionSample> sampleCompression(const std::string& path, std::uint64_t size) override;
  void compressFile(const std::string& path, std::uint64_t size, Compressed done) override;
  void serveStripes(const std::string& token, const std::string& path, std::uint64_t size,
                    const std::vector<StripeCut>& stripes, std::uint32_t chunkBytes, Served done) override;
  // data_source_ranges.cc: a job's input.
  void serveRange(const std::string& token, std::shared_ptr<const RunInput> input, std::uint64_t offset,
                  std::uint64_t length, Served done) override;
  void indexUnits(std::shared_ptr<const RunInput> input, const conf::SplitSpec& spec, Indexed done) override;
  void receiveFile(const std::string& token, std::uint64_t size, const std::string& sha256, const std::string& path,
                   const std::string& from, Received done) override;
  void receiveOffered(const std::string& token, const std::string& ticket, std::uint64_t size,
                      const std::string& sha256, const std::string& path, Lost lost, Received done) override;
  void release(const std::string& token) override;
  void pace(double uplinkBytesPerSecond, double downlinkBytesPerSecond) override {
    plane_.setRates(uplinkBytesPerSecond, downlinkBytesPerSecond);
  }
  // An event of the data plane (a receive ending), on the kj thread.
  void onTransfer(const transport::data::TransferEvent& event);

 private:
  transport::data::DataPlane& plane_;
  std::string bundleDir_;
  std::uint64_t nextBundle_ = 1;
  std::string newScratchPath(const char* extension);
  struct Scan;
  std::map<std::uint64_t, std::shared_ptr<Scan>> scans_;  // scanned, not packed yet
  std::uint64_t nextScan_ = 1;
  // By path: a second send hashes what changed. Scans run off the kj
  // thread, one at a time over the cache (two sends' scans take turns).
  struct Digests {
    std::mutex lock;  // held by a scan for its whole walk
    transport::data::TreeDigestCache cache;
  };
  std::shared_ptr<Digests> digests_;
  struct Receive {
    std::string path;
    Received done;
    Lost lost;  // an offered receive's (receiveOffered); none for a pull
    // A pull's losses in a row at one byte (kPullTries end it).
    int lostTimes = 0;
    std::uint64_t lostAt = 0;
  };
  // The agent holding a job file closed hnowd's pull this many times in a
  // row without a byte more (it no longer serves the token, say): the
  // receive fails, and the job gives the share to another agent, rather
  // than retry for ever. Twenty tries are six seconds at the data plane's
  // reconnect delay: more than a busy agent's pause.
  static constexpr int kPullTries = 20;
  // The receive set up on the data plane, or false (`done` told why, later).
  bool startReceive(const std::string& token, std::uint64_t size, const std::string& sha256,
                    const std::string& path, Receive receive);
  std::map<std::string, Receive> receiving_;
  // Kept trees (kept_trees.cc) a send runs from, by path: not asked about
  // nor unpacked over until it ends.
  std::set<std::string> keptBusy_;
  std::string keptPath(const std::string& key) const;
  KeptFiles keptFiles_;
  // A job's ranges waiting to be hashed, one at a time (a job commits
  // thousands of blocks at once: a thread each would be too many), and the
  // tokens not released yet of those waiting or being hashed.
  struct PendingRange {
    std::string token;
    std::shared_ptr<const RunInput> input;
    std::uint64_t offset = 0, length = 0;
    Served done;
  };
  std::deque<PendingRange> ranges_;
  std::set<std::string> rangesWanted_;
  bool hashingRange_ = false;
  void hashNextRange();
  // Hashes, scans, packs and compressions under way, answered on the kj
  // thread; last, so it is gone (its threads waited for) before the rest.
  transport::OffThread work_;
};

// A client's tree bundle at `bundlePath` unpacked as the directory `dir`
// (its parent must exist), as unpackTree does with `atomic` and
// `deleteOthers`; the bundle is removed, whatever the outcome.
Result<transport::data::UnpackedTree> unpackUploadedBundle(const std::string& bundlePath, const std::string& dir,
                                                           bool atomic, bool deleteOthers);

// Removes the bundles, compressed files and unpacked trees an earlier
// hnowd left in `bundleDir` (no send of theirs lives on); how many.
std::size_t sweepBundles(const std::string& bundleDir);
// Removes the staging directories an unpack over a kept tree (kept_trees.cc)
// left when hnowd stopped mid-way; the kept trees stay. How many.
std::size_t sweepKeptStaging(const std::string& bundleDir);

}  // namespace hnow::daemon
