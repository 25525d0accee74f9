#include "agent/source_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "agent/path_parts.h"
#include "transport/data/file_digest.h"

namespace hnow::agent {

std::variant<SourceFile, std::string> openSourceFile(const std::vector<std::string>& roots,
                                                     const std::string& file) {
  if (roots.empty()) return std::string("this agent has no roots to read from");
  if (file.empty()) return std::string("the source file is empty");
  std::vector<std::string> parts = componentsOf(file);
  for (const auto& p : parts)
    if (p == "..") return "'..' is not allowed in a source file (" + file + ")";
  if (parts.empty() || file.back() == '/') return "the source must name a file, not a directory (" + file + ")";

  std::string root;
  if (file.front() != '/') {
    root = realRoot(roots.front());
    if (root.empty()) return std::string("the agent's data root does not exist");
  } else {
    for (const auto& r : roots) {
      std::vector<std::string> rootParts = componentsOf(r), realParts = componentsOf(realRoot(r));
      for (const auto* candidate : {&rootParts, &realParts}) {
        if (candidate->empty() || candidate->size() >= parts.size()) continue;
        if (std::equal(candidate->begin(), candidate->end(), parts.begin())) {
          root = realRoot(r);
          parts.erase(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(candidate->size()));
          break;
        }
      }
      if (!root.empty()) break;
    }
    if (root.empty()) return file + " is outside this agent's roots";
  }

  int dir = ::open(root.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if (dir < 0) return "cannot open the root " + root + ": " + std::strerror(errno);
  std::string path = root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    int next = ::openat(dir, parts[i].c_str(), O_DIRECTORY | O_NOFOLLOW | O_RDONLY | O_CLOEXEC);
    int error = errno;
    ::close(dir);
    if (next < 0)
      return error == ELOOP || error == ENOTDIR
                 ? path + "/" + parts[i] + " is a symlink or not a directory: refused"
                 : "cannot open " + path + "/" + parts[i] + ": " + std::strerror(error);
    dir = next;
    path += "/" + parts[i];
  }
  path += "/" + parts.back();
  int fd = ::openat(dir, parts.back().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  int error = errno;
  ::close(dir);
  if (fd < 0)
    return error == ELOOP ? path + " is a symlink: refused"
                          : "cannot open " + path + ": " + std::strerror(error);
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return path + " is not a regular file";
  }
  auto digest = transport::data::sha256OfFile(fd);
  if (auto* problem = std::get_if<std::string>(&digest)) {
    ::close(fd);
    return path + ": " + *problem;
  }
  return SourceFile{fd, static_cast<std::uint64_t>(info.st_size), std::get<0>(digest)};
}

}  // namespace hnow::agent
