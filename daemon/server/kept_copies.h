#pragma once
// What hnowd's kept copies of clients' uploads share, trees
// (kept_trees.cc) and files (kept_files.h) alike: a copy is named by the
// SHA-256 of its key (operator, client host and path: no client text
// reaches a file name), and the copies used least recently go first past
// a bound, each marked used by a small file's mtime.
#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "base/hex.h"
#include "transport/data/chunk_digests.h"

namespace hnow::daemon {

inline std::string keptName(const std::string& key) {
  const transport::data::Sha256 digest = transport::data::sha256Of(key);
  return hexOf(digest.data(), digest.size());
}

// The files in `dir` ending in `suffix` past the `keep` written most
// recently: what the bound evicts, the most recently used first.
inline std::vector<std::filesystem::path> usedPast(const std::filesystem::path& dir, const std::string& suffix,
                                                   std::size_t keep) {
  std::vector<std::pair<std::filesystem::file_time_type, std::filesystem::path>> used;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error))
    if (entry.path().extension() == suffix) used.emplace_back(entry.last_write_time(error), entry.path());
  std::vector<std::filesystem::path> past;
  if (used.size() <= keep) return past;
  std::sort(used.begin(), used.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = keep; k < used.size(); ++k) past.push_back(std::move(used[k].second));
  return past;
}

}  // namespace hnow::daemon
