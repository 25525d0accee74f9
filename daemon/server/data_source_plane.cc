#include "server/data_source_plane.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <kj/async.h>
#include <openssl/sha.h>

#include "base/hex.h"
#include "transport/data/file_digest.h"
#include "transport/data/frame.h"

namespace hnow::daemon {

namespace {

// A file opened and hashed off the kj thread, to be served on it: the
// descriptor is the plane's once served, closed here when it never is
// (the send was given up, or hnowd stops first).
struct OpenedSource {
  SourceFile file;
  int fd = -1;
  std::vector<transport::data::ByteRange> ranges;  // a striped send's, tokens and digests
  transport::data::ChunkDigests digests;           // a whole file's chunk digests
  OpenedSource() = default;
  OpenedSource(OpenedSource&& o) noexcept
      : file(std::move(o.file)), fd(std::exchange(o.fd, -1)), ranges(std::move(o.ranges)), digests(std::move(o.digests)) {}
  OpenedSource& operator=(OpenedSource&&) = delete;
  ~OpenedSource() {
    if (fd >= 0) ::close(fd);
  }
};

// `chunkBytes`: also its chunk digests, to be served with them.
Result<OpenedSource> openHashed(const std::string& path, std::uint32_t chunkBytes = 0) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{"cannot open " + path + ": " + std::strerror(errno)};
  auto hashed = transport::data::hashedFile(fd, path, chunkBytes);
  if (!hashed) return hashed.error();
  OpenedSource out;
  out.fd = hashed->fd;
  out.file.size = hashed->size;
  if (!hashed->digests.empty()) {
    out.file.digestChunkBytes = hashed->digests.chunkBytes;
    out.file.pieceDigests = hashed->digests.pieceBytes();
    out.digests = std::move(hashed->digests);
  }
  const auto& bytes = hashed->sha256;
  out.file.sha256Hex = hnow::hexOf(bytes.data(), bytes.size());
  out.file.sha256.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return out;
}

Result<OpenedSource> openStriped(const std::string& path, std::uint64_t size, const std::vector<StripeCut>& stripes,
                                 std::uint32_t chunkBytes) {
  OpenedSource out;
  out.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (out.fd < 0) return Error{"cannot open " + path + ": " + std::strerror(errno)};
  struct stat info {};
  if (::fstat(out.fd, &info) != 0 || !S_ISREG(info.st_mode) || static_cast<std::uint64_t>(info.st_size) != size)
    return Error{path + " changed while the send was planned (it is not " + std::to_string(size) +
                 " bytes any more); run the send again"};
  std::vector<std::uint64_t> ends;
  for (const StripeCut& s : stripes) ends.push_back(s.offset + s.length);
  auto digests = transport::data::sha256OfRanges(out.fd, ends, chunkBytes);
  if (!digests) return Error{path + ": " + digests.error().message};
  out.file.size = size;
  out.file.sha256.assign(reinterpret_cast<const char*>(digests->whole.data()), 32);
  out.file.sha256Hex = hnow::hexOf(digests->whole.data(), 32);
  for (std::size_t k = 0; k < stripes.size(); ++k) {
    const auto& d = digests->ranges[k];
    out.file.stripeSha256.emplace_back(reinterpret_cast<const char*>(d.data()), 32);
    out.file.stripeSha256Hex.push_back(hnow::hexOf(d.data(), 32));
    out.file.stripePieceDigests.push_back(digests->rangeChunks[k].pieceBytes());
    out.ranges.push_back({stripes[k].token, stripes[k].offset, stripes[k].length, d, std::move(digests->rangeChunks[k])});
  }
  out.file.digestChunkBytes = chunkBytes;
  return out;
}

}  // namespace

void DataSourcePlane::serveFile(const std::string& token, const std::string& path, Served done) {
  work_.run<Result<OpenedSource>>([path] { return openHashed(path, transport::data::kChunkBytes); },
                                  [this, token, done](Result<OpenedSource>& opened) {
                                    if (!opened) return done(opened.error());
                                    // The plane owns the descriptor from here.
                                    plane_.addSource(token, std::exchange(opened.value().fd, -1), opened->file.size,
                                                     std::move(opened.value().digests));
                                    done(opened->file);
                                  });
}

void DataSourcePlane::hashFile(const std::string& path, Served done) {
  work_.run<Result<SourceFile>>(
      [path]() -> Result<SourceFile> {
        auto opened = openHashed(path);  // closed with `opened`
        if (!opened) return opened.error();
        return opened->file;
      },
      [done](Result<SourceFile>& file) { done(file); });
}

Result<std::uint64_t> DataSourcePlane::sizeOf(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return Error{"cannot open " + path + ": " + std::strerror(errno)};
  if (!S_ISREG(info.st_mode)) return Error{path + " is not a regular file"};
  return static_cast<std::uint64_t>(info.st_size);
}

void DataSourcePlane::serveStripes(const std::string& token, const std::string& path, std::uint64_t size,
                                   const std::vector<StripeCut>& stripes, std::uint32_t chunkBytes, Served done) {
  // The stripes' chunk digests cut the chunks they are relayed in.
  const std::uint32_t digestChunk = chunkBytes == 0 ? transport::data::kChunkBytes : chunkBytes;
  work_.run<Result<OpenedSource>>([path, size, stripes, digestChunk] { return openStriped(path, size, stripes, digestChunk); },
                                  [this, token, chunkBytes, done](Result<OpenedSource>& opened) {
                                    if (!opened) return done(opened.error());
                                    plane_.addSourceRanges(token, std::exchange(opened.value().fd, -1),
                                                           std::move(opened.value().ranges), chunkBytes);
                                    done(opened->file);
                                  });
}

bool DataSourcePlane::startReceive(const std::string& token, std::uint64_t size, const std::string& sha256,
                                   const std::string& path, Receive receive) {
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  transport::data::ReceiveTarget target;
  target.dirFd = ::open(dir.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  target.tempName = "." + name + ".part";
  target.finalName = name;
  target.path = path;
  target.fileFd = target.dirFd < 0 ? -1
                                   : ::openat(target.dirFd, target.tempName.c_str(),
                                              O_CREAT | O_TRUNC | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0644);
  // A client's upload (sha256 empty): the shelf compares the digest taken
  // as it landed with the client's; its chunk digests are those hnowd
  // serves it to agents under, so the send starts without reading it. It
  // is scratch, served from the page cache and removed when its send ends
  // (and swept if hnowd stops first): not synced to the disk before it is
  // served, which on a busy disk took seconds a GiB.
  const bool upload = sha256.empty();
  target.digestKnown = !upload;
  target.durable = !upload;
  target.cutChunkBytes = upload ? transport::data::kChunkBytes : 0;
  if (target.fileFd < 0 || (!upload && sha256.size() != 32)) {
    if (target.dirFd >= 0) ::close(target.dirFd);
    // Answered on the next turn, never from inside the caller's own call.
    kj::evalLater([done = std::move(receive.done), name]() { done(Error{"cannot receive " + name + " at hnowd"}); })
        .detach([](kj::Exception&&) {});
    return false;
  }
  transport::data::Sha256 expected{};
  if (!upload) std::copy(sha256.begin(), sha256.end(), expected.begin());
  receiving_[token] = std::move(receive);
  plane_.receive(token, size, expected, std::move(target));
  return true;
}

void DataSourcePlane::receiveFile(const std::string& token, std::uint64_t size, const std::string& sha256,
                                  const std::string& path, const std::string& from, Received done) {
  if (startReceive(token, size, sha256, path, {path, std::move(done), {}})) plane_.pull(token, from);
}

void DataSourcePlane::receiveOffered(const std::string& token, const std::string& ticket, std::uint64_t size,
                                     const std::string& sha256, const std::string& path, Lost lost, Received done) {
  if (startReceive(token, size, sha256, path, {path, std::move(done), std::move(lost)}))
    plane_.awaitOffer(token, ticket);
}

void DataSourcePlane::onTransfer(const transport::data::TransferEvent& e) {
  using Kind = transport::data::TransferEvent::Kind;
  // hnowd pulls from the one agent that holds it: a parent it cannot
  // connect to has no stand-in, so that receive fails (the job gives the
  // share to another agent) instead of waiting for ever.
  auto it = receiving_.find(e.token);
  if (it == receiving_.end()) return;
  // An agent that dialed in and lost its connection dials again when asked;
  // one that served corrupt bytes is the only source there is: that receive fails.
  if (it->second.lost && e.kind == Kind::kParentLost) {
    Lost lost = it->second.lost;  // a copy: it may release the receive, and with it the original
    return lost(e.message);
  }
  if (e.kind == Kind::kParentLost) {
    Receive& r = it->second;
    r.lostTimes = r.lostTimes > 0 && e.bytes == r.lostAt ? r.lostTimes + 1 : 1;
    r.lostAt = e.bytes;
    if (r.lostTimes < kPullTries) return;  // the data plane tries again
    Receive receive = std::move(r);
    receiving_.erase(it);
    plane_.release(e.token);
    return receive.done(Error{"the agent's data plane closed the pull " + std::to_string(kPullTries) +
                              " times in a row at byte " + std::to_string(e.bytes) + " (" + e.message + ")"});
  }
  const bool belied = it->second.lost && e.kind == Kind::kParentCorrupt;
  if (e.kind != Kind::kDone && e.kind != Kind::kFailed && e.kind != Kind::kParentUnreachable && !belied) return;
  Receive receive = std::move(it->second);
  receiving_.erase(it);
  if (e.kind == Kind::kDone) receive.done(receive.path);
  else if (belied) {
    plane_.release(e.token);
    receive.done(Error{"the agent served bytes that differ from its result's digests (" + e.message + ")"});
  } else if (e.kind == Kind::kParentUnreachable) {
    plane_.release(e.token);
    receive.done(Error{"cannot connect to the agent's data plane at " + e.parent + " (" + e.message + ")"});
  } else {
    receive.done(Error{e.message});
  }
}

void DataSourcePlane::release(const std::string& token) {
  receiving_.erase(token);
  rangesWanted_.erase(token);  // a range still waiting to be hashed is dropped then
  plane_.release(token);
}

}  // namespace hnow::daemon
