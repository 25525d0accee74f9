#pragma once
// Files a client hands to hnowd (`hnow send` of a file or directory hnowd
// does not read, or of standard input): granted over the client's
// authenticated control session, carried by the data plane (the client
// dials in and offers the bytes under a one-time ticket), written under
// hnowd's data directory, kept for one send of the session that uploaded
// them, removed when that send ends (or kept for the next send of the same
// file: kept_files.h), or with the session if no send took them.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "core/send/source_plane.h"

namespace hnow::daemon {

// Less than this free on hnowd's disk and an upload is refused.
inline constexpr std::uint64_t kUploadReserveBytes = 1ull << 30;

// One client session's uploads: under way, or whole and not yet taken by a send.
class UploadShelf : public std::enable_shared_from_this<UploadShelf> {
 public:
  // `plane` receives the bytes (null, or `dir` empty: no uploads taken);
  // `freshToken` gives 32 random bytes, for each upload's token and ticket.
  UploadShelf(std::string dir, SourcePlane* plane, std::function<std::string()> freshToken)
      : dir_(std::move(dir)), plane_(plane), freshToken_(std::move(freshToken)) {}
  ~UploadShelf();  // releases what is under way and removes what no send took
  UploadShelf(const UploadShelf&) = delete;
  UploadShelf& operator=(const UploadShelf&) = delete;

  // What the client needs to hand the bytes over: the upload's id, the
  // token it serves them under and the ticket it presents when it dials.
  struct Grant {
    std::uint64_t id = 0;
    std::string token;
    std::string ticket;
  };
  // An upload of `size` bytes, its receive set up on the data plane; or
  // why not (no room, no directory). Its SHA-256 comes with whenWhole: the
  // client hashes the file while it serves it, not before, and hnowd hashes
  // it as it lands (with the chunk digests it serves agents), so neither
  // pass adds to the upload's time. Held by a shared_ptr (the receive's
  // answers hold it weakly).
  Result<Grant> begin(std::uint64_t size);
  // `done` once: with the upload's size when it is whole and the digest
  // hnowd took of it as it landed is `sha256` (32 bytes, the client's of
  // its file), at once if it is already; else with why it never will be
  // (the connection carrying it ended, its bytes differ, an id not this
  // session's). The upload is dropped when they differ.
  using Whole = std::function<void(const Result<std::uint64_t>& size)>;
  void whenWhole(std::uint64_t id, const std::string& sha256, Whole done);
  // The upload's path, now the caller's (the send removes it); none for an
  // id this session did not upload, not whole yet, or already sent.
  std::optional<std::string> take(std::uint64_t id);

 private:
  struct Upload {
    std::string token;
    std::string path;
    std::uint64_t size = 0;
    bool landed = false;   // renamed into place; its digest being read back
    std::string landedSha256;  // hnowd's, once known
    std::string claimedSha256; // the client's, once told
    bool whole = false;    // the two matched
    std::vector<Whole> waiting;
  };
  void ended(std::uint64_t id, const Result<std::string>& received);
  // Both digests known: whole, or dropped with every waiter told why.
  void settle(std::uint64_t id);
  void drop(std::uint64_t id, const Error& why);

  std::string dir_;
  SourcePlane* plane_;
  std::function<std::string()> freshToken_;
  std::map<std::uint64_t, Upload> uploads_;
  std::uint64_t next_ = 1;
};


// Free bytes on the filesystem of `dir`, or why not known.
Result<std::uint64_t> freeBytes(const std::string& dir);

// Removes the uploads an earlier hnowd left in `dir`; how many.
std::size_t sweepUploads(const std::string& dir);

}  // namespace hnow::daemon
