// The files of a job on hnowd: shares written to be served, results joined,
// tokens and digests.
#include <fcntl.h>
#include <kj/io.h>
#include <openssl/sha.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "server/job_state.h"
#include "transport/auth.h"

namespace hnow::daemon {

std::string sha256Of(std::string_view bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  return std::string(reinterpret_cast<char*>(digest), sizeof digest);
}

// Writes `bytes` to `path` and opens it for the data plane to serve.
int writeServable(const std::string& path, std::string_view bytes) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  for (std::size_t done = 0; done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return -1;
    }
    done += static_cast<std::size_t>(n);
  }
  return fd;
}

bool appendFileTo(int out, const std::string& path, std::uint64_t& written) {
  int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  bool ok = in >= 0;
  std::vector<char> buffer(1 << 20);
  for (ssize_t n; ok && (n = ::read(in, buffer.data(), buffer.size())) != 0;) {
    if (n < 0) ok = errno == EINTR;
    for (ssize_t done = 0; ok && n > 0 && done < n;) {
      ssize_t w = ::write(out, buffer.data() + done, static_cast<std::size_t>(n - done));
      ok = w >= 0 || errno == EINTR;
      done += std::max<ssize_t>(w, 0);
      written += static_cast<std::uint64_t>(std::max<ssize_t>(w, 0));
    }
  }
  if (in >= 0) {
    int error = errno;
    ::close(in);
    errno = error;
  }
  return ok;
}

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
