#include "agent/source_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/path_confinement.h"
#include "transport/data/file_digest.h"
#include "transport/data/frame.h"

namespace hnow::agent {

Result<SourceFile> openSourceFile(const std::vector<std::string>& roots, const std::string& file) {
  auto opened = openConfinedParent(roots, file, {"source file", "source", "read from"}, false);
  if (!opened) return opened.error();
  auto& [dir, dirPath, name] = opened.value();
  const std::string path = dirPath + "/" + name;
  int fd = ::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  int error = errno;
  ::close(dir);
  if (fd < 0)
    return Error{error == ELOOP ? path + " is a symlink: refused" : "cannot open " + path + ": " + std::strerror(error)};
  auto hashed = transport::data::hashedFile(fd, path, transport::data::kChunkBytes);
  if (!hashed) return hashed.error();
  return SourceFile{hashed->fd, hashed->size, hashed->sha256, std::move(hashed->digests)};
}

}  // namespace hnow::agent
