#pragma once
// Files a client streams to hnowd (`hnow send` of a file hnowd cannot
// read, or of standard input): written under hnowd's data directory, kept
// for one send of the session that uploaded them, removed when that send
// ends, or with the session if no send took them.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "transport/control.capnp.h"

namespace hnow::daemon {

// Less than this free on hnowd's disk and an upload is refused.
inline constexpr std::uint64_t kUploadReserveBytes = 1ull << 30;
inline constexpr std::size_t kUploadWriteBytes = 256 * 1024;

// One client session's uploads, whole and not yet taken by a send.
class UploadShelf : public std::enable_shared_from_this<UploadShelf> {
 public:
  explicit UploadShelf(std::string dir) : dir_(std::move(dir)) {}
  ~UploadShelf();  // removes what no send took
  UploadShelf(const UploadShelf&) = delete;
  UploadShelf& operator=(const UploadShelf&) = delete;

  // Held by a shared_ptr (its sinks hold it weakly). An upload of `size` bytes (0: not known yet) begun: the sink the client
  // writes to, or why not (no room, no directory).
  Result<kj::Own<wire::Upload::Server>> begin(std::uint64_t size);
  // The upload's path, now the caller's (the send removes it); none for an
  // id this session did not upload or already sent.
  std::optional<std::string> take(std::uint64_t id);

  // The sink's side: a whole upload is shelved under a new id.
  std::uint64_t shelve(std::string path);
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::map<std::uint64_t, std::string> whole_;
  std::uint64_t next_ = 1;
};

// Free bytes on the filesystem of `dir`, or why not known.
Result<std::uint64_t> freeBytes(const std::string& dir);

// Removes the uploads an earlier hnowd left in `dir`; how many.
std::size_t sweepUploads(const std::string& dir);

}  // namespace hnow::daemon
