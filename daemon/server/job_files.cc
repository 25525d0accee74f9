// A job's tokens, and its --input read whole.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "server/job_state.h"
#include "transport/auth.h"

namespace hnow::daemon {

std::string freshJobToken() {
  auto nonce = transport::freshNonce();
  return std::string(nonce.begin(), nonce.end());
}

Result<std::string> readWholeInput(int fd, const std::string& path) {
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return Error{"--input " + path + " is not a regular file"};
  std::string content(static_cast<std::size_t>(info.st_size), '\0');
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::read(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (done != content.size()) return Error{"cannot read --input " + path};
  return content;
}

}  // namespace hnow::daemon
