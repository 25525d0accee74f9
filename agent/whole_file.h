#pragma once
// A small file an agent keeps for its next process (a share's outcome, a
// receive's record): written beside its path and renamed over it, so a
// crash leaves the old one or the new one, never a part.
#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace hnow::agent {

// `text` as the whole of `path`; false (errno says why, the temp removed) when it cannot be.
inline bool writeWhole(const std::string& path, const std::string& text, mode_t mode) {
  const std::string temp = path + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
  const bool written = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (fd >= 0) ::close(fd);
  if (written && ::rename(temp.c_str(), path.c_str()) == 0) return true;
  const int why = errno;
  ::unlink(temp.c_str());
  errno = why;
  return false;
}

}  // namespace hnow::agent
