// JobRunner's tasks beyond the call that started them (agent/job_runner.h):
// a task's end is followed here, its outcome kept and handed to whoever
// asks (the call that started it, or a restarted hnowd: awaitJobTask); a
// restarted hnowd names the files it still counts on (keepOnly); and an
// ended task's outcome is written beside its result, so that this agent,
// started again, gives the result back (restoreHeld).
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "agent/job_files.h"
#include "agent/job_runner.h"
#include "agent/receiver.h"
#include "agent/whole_file.h"
#include "base/hex.h"

namespace hnow::agent {

void JobRunner::ended(const std::string& resultToken, Result<TaskOutcome> outcome, bool keep) {
  if (outcome && keep) {
    outcomes_[resultToken] = *outcome;
    if (outcome->ended.ok()) writeOutcome(resultToken, *outcome);
  }
  auto [from, to] = waiting_.equal_range(resultToken);
  for (auto it = from; it != to; ++it) it->second->fulfill(held(Result<TaskOutcome>(outcome)));
  waiting_.erase(from, to);
}

void JobRunner::writeOutcome(const std::string& resultToken, const TaskOutcome& outcome) {
  if (holder_.empty()) return;
  const std::string path = pathFor(resultToken) + std::string(kOutcomeSuffix);
  const std::string sha = hnow::hexOf(reinterpret_cast<const unsigned char*>(outcome.sha256.data()), outcome.sha256.size());
  char numbers[160];
  std::snprintf(numbers, sizeof numbers, "%llu %s %.6f %.6f\n", static_cast<unsigned long long>(outcome.size),
                sha.c_str(), outcome.computeS, outcome.runS);
  const std::string text = holder_ + "\n" + numbers;
  if (!writeWhole(path, text, 0644))
    spdlog::warn("cannot keep a share's outcome beside its result ({}): a restart of this agent computes it again",
                 std::strerror(errno));
}

std::string JobRunner::restoreHeld() {
  std::string holder;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() != 64 + kOutcomeSuffix.size() || !name.ends_with(kOutcomeSuffix)) continue;
    std::string token(32, '\0'), digest(32, '\0'), line, sha;
    auto bytes = [](std::string& s) { return reinterpret_cast<unsigned char*>(s.data()); };
    std::ifstream in(entry.path());
    TaskOutcome outcome;
    if (!hnow::bytesOfHex(name.substr(0, 64), bytes(token), 32) || !std::getline(in, line) ||
        !(in >> outcome.size >> sha >> outcome.computeS >> outcome.runS) || sha.size() != 64 ||
        !hnow::bytesOfHex(sha, bytes(digest), 32))
      continue;
    const std::string result = dir_ + "/" + name.substr(0, 64);
    std::error_code sizeError;
    if (std::filesystem::file_size(result, sizeError) != outcome.size || sizeError) continue;
    outcome.exitCode = 0;
    outcome.sha256 = digest;
    files_[token] = result;
    tasks_.insert(token);
    outcomes_[token] = outcome;
    holder = line;
  }
  if (!outcomes_.empty()) spdlog::info("holding {} share result(s) this agent computed before it restarted", outcomes_.size());
  return holder;
}

LaterResult<TaskOutcome> JobRunner::outcome(const std::string& resultToken) {
  if (auto it = outcomes_.find(resultToken); it != outcomes_.end()) return held(Result<TaskOutcome>(it->second));
  if (!tasks_.count(resultToken) || !files_.count(resultToken))
    return held(Result<TaskOutcome>::failure("this agent runs no task under that token (dropped, or never started)"));
  auto paf = kj::newPromiseAndFulfiller<kj::Own<Result<TaskOutcome>>>();
  waiting_.emplace(resultToken, kj::mv(paf.fulfiller));
  return kj::mv(paf.promise);
}

void JobRunner::serveResultsAgain() {
  for (const auto& [token, outcome] : outcomes_) {
    auto file = files_.find(token);
    if (!outcome.ended.ok() || file == files_.end()) continue;
    int fd = ::open(file->second.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      spdlog::warn("cannot reopen the result {}: {}", file->second, std::strerror(errno));
      continue;
    }
    receiver_.serve(token, fd, outcome.size);
  }
}

std::vector<JobRunner::HeldFile> JobRunner::endedTasks() const {
  std::vector<HeldFile> out;
  for (const auto& [token, outcome] : outcomes_)
    if (outcome.ended.ok() && files_.count(token)) out.push_back({token, true, true});
  return out;
}

std::vector<JobRunner::HeldFile> JobRunner::keepOnly(const std::vector<std::string>& tokens) {
  const std::set<std::string> keep(tokens.begin(), tokens.end());
  std::vector<std::string> others;
  std::vector<HeldFile> kept;
  for (const auto& [token, path] : files_) {
    if (!keep.count(token)) others.push_back(token);
    else if (!fetching_.count(token)) kept.push_back({token, tasks_.count(token) > 0, outcomes_.count(token) > 0});
  }
  if (!others.empty()) spdlog::info("dropping {} job file(s) hnowd no longer counts on", others.size());
  if (!kept.empty()) spdlog::info("keeping {} job file(s) for the restarted hnowd", kept.size());
  drop(others);
  return kept;
}

void JobRunner::taskFailed(kj::Exception&& exception) {
  spdlog::error("following a job task's end: {}", exception.getDescription().cStr());
}

}  // namespace hnow::agent
