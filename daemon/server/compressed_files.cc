// DataSourcePlane's compression (docs/compression.md), and what the plane
// keeps across sends: a send's file is sampled on the control thread
// (milliseconds), and compressed on a thread of its own into `<data_dir>/trees/<pid>-<n>.zst`, which is then served as
// any file and removed when the send ends (dropScratch).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <spdlog/spdlog.h>

#include "server/data_source_plane.h"
#include "transport/data/zstd_file.h"

namespace hnow::daemon {

namespace {

// `size` bytes at `path` compressed into the new file `out` (removed on failure).
Result<CompressedSource> compressInto(const std::string& path, std::uint64_t size, const std::string& out) {
  const auto began = std::chrono::steady_clock::now();
  const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return Error{"cannot open " + path + ": " + std::strerror(errno)};
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    const std::string why = std::strerror(errno);
    ::close(in);
    return Error{"cannot create " + out + ": " + why};
  }
  auto compressed = transport::data::compressFile(in, size, fd);
  ::close(in);
  // Not synced: it is read back from the page cache and removed when the send ends.
  if (::close(fd) != 0 && compressed) compressed = Error{"cannot write " + out + ": " + std::strerror(errno)};
  if (!compressed) {
    ::unlink(out.c_str());
    return compressed.error();
  }
  const auto& sha = compressed->plainSha256;
  return CompressedSource{out, compressed->compressedSize, compressed->plainSize,
                          std::string(reinterpret_cast<const char*>(sha.data()), sha.size()),
                          std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count()};
}

}  // namespace

DataSourcePlane::DataSourcePlane(transport::data::DataPlane& plane, std::string bundleDir)
    : plane_(plane), bundleDir_(std::move(bundleDir)), digests_(std::make_shared<Digests>()),
      keptFiles_(bundleDir_ + "/kept-files") {}

DataSourcePlane::~DataSourcePlane() = default;

std::string DataSourcePlane::newScratchPath(const char* extension) {
  return bundleDir_ + "/" + std::to_string(::getpid()) + "-" + std::to_string(nextBundle_++) + extension;
}

Result<CompressionSample> DataSourcePlane::sampleCompression(const std::string& path, std::uint64_t size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{"cannot open " + path + ": " + std::strerror(errno)};
  auto sample = transport::data::sampleRatio(fd, size);
  ::close(fd);
  if (!sample) return sample.error();
  return CompressionSample{sample->ratio, sample->bytesPerSecond};
}

void DataSourcePlane::compressFile(const std::string& path, std::uint64_t size, Compressed done) {
  std::error_code error;
  std::filesystem::create_directories(bundleDir_, error);
  if (error) return done(Error{"cannot create " + bundleDir_ + " for the compressed file: " + error.message()});
  const std::string out = newScratchPath(".zst");
  work_.run<Result<CompressedSource>>([path, size, out] { return compressInto(path, size, out); },
                                      [done](Result<CompressedSource>& compressed) { done(compressed); });
}

}  // namespace hnow::daemon
