// `hnow send FILE` from wherever the operator is (docs/tree-send.md, "From
// the client's machine"; docs/send.md): what hnowd does not see at the
// client's path is uploaded first, a directory as a tree's bundle of only
// the files hnowd's kept copy of it lacks.
#include "cli/send_upload.h"

#include <fcntl.h>
#include <openssl/sha.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "base/hex.h"
#include "base/printable.h"
#include "cli/number_format.h"
#include "cli/upload_offer.h"
#include "transport/data/tree_bundle.h"
#include "transport/data/tree_digest_file.h"
#include "transport/data/tree_query.h"
#include "transport/data/tree_walk.h"

namespace hnow::cli {

namespace {

// Why hnowd is sent the client's bytes: it does not see them at that path
// (another machine), or does not read there ([send] roots).
std::string unseenWhy(const CoordinatorClient::Sight& seen) {
  return seen.why.empty() ? "does not see it at that path" : "does not read it there: " + seen.why;
}

// Where the client keeps the digests of the directory `path` between sends
// (tree_digest_file.h): $XDG_CACHE_HOME/hnow/trees, else ~/.cache/hnow/trees,
// one file per directory; "" when neither is set (then hashed every time).
std::string treeDigestFile(const std::string& path) {
  std::string base;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
    base = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home == '/')
    base = std::string(home) + "/.cache";
  if (base.empty()) return "";
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(path.data()), path.size(), digest);
  return base + "/hnow/trees/" + hexOf(digest, sizeof digest);
}

// What hnowd's kept copy of the directory under `key` lacks (SourcePlane::
// keptHeld), both rounds as hnowd asks its agents: `send` marks the files
// to upload, `byDigest` those held with another mtime (their digest goes
// in the bundle, so hnowd checks them again).
Result<void> askKept(CoordinatorClient& client, const std::string& key, const transport::data::ScannedTree& scan,
                     std::vector<bool>& send, std::vector<bool>& byDigest) {
  auto ask = [&](const transport::data::QueryParts& q, std::vector<std::size_t>* sameSize) -> Result<void> {
    for (std::size_t i = 0; i < q.parts.size(); ++i) {
      auto held = client.keptHeld(key, q.parts[i]);
      if (!held) return held.error();
      const auto& ordinals = q.ordinals[i];
      auto entry = [&](std::uint32_t o) -> std::int64_t { return o < ordinals.size() ? ordinals[o] : -1; };
      for (std::uint32_t o : held->missing)
        if (entry(o) >= 0) send[static_cast<std::size_t>(entry(o))] = true;
      if (sameSize)
        for (std::uint32_t o : held->sameSize)
          if (entry(o) >= 0) sameSize->push_back(static_cast<std::size_t>(entry(o)));
    }
    return {};
  };
  std::vector<std::size_t> all(scan.entries.size()), again;
  for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
  if (auto first = ask(transport::data::queryParts(scan, all, false), &again); !first) return first;
  if (again.empty()) return {};
  if (auto second = ask(transport::data::queryParts(scan, again, true), nullptr); !second) return second;
  for (std::size_t k : again) byDigest[k] = !send[k];
  return {};
}

// A directory hnowd does not list the same at that path (another
// machine): packed here into a tree's bundle in a temp file, then
// uploaded; hnowd unpacks it and sends that tree. hnowd keeps its copy
// (under this host and path), so the bundle carries only the files that
// copy lacks. What the pack leaves out is said here, since hnowd sees only
// the bundle. 0 when hnowd lists the same directory there (its own
// machine, a shared filesystem); `key` then stays empty.
Result<std::uint64_t> uploadTreeIfUnseen(CoordinatorClient& client, const std::string& dir, const std::string& path,
                                         std::string& key) {
  auto listing = transport::data::treeListingDigest(dir);
  if (!listing) return Error{"cannot read the directory " + dir + ": " + listing.error().message};
  auto seen = client.seesTree(path, *listing);
  if (!seen) return Error{"cannot ask hnowd about " + dir + ": " + seen.error().message};
  if (seen->same) return std::uint64_t{0};
  std::fprintf(stderr, "packing %s to upload it to hnowd, which %s...\n", dir.c_str(), unseenWhy(*seen).c_str());
  const std::string remembered = treeDigestFile(path);
  transport::data::TreeDigestCache digests =
      remembered.empty() ? transport::data::TreeDigestCache{} : transport::data::loadTreeDigests(remembered);
  auto scan = transport::data::scanTree(dir, digests);
  if (!scan) return Error{"cannot read the directory " + dir + ": " + scan.error().message};
  if (!remembered.empty())
    if (auto saved = transport::data::saveTreeDigests(remembered, path, *scan); !saved)
      std::fprintf(stderr, "hnow: cannot remember the digests of %s (the next send hashes it again): %s\n",
                   dir.c_str(), saved.error().message.c_str());
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  key = std::string(host) + ":" + path;
  std::vector<bool> send(scan->entries.size(), false), byDigest(scan->entries.size(), false);
  if (auto asked = askKept(client, key, *scan, send, byDigest); !asked) {
    std::fprintf(stderr, "hnow: uploading %s whole: %s\n", dir.c_str(), asked.error().message.c_str());
    key.clear();
    send.assign(send.size(), true);
    byDigest.assign(byDigest.size(), false);
  }
  auto temp = unlinkedTempFile();
  if (!temp) return Error{"cannot make a temp file to pack " + dir + " into: " + temp.error().message};
  const int fd = *temp;
  auto packed = transport::data::packTree(dir, *scan, send, byDigest, fd);
  if (!packed) {
    ::close(fd);
    return Error{"cannot pack " + dir + ": " + packed.error().message};
  }
  std::vector<transport::data::TreeProblem> refused = scan->refused;
  refused.insert(refused.end(), packed->refused.begin(), packed->refused.end());
  constexpr std::size_t kShown = 100;
  for (std::size_t k = 0; k < refused.size() && k < kShown; ++k)
    std::fprintf(stderr, "left out of %s: %s: %s\n", dir.c_str(), printable(refused[k].path).c_str(),
                 printable(refused[k].why).c_str());
  if (refused.size() > kShown)
    std::fprintf(stderr, "left out of %s: %zu more entries\n", dir.c_str(), refused.size() - kShown);
  const std::uint64_t files = scan->files - packed->refused.size();
  if (packed->files < files)
    std::fprintf(stderr, "uploading %s (%llu of its %llu files, %s; hnowd holds the rest from the last upload) to hnowd...\n",
                 dir.c_str(), static_cast<unsigned long long>(packed->files), static_cast<unsigned long long>(files),
                 bytesText(static_cast<double>(packed->size)).c_str());
  else
    std::fprintf(stderr, "uploading %s (%llu files, %s) to hnowd...\n", dir.c_str(),
                 static_cast<unsigned long long>(packed->files), bytesText(static_cast<double>(packed->size)).c_str());
  auto id = offerUpload(client, fd);
  ::close(fd);
  if (!id) return Error{"cannot upload " + dir + " to hnowd: " + id.error().message};
  return id;
}

// The client's stamp of the regular file described by `info`.
api::FileStamp stampOf(const struct stat& info) {
  auto ns = [](const timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; };
  return {static_cast<std::uint64_t>(info.st_size), ns(info.st_mtim), ns(info.st_ctim),
          static_cast<std::uint64_t>(info.st_ino)};
}

// A file hnowd does not see at that path: sent from hnowd's kept copy of
// its last upload from here (under this host and path) while the file
// still has that upload's stamp, else uploaded, to be kept in turn.
Result<void> uploadFileIfUnseen(CoordinatorClient& client, const std::string& file, const std::string& path,
                                const struct stat& info, api::SendRequest& request) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string key = std::string(host) + ":" + path;
  const api::FileStamp stamp = stampOf(info);
  auto seen = client.sees(path, stamp, key);
  if (!seen) return Error{"cannot ask hnowd about " + file + ": " + seen.error().message};
  if (seen->same) return {};
  if (seen->kept) {
    std::fprintf(stderr, "hnowd holds %s from the last upload (same size, mtime); not uploading it again\n",
                 file.c_str());
    request.uploadKey = key;
    request.uploadStamp = stamp;
    return {};
  }
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{"cannot read " + file + ": " + std::strerror(errno)};
  std::fprintf(stderr, "uploading %s (%s) to hnowd, which %s...\n", file.c_str(),
               bytesText(static_cast<double>(info.st_size)).c_str(), unseenWhy(*seen).c_str());
  auto id = offerUpload(client, fd);
  struct stat after {};
  const bool unchanged = ::fstat(fd, &after) == 0 && stampOf(after) == stamp;
  ::close(fd);
  if (!id) return Error{"cannot upload " + file + " to hnowd: " + id.error().message};
  request.upload = *id;
  // hnowd keeps it under this stamp only if no write came while it was read.
  if (unchanged) {
    request.uploadKey = key;
    request.uploadStamp = stamp;
  }
  return {};
}

}  // namespace

Result<void> uploadIfUnseen(CoordinatorClient& client, const std::string& file, api::SendRequest& request) {
  if (file == "-") {  // never kept: standard input has no stamp to find it by again
    if (::isatty(STDIN_FILENO)) return Error{"send - reads standard input; pipe a file or a tar into it"};
    std::fputs("uploading standard input to hnowd...\n", stderr);
    auto spooled = spoolStandardInput();
    if (!spooled) return Error{"cannot upload standard input to hnowd: " + spooled.error().message};
    auto id = offerUpload(client, *spooled);
    ::close(*spooled);
    if (!id) return Error{"cannot upload standard input to hnowd: " + id.error().message};
    request.upload = *id;
    return {};
  }
  struct stat info {};
  std::error_code error;
  const std::string path = std::filesystem::absolute(file, error).string();
  if (::stat(file.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    std::string key;
    auto id = uploadTreeIfUnseen(client, file, path, key);
    if (!id) return id.error();
    request.upload = *id;
    request.uploadIsTree = *id != 0;
    request.uploadKey = key;
    return {};
  }
  if (::stat(file.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return {};
  return uploadFileIfUnseen(client, file, path, info, request);
}

}  // namespace hnow::cli
