#include "agent/source_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/path_confinement.h"
#include "transport/data/file_digest.h"

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
  return SourceFile{fd, static_cast<std::uint64_t>(info.st_size), digest.value()};
}

}  // namespace hnow::agent
