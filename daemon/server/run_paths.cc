#include "server/run_paths.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hnow::daemon {

namespace {

// A relative path would land under the first root; the CLI always sends
// absolute ones, so a relative one is a client's mistake, not a default.
Result<void> checkAbsolute(const char* option, const std::string& path) {
  if (path.empty() || path.front() == '/') return {};
  return Error{std::string(option) + " " + path + " is not an absolute path" + kRunRootsHint};
}

// A confinement refusal says how to fix it; a missing directory does not need to.
std::string refusal(const char* option, const std::string& path, const std::string& why) {
  const bool missing = why.rfind("cannot ", 0) == 0;
  return (missing ? "" : "refused ") + std::string(option) + " " + path + ": " + why + (missing ? "" : kRunRootsHint);
}

}  // namespace

Result<int> openRunInput(const std::vector<std::string>& roots, const std::string& input) {
  if (auto absolute = checkAbsolute("--input", input); !absolute) return absolute.error();
  auto opened = hnow::openConfinedParent(roots, input, {"--input path", "--input", "read --input from", "hnowd"},
                                          false);
  if (!opened) return Error{refusal("--input", input, opened.error().message)};
  auto& [dir, dirPath, name] = opened.value();
  // O_NONBLOCK: a FIFO named as --input must not hang hnowd (it is refused as not a regular file).
  int fd = ::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  int error = errno;
  ::close(dir);
  if (fd >= 0) return fd;
  if (error == ELOOP)
    return Error{"refused --input " + input + ": " + dirPath + "/" + name + " is a symlink" + kRunRootsHint};
  return Error{"cannot open --input " + input + ": " + std::strerror(error)};
}

Result<ConfinedParent> openRunOutputDir(const std::vector<std::string>& roots, const std::string& output) {
  if (auto absolute = checkAbsolute("--output", output); !absolute) return absolute.error();
  auto opened = hnow::openConfinedParent(
      roots, output, {"--output path", "--output", "write --output under", "hnowd"}, false);
  if (!opened) return Error{refusal("--output", output, opened.error().message)};
  return opened;
}

}  // namespace hnow::daemon
