#include "agent/startup_sweep.h"

#include <sys/stat.h>

#include <cctype>
#include <filesystem>
#include <set>
#include <utility>

#include "agent/job_files.h"
#include "agent/receive_records.h"
#include "base/path_confinement.h"
#include "transport/data/tree_bundle.h"

namespace hnow::agent {

namespace fs = std::filesystem;

bool isReceiveTempName(const std::string& name) {
  // "." + final name (cut to fit NAME_MAX, dest_path.cc) + ".hnow-" + 16 hex digits + ".part"
  const std::string marker = ".hnow-", end = ".part";
  const std::size_t tail = marker.size() + 16 + end.size();
  if (name.size() < tail + 2 || name[0] != '.') return false;
  const std::size_t at = name.size() - tail;
  if (name.compare(at, marker.size(), marker) != 0 || name.compare(name.size() - end.size(), end.size(), end) != 0)
    return false;
  for (std::size_t i = at + marker.size(); i < name.size() - end.size(); ++i)
    if (!std::isxdigit(static_cast<unsigned char>(name[i]))) return false;
  return true;
}

SweepResult sweepLeftovers(const std::vector<std::string>& roots) {
  SweepResult result;
  auto remove = [&result](const fs::path& path, std::size_t& count) {
    std::error_code error;
    if (fs::remove(path, error)) ++count;
    else if (error) result.errors.push_back(path.string() + ": " + error.message());
  };
  const fs::path jobs = roots.empty() ? fs::path() : fs::path(roots.front()) / kJobDir;
  std::error_code linkError;
  if (!roots.empty() && fs::is_symlink(jobs, linkError)) {
    result.errors.push_back(jobs.string() + " is a symlink: not swept");  // never empty a directory elsewhere
  } else if (!roots.empty()) {
    std::error_code error;
    for (const auto& e : fs::directory_iterator(jobs, error)) {
      std::error_code typeError;
      if (!e.is_regular_file(typeError) && !e.is_symlink(typeError)) continue;
      // A result with its outcome beside it (agent/job_runner.h restoreHeld), and that outcome: kept.
      const std::string name = e.path().filename().string();
      const bool outcome = name.size() > kOutcomeSuffix.size() && name.ends_with(kOutcomeSuffix);
      const fs::path pair = outcome ? jobs / name.substr(0, name.size() - kOutcomeSuffix.size()) : fs::path(e.path().string() + std::string(kOutcomeSuffix));
      std::error_code pairError;
      if (!e.is_symlink(typeError) && fs::is_regular_file(pair, pairError) && !fs::is_symlink(pair, pairError)) {
        ++result.resultsKept;
        continue;
      }
      remove(e.path(), result.jobFiles);
    }
  }
  // A receive's temp file with its record whole is kept for the next send of the same file; a record without one goes.
  std::set<std::pair<dev_t, ino_t>> keptTemps;
  if (!roots.empty()) {
    std::set<std::string> keptRecords;
    for (const ReceiveRecord& r : readReceiveRecords(roots.front())) {
      struct stat st {};
      const std::string temp = r.dir + "/" + r.temp;
      if (!isReceiveTempName(r.temp) || rootOf(roots, r.dir).empty() || ::lstat(temp.c_str(), &st) != 0 ||
          !S_ISREG(st.st_mode))
        continue;
      keptTemps.insert({st.st_dev, st.st_ino});
      keptRecords.insert(r.id() + ".receive");
      keptRecords.insert(r.id() + ".lists");
    }
    std::error_code error;
    for (const auto& e : fs::directory_iterator(fs::path(roots.front()) / kReceiveRecordDir, error))
      if (!keptRecords.count(e.path().filename().string())) remove(e.path(), result.receiveRecords);
    result.receivesKept = keptTemps.size();
  }
  for (const auto& root : roots) {
    std::error_code error;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error), end;
    for (; !error && it != end; it.increment(error)) {
      std::error_code typeError;
      const std::string name = it->path().filename().string();
      struct stat st {};
      if (it->is_regular_file(typeError) && !it->is_symlink(typeError) && isReceiveTempName(name)) {
        if (::lstat(it->path().c_str(), &st) == 0 && keptTemps.count({st.st_dev, st.st_ino})) continue;
        remove(it->path(), result.tempFiles);
      } else if (it->is_directory(typeError) && !it->is_symlink(typeError) &&
                 transport::data::isTreeStagingName(name)) {
        // A tree an unpack never published: remove_all removes symlinks inside, never what they point to.
        it.disable_recursion_pending();
        std::error_code removeError;
        if (fs::remove_all(it->path(), removeError) != static_cast<std::uintmax_t>(-1) && !removeError)
          ++result.stagingDirs;
        else
          result.errors.push_back(it->path().string() + ": " + removeError.message());
      }
    }
    if (error && error != std::errc::no_such_file_or_directory)
      result.errors.push_back("walking " + root + ": " + error.message());
  }
  return result;
}

}  // namespace hnow::agent
