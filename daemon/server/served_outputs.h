#pragma once
// Files hnowd serves to one client session on its data plane (a run's
// result kept at hnowd, `hnow run` without --output): each under a fresh
// token handed over that authenticated session alone, the client dialing
// in to pull it with the data plane's checks. The reverse of an upload
// (server/uploads.h). Served until the session ends.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "core/send/source_plane.h"

namespace hnow::daemon {

class ServedOutputs : public std::enable_shared_from_this<ServedOutputs> {
 public:
  // At most this many files served to one session at once.
  static constexpr std::size_t kMaxServed = 8;

  // `plane` serves the files (null: none served); `freshToken` gives 32 random bytes.
  ServedOutputs(SourcePlane* plane, std::function<std::string()> freshToken)
      : plane_(plane), freshToken_(std::move(freshToken)) {}
  ~ServedOutputs();  // stops serving every file
  ServedOutputs(const ServedOutputs&) = delete;
  ServedOutputs& operator=(const ServedOutputs&) = delete;

  struct Grant {
    std::string token;
    SourceFile file;  // size, SHA-256 and the pieces' digests
  };
  // The file at `path` hashed and served; `done` once, later or at once, on
  // the caller's thread, with what the client needs to pull it or why not.
  // Held by a shared_ptr (the plane's answer holds it weakly).
  using Granted = std::function<void(const Result<Grant>& grant)>;
  void serve(const std::string& path, Granted done);

 private:
  SourcePlane* plane_;
  std::function<std::string()> freshToken_;
  std::vector<std::string> tokens_;
};

}  // namespace hnow::daemon
