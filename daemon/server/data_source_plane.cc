#include "server/data_source_plane.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/hex.h"
#include "transport/data/file_digest.h"

namespace hnow::daemon {

Result<SourceFile> DataSourcePlane::serveFile(const std::string& token, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{"cannot open " + path + ": " + std::strerror(errno)};
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return Error{path + " is not a regular file"};
  }
  auto digest = transport::data::sha256OfFile(fd);
  if (!digest) {
    ::close(fd);
    return Error{path + ": " + digest.error().message};
  }
  SourceFile file;
  file.size = static_cast<std::uint64_t>(info.st_size);
  const auto& bytes = digest.value();
  file.sha256Hex = hnow::hexOf(bytes.data(), bytes.size());
  file.sha256.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  plane_.addSource(token, fd, file.size);  // the plane owns the descriptor from here
  return file;
}

}  // namespace hnow::daemon
