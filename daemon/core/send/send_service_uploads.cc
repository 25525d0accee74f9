// SendService's sends of what a client uploaded (docs/tree-send.md, "From
// the client's machine", "Kept files"): a file kept as hnowd's copy of it,
// a directory unpacked over hnowd's copy of it or into a scratch
// directory, and the same sends run again from those copies after a
// restart (sends_under_way.h).
#include <spdlog/spdlog.h>

#include "core/send/send_service.h"

namespace hnow::daemon {

namespace {

// Why a send run again from a kept copy does not run: that copy is not
// the one it was for (kKeptCopyChanged begins it: the record ends "interrupted").
Error keptCopyChanged(const std::string& what, const std::string& detail) {
  return Error{std::string(kKeptCopyChanged) + " (" + detail + "); it was not sent again: send the " + what +
               " again"};
}

}  // namespace

void SendService::startKeptFile(SendRequest request, Started started) {
  // The client's file, sent from hnowd's kept copy of its last upload:
  // this upload, kept first, or, with none, the copy as it was kept.
  auto from = [this, request, started](const Result<SourcePlane::KeptFile>& file) mutable {
    if (!file) return started(file.error());
    request.path = file->path;
    request.scratch = true;  // hnowd's own file: neither pinned nor checked against [send] roots
    request.keptCopy = file->kept;  // else the upload itself, dropped when the send ends
    if (file->kept)
      request.scratchSource = std::shared_ptr<const void>(
          nullptr, [plane = &plane_, path = file->path](const void*) { plane->releaseKeptFile(path); });
    begin(std::move(request), std::move(started));
  };
  if (request.upload == 0) {
    auto kept = plane_.useKeptFile(request.uploadKey, request.uploadStamp);
    // Run again under its record after a restart: the copy it sent was replaced or dropped since.
    if (!kept && request.record != 0)
      return started(keptCopyChanged("file", "another upload of the file replaced it, or hnowd dropped it to keep "
                                             "the files sent most recently"));
    if (!kept) return started(kept.error());
    return from(SourcePlane::KeptFile{*kept, true});
  }
  plane_.keepFile(request.uploadKey, request.uploadStamp, request.path, from);
}

void SendService::startUploadedTree(SendRequest request, Started started) {
  // The client's directory, as the bundle it packed: unpacked here, then
  // sent as any directory (only what each agent lacks moves).
  request.uploadIsTree = false;
  request.uploadedTree = true;
  const std::string bundle = request.path;
  // With a key, only what hnowd's kept copy lacked: unpacked over it, kept after the send.
  const bool kept = !request.uploadKey.empty();
  auto unpacked = [this, request, started, kept](const Result<std::string>& dir) mutable {
    if (!dir) return started(dir.error());
    request.path = *dir;
    request.scratch = true;
    request.scratchSource = std::shared_ptr<const void>(nullptr, [plane = &plane_, path = *dir, kept](const void*) {
      kept ? plane->releaseKept(path) : plane->dropScratch(path);
    });
    if (!kept) return begin(std::move(request), std::move(started));
    // The copy's listing as this send reads it: what a restarted hnowd
    // checks before it sends the copy again (startKeptTree).
    plane_.listTree(*dir, [this, request, started](const Result<std::string>& listing) mutable {
      if (listing) request.keptTree = *listing;
      else
        spdlog::warn("send of {}: cannot list hnowd's copy of it ({}): should hnowd stop, the send does not run again",
                     request.uploadedFrom, listing.error().message);
      begin(std::move(request), std::move(started));
    });
  };
  if (kept) return plane_.unpackKept(request.uploadKey, bundle, unpacked);
  plane_.unpackUpload(bundle, unpacked);
}

void SendService::startKeptTree(SendRequest request, Started started) {
  plane_.useKeptTree(request.uploadKey, request.keptTree,
                     [this, request, started](const Result<std::string>& dir) mutable {
                       if (!dir) return started(keptCopyChanged("directory", dir.error().message));
                       request.path = *dir;
                       request.scratch = true;
                       request.uploadedTree = true;
                       request.scratchSource = std::shared_ptr<const void>(
                           nullptr, [plane = &plane_, path = *dir](const void*) { plane->releaseKept(path); });
                       begin(std::move(request), std::move(started));
                     });
}

}  // namespace hnow::daemon
