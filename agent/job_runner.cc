#include "agent/job_runner.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "agent/command_process.h"
#include "agent/job_files.h"
#include "agent/receiver.h"
#include "base/hex.h"

namespace hnow::agent {

namespace {

constexpr std::size_t kStderrTail = 2000;

std::string hexToken(const std::string& token) {
  return hnow::hexOf(reinterpret_cast<const unsigned char*>(token.data()), token.size());
}

// SHA-256 of a whole file, or why not.
Result<std::string> sha256Of(int fd) {
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  EVP_DigestInit_ex(context, EVP_sha256(), nullptr);
  std::vector<char> buffer(1 << 20);
  off_t offset = 0;
  for (;;) {
    ssize_t n = ::pread(fd, buffer.data(), buffer.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      EVP_MD_CTX_free(context);
      return Error{"cannot read the result back"};
    }
    if (n == 0) break;
    EVP_DigestUpdate(context, buffer.data(), static_cast<std::size_t>(n));
    offset += n;
  }
  unsigned char digest[32];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context, digest, &length);
  EVP_MD_CTX_free(context);
  return std::string(reinterpret_cast<char*>(digest), 32);
}

bool appendFile(int out, const std::string& path) {
  int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return false;
  std::vector<char> buffer(1 << 20);
  for (;;) {
    ssize_t n = ::read(in, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(in);
      return n == 0;
    }
    for (ssize_t done = 0; done < n;) {
      ssize_t w = ::write(out, buffer.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        ::close(in);
        return false;
      }
      done += w;
    }
  }
}

std::string tailOf(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  struct stat info {};
  ::fstat(fd, &info);
  const off_t from = info.st_size > static_cast<off_t>(kStderrTail) ? info.st_size - static_cast<off_t>(kStderrTail) : 0;
  std::string text(static_cast<std::size_t>(info.st_size - from), '\0');
  ssize_t n = ::pread(fd, text.data(), text.size(), from);
  ::close(fd);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

// The running child's pid, known to the runner while it runs (to kill it at
// shutdown) and forgotten once it exited, before it is reaped (so a reused
// pid is never killed).
struct JobRunner::Worker {
  JobRunner* runner;
  std::string token;  // the task's result token
  int pid = 0;
  static void started(void* context, int pid) {
    auto* self = static_cast<Worker*>(context);
    std::lock_guard lock(self->runner->mutex_);
    self->pid = pid;
    self->runner->pids_.insert(pid);
    self->runner->running_[self->token] = pid;
    if (self->runner->dropped_.count(self->token)) killCommand(pid);  // dropped before it started
  }
  // Exited, not yet reaped: forgotten before its pid may be reused.
  static void ended(void* context) { static_cast<Worker*>(context)->forget(); }
  void forget() {
    std::lock_guard lock(runner->mutex_);
    runner->pids_.erase(pid);
    runner->running_[token] = 0;
    pid = 0;
  }
  ~Worker() { forget(); }
};

JobRunner::JobRunner(Receiver& receiver, std::string dataRoot, JobPolicy policy, std::string peer)
    : receiver_(receiver), dir_(std::move(dataRoot) + "/" + kJobDir), policy_(std::move(policy)),
      peer_(std::move(peer)) {}

JobRunner::~JobRunner() {
  {
    std::lock_guard lock(mutex_);
    for (int pid : pids_) killCommand(pid);
  }
  for (auto& t : threads_) t.first.join();
  for (const auto& [token, path] : files_) {
    receiver_.discard(token);
    // A result whose outcome is beside it stays, for this agent started
    // again to give back (restoreHeld); the start-up sweep keeps the pair.
    auto done = outcomes_.find(token);
    if (done != outcomes_.end() && done->second.ended.ok() && !holder_.empty()) continue;
    ::unlink(path.c_str());
  }
}

std::string JobRunner::pathFor(const std::string& token) const { return dir_ + "/" + hexToken(token); }

LaterResult<void> JobRunner::fetch(const std::string& token, std::uint64_t size,
                                   const transport::data::Sha256& sha256, const std::string& source) {
  if (!policy_.jobs().runsJobs()) return held(Result<void>(policy_.program({}, false).error()));
  if (files_.count(token) || fetching_.count(token)) return held(Result<void>::failure("this job file is already here"));
  // A share is not resumed by a restarted agent: hnowd reissues it.
  auto path = receiver_.receive(token, std::string(kJobDir) + "/" + hexToken(token), size, sha256, {}, "", false);
  if (!path) return held(Result<void>(path.error()));
  files_[token] = path.value();
  auto paf = kj::newPromiseAndFulfiller<kj::Own<Result<void>>>();
  fetching_[token] = kj::mv(paf.fulfiller);
  receiver_.pull(token, source);
  return kj::mv(paf.promise);
}

LaterResult<void> JobRunner::offer(const std::string& token, const std::string& ticket,
                                   const std::string& address) {
  // Only job files: a send's file is hnowd's to route, not a result to return.
  if (!files_.count(token) || fetching_.count(token))
    return held(Result<void>::failure("this agent holds no finished job file under that token"));
  spdlog::info("handing a job file to {} over a connection this agent opens (hnowd cannot connect to it)",
               address);
  return receiver_.offer(token, ticket, address);
}

bool JobRunner::onTransfer(const transport::data::TransferEvent& e) {
  auto it = fetching_.find(e.token);
  if (it == fetching_.end()) return files_.count(e.token) > 0;
  using Kind = transport::data::TransferEvent::Kind;
  if (e.kind == Kind::kDone) {
    files_[e.token] = e.path;
    it->second->fulfill(held(Result<void>()));
    fetching_.erase(it);
  } else if (e.kind == Kind::kFailed || e.kind == Kind::kParentUnreachable) {
    // A job file comes from hnowd's data plane alone: none other to try.
    it->second->fulfill(held(Result<void>::failure("fetching a job file failed: " + e.message)));
    fetching_.erase(it);
    files_.erase(e.token);
  }
  return true;
}

void JobRunner::setComputeFactor(double factor) {
  std::lock_guard<std::mutex> lock(factorMutex_);
  factorChanges_.push_back({std::chrono::steady_clock::now(), factor});
  if (factorChanges_.size() > 64) factorChanges_.erase(factorChanges_.begin());  // older than any run
}

double JobRunner::emulatedSeconds(std::chrono::steady_clock::time_point start,
                                  std::chrono::steady_clock::time_point end, double initial) {
  std::lock_guard<std::mutex> lock(factorMutex_);
  double total = 0, factor = initial;
  auto from = start;
  for (const auto& [at, f] : factorChanges_) {
    if (at <= start) continue;  // `initial` was read after it
    if (at >= end) break;
    total += std::max(factor, 1.0) * std::chrono::duration<double>(at - from).count();
    from = at;
    factor = f;
  }
  return total + std::max(factor, 1.0) * std::chrono::duration<double>(end - from).count();
}

void JobRunner::joinFinishedWorkers() {
  for (auto it = threads_.begin(); it != threads_.end();) {
    if (!it->second->load()) {
      ++it;
      continue;
    }
    it->first.join();
    it = threads_.erase(it);
  }
}

void JobRunner::runCommandOf(const Task& task, int in, int out, const std::string& errPath, int err,
                             TaskOutcome& outcome) {
  Worker worker{this, task.resultToken};
  const conf::JobsConfig& jobs = task.jobs;
  CommandSpec spec{task.program, task.argv, in, out, err, jobs.limits, jobs.nice, jobs.idle};
  CommandOutcome run = runCommand(spec, {&worker, &Worker::started, &Worker::ended});
  outcome.exitCode = run.exitCode;
  outcome.runS = run.wallSeconds;
  outcome.ended = run.ended;
  outcome.limited = run.limited;
  if (!run.ended && run.started) {
    std::string tail = tailOf(errPath);
    if (!tail.empty()) outcome.ended = Error{run.ended.error().message + ": " + tail};
  }
  const auto end = std::chrono::steady_clock::now();
  const auto start = end - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                               std::chrono::duration<double>(run.wallSeconds));
  const double emulated = run.started ? emulatedSeconds(start, end, task.computeFactor) : run.wallSeconds;
  if (emulated > run.wallSeconds) std::this_thread::sleep_for(std::chrono::duration<double>(emulated - run.wallSeconds));
  outcome.computeS = std::max(emulated, run.wallSeconds);
  if (outcome.ended.ok()) {
    struct stat info {};
    ::fstat(out, &info);
    outcome.size = static_cast<std::uint64_t>(info.st_size);
    if (auto digest = sha256Of(out)) outcome.sha256 = std::move(digest).value();
    else outcome.ended = digest.error();
  }
}

TaskOutcome JobRunner::execute(const Task& task) {
  TaskOutcome outcome;
  {
    std::lock_guard lock(mutex_);
    if (dropped_.count(task.resultToken)) outcome.ended = Error{"the task was dropped"};
  }
  // One input is the command's stdin as is; several are concatenated first.
  const bool joined = task.inputs.size() != 1;
  const std::string stdinPath = joined ? task.resultPath + ".in" : task.inputs[0];
  if (joined && outcome.ended.ok()) {
    int in = ::open(stdinPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = in >= 0;
    for (const auto& p : task.inputs) ok = ok && appendFile(in, p);
    if (in >= 0) ::close(in);
    if (!ok) outcome.ended = Error{"cannot join the task's inputs: " + std::string(std::strerror(errno))};
  }
  const bool proceed = outcome.ended.ok();
  int in = proceed ? ::open(stdinPath.c_str(), O_RDONLY | O_CLOEXEC) : -1;
  int out = proceed ? ::open(task.resultPath.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
  const std::string errPath = task.resultPath + ".err";
  int err = proceed ? ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
  if (outcome.ended.ok() && (in < 0 || out < 0 || err < 0))
    outcome.ended = Error{"cannot open the task's files: " + std::string(std::strerror(errno))};
  if (outcome.ended.ok()) runCommandOf(task, in, out, errPath, err, outcome);
  for (int fd : {in, out, err})
    if (fd >= 0) ::close(fd);
  ::unlink(errPath.c_str());
  if (joined) ::unlink(stdinPath.c_str());
  std::lock_guard lock(mutex_);
  running_.erase(task.resultToken);
  if (dropped_.erase(task.resultToken)) {  // its result is nobody's: created after the drop, or not
    ::unlink(task.resultPath.c_str());
    outcome.ended = Error{"the task was dropped"};
  }
  return outcome;
}

LaterResult<TaskOutcome> JobRunner::run(std::vector<std::string> inputs, std::vector<std::string> argv,
                                        std::string resultToken, double computeFactor, bool shell,
                                        std::uint64_t runId) {
  // The owner's word first: a refused command runs nothing and holds nothing here.
  auto program = policy_.program(argv, shell);
  if (!program) {
    spdlog::warn("refused a share of run {} from {}: {}", runId, peer_, program.error().message);
    TaskOutcome refused;
    refused.refused = true;
    refused.ended = program.error();
    return held(Result<TaskOutcome>(refused));
  }
  Task task{{}, std::move(argv), *program, resultToken, pathFor(resultToken), computeFactor, policy_.jobs()};
  for (const auto& token : inputs) {
    auto it = files_.find(token);
    if (it == files_.end() || fetching_.count(token))
      return held(Result<TaskOutcome>::failure("an input of this task is not here"));
    task.inputs.push_back(it->second);
  }
  if (files_.count(resultToken)) return held(Result<TaskOutcome>::failure("this result token is taken"));
  ::mkdir(dir_.c_str(), 0755);
  const std::string resultPath = task.resultPath;
  files_[resultToken] = resultPath;  // reserved; removed by drop()
  {
    std::lock_guard lock(mutex_);
    running_[resultToken] = 0;
  }
  auto paf = kj::newPromiseAndCrossThreadFulfiller<TaskOutcome>();
  joinFinishedWorkers();
  auto finished = std::make_shared<std::atomic<bool>>(false);
  // Held by a shared_ptr: kj::Own's destructor may throw, std::thread's state may not.
  auto fulfiller = std::make_shared<kj::Own<kj::CrossThreadPromiseFulfiller<TaskOutcome>>>(kj::mv(paf.fulfiller));
  std::thread worker([this, task = std::move(task), fulfiller, finished]() {
    (*fulfiller)->fulfill(execute(task));
    finished->store(true);
  });
  threads_.emplace_back(std::move(worker), finished);
  tasks_.insert(resultToken);
  ends_.add(paf.promise.then([this, resultToken, resultPath, runId](TaskOutcome outcome) {
    // Dropped meanwhile: execute() removed its files, and says so.
    if (!files_.count(resultToken)) return ended(resultToken, outcome, false);
    if (outcome.ended.ok()) {
      int fd = ::open(resultPath.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        outcome.ended = Error{"cannot reopen the result: " + std::string(std::strerror(errno))};
      } else {
        receiver_.serve(resultToken, fd, outcome.size);
      }
    }
    if (!outcome.ended)
      spdlog::warn("a share of run {} from {} failed: {}", runId, peer_, outcome.ended.error().message);
    ended(resultToken, outcome);
  }));
  return outcome(resultToken);
}

void JobRunner::dropAll() {
  {
    std::lock_guard lock(mutex_);
    for (int pid : pids_) killCommand(pid);
  }
  std::vector<std::string> tokens;
  for (const auto& [token, path] : files_) tokens.push_back(token);
  if (!tokens.empty()) spdlog::info("dropping {} job file(s) of hnowd's earlier session", tokens.size());
  drop(tokens);
}

void JobRunner::drop(const std::vector<std::string>& tokens) {
  for (const auto& token : tokens) {
    auto it = files_.find(token);
    if (it == files_.end()) continue;
    bool working = false;  // its worker answers once it has removed its files
    {
      std::lock_guard lock(mutex_);
      if (auto r = running_.find(token); r != running_.end()) {
        dropped_.insert(token);
        if (r->second > 0) killCommand(r->second);
        working = true;
      }
    }
    // A fetch may be renaming its file into place right now: the data
    // thread removes it after the rename, whichever comes first.
    receiver_.discard(token);
    ::unlink(it->second.c_str());
    ::unlink((it->second + std::string(kOutcomeSuffix)).c_str());
    if (auto f = fetching_.find(token); f != fetching_.end()) {
      f->second->fulfill(held(Result<void>::failure("the job file was dropped")));
      fetching_.erase(f);
    }
    files_.erase(it);
    tasks_.erase(token);
    outcomes_.erase(token);
    if (working) continue;
    TaskOutcome dropped;
    dropped.ended = Error{"the task was dropped"};
    ended(token, dropped, false);
  }
}

}  // namespace hnow::agent
