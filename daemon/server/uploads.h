#pragma once
// Files a client hands to hnowd (`hnow send` of a file or directory hnowd
// does not read, or of standard input): granted over the client's
// authenticated control session, carried by the data plane (the client
// dials in and offers the bytes under a one-time ticket), written under
// hnowd's data directory, kept for one send of the session that uploaded
// them, removed when that send ends, or with the session if no send took
// them.
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
  // An upload of `size` bytes whose SHA-256 is `sha256` (32 bytes), its
  // receive set up on the data plane; or why not (no room, no directory).
  // Held by a shared_ptr (the receive's answers hold it weakly).
  Result<Grant> begin(std::uint64_t size, const std::string& sha256);
  // `done` once: with the upload's size when it is whole and matched its
  // SHA-256 (at once if it is already), else with why it never will be
  // (the connection carrying it ended, an id not this session's).
  using Whole = std::function<void(const Result<std::uint64_t>& size)>;
  void whenWhole(std::uint64_t id, Whole done);
  // The upload's path, now the caller's (the send removes it); none for an
  // id this session did not upload, not whole yet, or already sent.
  std::optional<std::string> take(std::uint64_t id);

 private:
  struct Upload {
    std::string token;
    std::string path;
    std::uint64_t size = 0;
    bool whole = false;
    std::vector<Whole> waiting;
  };
  void ended(std::uint64_t id, const Result<std::string>& received);

  std::string dir_;
  SourcePlane* plane_;
  std::function<std::string()> freshToken_;
  std::map<std::uint64_t, Upload> uploads_;
  std::uint64_t next_ = 1;
};

// 32 random bytes: an upload's token or ticket.
std::string freshUploadToken();

// Free bytes on the filesystem of `dir`, or why not known.
Result<std::uint64_t> freeBytes(const std::string& dir);

// Removes the uploads an earlier hnowd left in `dir`; how many.
std::size_t sweepUploads(const std::string& dir);

}  // namespace hnow::daemon
