#include "server/output_temps.h"

#include <fcntl.h>
#include <kj/io.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>

#include "server/run_paths.h"

namespace hnow::daemon {

namespace {
constexpr const char* kPrefix = "output-";
constexpr const char* kSuffix = ".temp";
}  // namespace

OutputTempMarker::OutputTempMarker(const std::string& jobsDir, std::uint64_t job, const std::string& dirPath,
                                   const std::string& tempName)
    : path_(jobsDir + "/" + kPrefix + std::to_string(job) + kSuffix) {
  std::error_code ignored;
  std::filesystem::create_directories(jobsDir, ignored);
  // Two lines: the directory, as --output named it, and the file's name.
  // A marker cut short by a crash names nothing the sweep would accept.
  std::ofstream(path_, std::ios::trunc) << dirPath << '\n' << tempName << '\n';
}

OutputTempMarker::~OutputTempMarker() { ::unlink(path_.c_str()); }

std::string outputTempName(const std::string& name, std::uint64_t job) {
  return "." + name + ".hnow-" + std::to_string(job) + ".part";
}

bool isOutputTempName(const std::string& name) {
  const std::string middle = ".hnow-", end = ".part";
  if (name.size() < 1 + 1 + middle.size() + 1 + end.size() || name[0] != '.') return false;
  if (name.compare(name.size() - end.size(), end.size(), end) != 0) return false;
  const std::size_t digitsEnd = name.size() - end.size();
  std::size_t digitsStart = digitsEnd;
  while (digitsStart > 0 && std::isdigit(static_cast<unsigned char>(name[digitsStart - 1]))) --digitsStart;
  if (digitsStart == digitsEnd || digitsStart < middle.size() + 2) return false;
  return name.compare(digitsStart - middle.size(), middle.size(), middle) == 0;
}

OutputTempSweep sweepOutputTemps(const std::string& jobsDir, const std::vector<std::string>& roots) {
  OutputTempSweep out;
  std::error_code error;
  for (std::filesystem::directory_iterator it(jobsDir, error), end; !error && it != end; it.increment(error)) {
    const std::string file = it->path().filename().string();
    if (file.rfind(kPrefix, 0) != 0 || file.size() <= std::string(kSuffix).size() ||
        file.compare(file.size() - std::string(kSuffix).size(), std::string::npos, kSuffix) != 0)
      continue;
    std::ifstream in(it->path());
    std::string dirPath, name;
    if (!std::getline(in, dirPath) || !std::getline(in, name) || !isOutputTempName(name)) {
      out.skipped.push_back(it->path().string() + ": not a marker hnowd wrote whole");
      continue;
    }
    // Reached as --output is, so never outside [run] roots or through a
    // symlinked directory, whatever the marker says.
    auto parent = openRunOutputDir(roots, dirPath + "/" + name);
    if (!parent) {
      out.skipped.push_back(dirPath + "/" + name + ": " + parent.error().message);
      continue;
    }
    const auto& confined = parent.value();
    const kj::AutoCloseFd closer(confined.dirFd);
    struct stat info {};
    if (::fstatat(confined.dirFd, confined.name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(info.st_mode) &&
        ::unlinkat(confined.dirFd, confined.name.c_str(), 0) == 0)
      out.removed.push_back(confined.dirPath + "/" + confined.name);
  }
  return out;
}

}  // namespace hnow::daemon
