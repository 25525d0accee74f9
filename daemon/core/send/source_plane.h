#pragma once
// hnowd's own data plane as its services see it: it serves files of its
// own under a token to the agents that pull them, paced at hnowd's uplink
// (a send's file, a job's shares), and pulls files from agents (a job's
// results). The server implements it over the real data plane
// (server/data_source_plane.h), tests with a recorder.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "api/send_request.h"
#include "base/result.h"
#include "conf/unit_index.h"
#include "core/jobs/run_files.h"
#include "core/send/send_compression.h"
#include "core/send/tree_send.h"

namespace hnow::daemon {

struct SourceFile {
  std::uint64_t size = 0;
  std::string sha256;     // 32 bytes
  std::string sha256Hex;  // the same, as 64 hex digits
  // serveStripes: each stripe's, in order (32 bytes each; and as hex).
  std::vector<std::string> stripeSha256;
  std::vector<std::string> stripeSha256Hex;
  // Served: the chunks its digests cut (0: none) and the pieces' digests,
  // 32 bytes each, of the whole file or of each stripe; what every
  // receiver checks each chunk against (docs/security.md, "Data a relay
  // alters").
  std::uint32_t digestChunkBytes = 0;
  std::string pieceDigests{};
  std::vector<std::string> stripePieceDigests{};
};

// One byte range of a striped send, served under its own token.
struct StripeCut {
  std::string token;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

class SourcePlane {
 public:
  virtual ~SourcePlane() = default;
  // The file at `path` opened, hashed and served under `token` until
  // released; `done` once, later or at once, on the caller's thread, with
  // its size and digest or why it cannot be served. Hashing a large file
  // takes seconds, and the answers below that read whole files come the
  // same way: the control thread is kept for the agents' heartbeats.
  using Served = std::function<void(const Result<SourceFile>& served)>;
  virtual void serveFile(const std::string& token, const std::string& path, Served done) = 0;
  // The size and digest of the file at `path`, not served (a file already
  // at an agent's destination is compared with it); `done` as serveFile's.
  virtual void hashFile(const std::string& /*path*/, Served done) { done(Error{"this plane cannot send"}); }
  // A send's: the size of the regular file at `path`, or why it cannot be
  // served (planes of jobs alone refuse, as below).
  virtual Result<std::uint64_t> sizeOf(const std::string& /*path*/) { return Error{"this plane cannot send"}; }
  // True when `path` is a directory (sent as a tree), following a symlink to it.
  virtual bool isDirectory(const std::string& /*path*/) { return false; }
  // The directory at `path` walked, its files' digests taken (kept from
  // the last scan when a file's stamp is unchanged), or why it cannot be;
  // `done` once, later or at once, on the caller's thread.
  using Scanned = std::function<void(const Result<TreeScan>& scan)>;
  virtual void scanTree(const std::string& /*path*/, Scanned done) { done(Error{"this plane cannot send trees"}); }
  // The scan's files `files` (scan entries) asked about again, with their
  // SHA-256: some agent holds them with another mtime. The digests are the
  // scan's: no file is read (milliseconds, on the caller's thread).
  virtual Result<TreeQueries> digestQueries(std::uint64_t /*scanId*/, const std::vector<std::size_t>& /*files*/) {
    return Error{"this plane cannot send trees"};
  }
  // A scan packed into bundles on hnowd's disk (each then sent as a file),
  // one per group of agents (bundle_groups.h): bundle g carries the bytes
  // of scan entry k only where `sends[g][k]`, the other files listed as
  // held, with their SHA-256 where `withSha256[k]`. The scan is dropped
  // either way, and no bundle is left when one cannot be packed. `done` as
  // scanTree's.
  using Packed = std::function<void(const Result<std::vector<TreeBundle>>& bundles)>;
  virtual void packScanned(std::uint64_t /*scanId*/, const std::vector<std::vector<bool>>& /*sends*/,
                           const std::vector<bool>& /*withSha256*/, Packed done) {
    done(Error{"this plane cannot send trees"});
  }
  // A scan no send will pack.
  virtual void dropScan(std::uint64_t /*scanId*/) {}
  // A file hnowd made to be sent (a tree's bundle, a client's upload, a
  // compressed file), or a directory (a client's tree, unpacked), removed:
  // the send that carried it ended.
  virtual void dropScratch(const std::string& /*path*/) {}
  // A client's directory: the listing digest of the directory at `path`
  // here (treeListingDigest, as hex), or why there is none; `done` as
  // scanTree's.
  using Listed = std::function<void(const Result<std::string>& listingHex)>;
  virtual void listTree(const std::string& /*path*/, Listed done) { done(Error{"this plane cannot send trees"}); }
  // A client's directory, uploaded as a tree's bundle at `bundlePath`:
  // unpacked into a scratch directory of hnowd's (the bundle removed),
  // whose path `done` gets (as scanTree's), to be sent as any directory
  // and dropped (dropScratch) when that send ends.
  using UnpackedUpload = std::function<void(const Result<std::string>& dir)>;
  virtual void unpackUpload(const std::string& /*bundlePath*/, UnpackedUpload done) {
    done(Error{"this plane cannot send trees"});
  }
  // A client's directory kept from its last upload under `key` (its host
  // and path; docs/tree-send.md, "From the client's machine"), so the next
  // upload carries only what changed. keptHeld: what that copy lacks of a
  // part of the tree's index (as an agent answers treeHeld), refused while
  // a send from it runs. unpackKept: the upload's bundle (the files the
  // copy lacked, the rest listed held) unpacked over the copy in place,
  // `done` with its path, a send from it running until releaseKept(path).
  struct KeptAnswer {
    std::vector<std::uint32_t> missing;
    std::vector<std::uint32_t> sameSize;
  };
  using KeptHeld = std::function<void(const Result<KeptAnswer>& answer)>;
  virtual void keptHeld(const std::string& /*key*/, const std::string& /*index*/, KeptHeld done) {
    done(Error{"this plane keeps no uploaded trees"});
  }
  virtual void unpackKept(const std::string& /*key*/, const std::string& /*bundlePath*/, UnpackedUpload done) {
    done(Error{"this plane keeps no uploaded trees"});
  }
  virtual void releaseKept(const std::string& /*dir*/) {}
  // A send of that copy run again after hnowd restarted (sends_under_way.h):
  // `done` with the copy's path, a send from it running until
  // releaseKept(path), when the copy still lists `listingHex` (its
  // treeListingDigest as the send read it first); else why not (it is
  // gone, another send runs from it, or it lists other files now: a later
  // upload of the directory changed it).
  virtual void useKeptTree(const std::string& /*key*/, const std::string& /*listingHex*/, UnpackedUpload done) {
    done(Error{"this plane keeps no uploaded trees"});
  }
  // A client's file kept from its last upload under `key` (its host and
  // path; docs/tree-send.md, "Kept files") with the client's `stamp` of it,
  // so the same file sent again is not uploaded again. holdsKeptFile: is
  // that copy here with that stamp. useKeptFile: its path, read by a send
  // until releaseKeptFile(path). keepFile: a whole, checked upload at
  // `uploadPath` made that copy (one a running send reads stays until it
  // ends), `done` with its path as useKeptFile's; or, when it is not kept
  // (no room to spare), with the upload's own, scratch (`kept` false).
  struct KeptFile {
    std::string path;
    bool kept = false;
  };
  using KeptFileDone = std::function<void(const Result<KeptFile>& file)>;
  virtual bool holdsKeptFile(const std::string& /*key*/, const api::FileStamp& /*stamp*/) { return false; }
  virtual Result<std::string> useKeptFile(const std::string& /*key*/, const api::FileStamp& /*stamp*/) {
    return Error{"this plane keeps no uploaded files"};
  }
  virtual void keepFile(const std::string& /*key*/, const api::FileStamp& /*stamp*/, const std::string& uploadPath,
                        KeptFileDone done) {
    done(KeptFile{uploadPath, false});
  }
  virtual void releaseKeptFile(const std::string& /*path*/) {}
  // --compress (send_compression.h): what compressing the `size` bytes at
  // `path` would give, from samples of it (milliseconds: on the caller's thread).
  virtual Result<CompressionSample> sampleCompression(const std::string& /*path*/, std::uint64_t /*size*/) {
    return Error{"this plane cannot compress"};
  }
  // The file compressed into a scratch file on hnowd's disk (removed with
  // dropScratch); `done` once, later or at once, on the caller's thread
  // (a large file takes seconds, which the control thread keeps for the
  // agents). Refused when the file is not `size` bytes any more.
  using Compressed = std::function<void(const Result<CompressedSource>& compressed)>;
  virtual void compressFile(const std::string& /*path*/, std::uint64_t /*size*/, Compressed done) {
    done(Error{"this plane cannot compress"});
  }
  // The file at `path` served as `stripes` (in order, covering it), each
  // under its token in chunks of `chunkBytes` (0: the plane's), until
  // `token` is released; the whole file's digest and each stripe's, taken in
  // one pass. Refused when the file is not `size` bytes (it changed since it
  // was planned). `done` as serveFile's.
  virtual void serveStripes(const std::string& /*token*/, const std::string& /*path*/, std::uint64_t /*size*/,
                            const std::vector<StripeCut>& /*stripes*/, std::uint32_t /*chunkBytes*/, Served done) {
    done(Error{"this plane cannot send in stripes"});
  }
  // A job's: `length` bytes of its input from `offset` served under
  // `token` (a share, the calibration sample), as a range of the input's
  // file: nothing is copied. Hashed off the caller's thread, one range after
  // another (a job commits thousands of blocks at once); `done` as serveFile's.
  virtual void serveRange(const std::string& /*token*/, std::shared_ptr<const RunInput> /*input*/,
                          std::uint64_t /*offset*/, std::uint64_t /*length*/, Served done) {
    done(Error{"this plane cannot serve a job's input"});
  }
  // A job's input cut into units by `spec` (conf/unit_index.h): read
  // through once, which for gigabytes takes seconds, off the caller's
  // thread; `done` once, later or at once, on the caller's thread. Here:
  // on the caller's thread, for planes of small inputs (tests).
  using Indexed = std::function<void(const Result<conf::UnitIndex>& index)>;
  virtual void indexUnits(std::shared_ptr<const RunInput> input, const conf::SplitSpec& spec, Indexed done) {
    done(conf::UnitIndex::scan(spec, input->size(), [input](std::uint64_t offset, std::size_t length) {
      return input->read(offset, length);
    }));
  }
  // `size` bytes under `token` pulled from the data plane at `from` into
  // `path` (written beside it, renamed once whole and matching `sha256`,
  // 32 bytes); `done` once, later, on the caller's thread, with the path or
  // why not.
  using Received = std::function<void(const Result<std::string>& path)>;
  virtual void receiveFile(const std::string& token, std::uint64_t size, const std::string& sha256,
                           const std::string& path, const std::string& from, Received done) = 0;
  // As receiveFile, from an agent hnowd cannot connect to (behind NAT,
  // docs/reachability.md): instead of pulling, wait for it to dial hnowd's
  // data port and present `ticket` (32 bytes, handed to that agent alone by
  // AgentLink::offerFile), then pull over its connection. `lost`, with why,
  // each time such a connection ends before the file is whole: the bytes
  // held wait for the agent's next offer, which resumes after them.
  // `sha256` empty: a client's upload (server/uploads.h), whose client
  // hashes it as it serves it: not checked here, but hashed as it lands,
  // chunk digests too, so hashFile and serveFile of `path` read nothing.
  using Lost = std::function<void(const std::string& why)>;
  virtual void receiveOffered(const std::string& /*token*/, const std::string& /*ticket*/, std::uint64_t /*size*/,
                              const std::string& /*sha256*/, const std::string& /*path*/, Lost /*lost*/,
                              Received done) {
    done(Error{"this plane cannot take files offered over connections agents open"});
  }
  // Stops serving or receiving `token`; a receive still under way never answers.
  virtual void release(const std::string& token) = 0;
  // hnowd's links paced (0: not paced): its uplink as sends and runs
  // serve, its downlink as runs' results come back.
  virtual void pace(double uplinkBytesPerSecond, double downlinkBytesPerSecond) = 0;
};

}  // namespace hnow::daemon
