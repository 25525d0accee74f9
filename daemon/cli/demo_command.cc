#include "cli/demo_command.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

#include "cli/local_processes.h"
#include "cli/text_file.h"

namespace hnow::cli {

namespace {

namespace fs = std::filesystem;

// The demo's lab (demo_command.h): per class, the site and Mbit/s up, down.
struct MachineClass {
  const char* site;
  double uplinkMbps;
  double downlinkMbps;
};
constexpr MachineClass kClasses[] = {{"new-wing", 400, 400}, {"new-wing", 100, 400}, {"old-wing", 50, 200}};
constexpr double kSourceUplinkMbps = 400;
constexpr const char* kAlgos[] = {"auto", "binomial", "chain", "flat"};

// Set by SIGINT/SIGTERM; the demo then stops its child and cleans up.
std::atomic<bool> interrupted{false};
extern "C" void onSignal(int) { interrupted = true; }

class SignalGuard {
 public:
  SignalGuard() {
    struct sigaction action {};
    action.sa_handler = onSignal;
    ::sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &oldInt_);
    ::sigaction(SIGTERM, &action, &oldTerm_);
  }
  ~SignalGuard() {
    ::sigaction(SIGINT, &oldInt_, nullptr);
    ::sigaction(SIGTERM, &oldTerm_, nullptr);
  }

 private:
  struct sigaction oldInt_ {}, oldTerm_ {};
};

// Runs `argv` in our process group (a Ctrl-C reaches it too), stdout to
// `outPath`, stderr to `errPath` or ours when empty. Returns its exit status;
// on an interrupt it is stopped and -1 returned.
int runChild(const std::vector<std::string>& argv, const std::string& outPath, const std::string& errPath) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int out = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err = errPath.empty() ? -1 : ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (out < 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out, 1);
    if (err >= 0) ::dup2(err, 2);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(out);
  if (err >= 0) ::close(err);
  if (pid < 0) return -1;
  int status = 0;
  for (;;) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return -1;
    if (interrupted) {
      ::kill(pid, SIGTERM);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string readWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The cluster's directory: `hnow local down` and removal when the demo ends,
// however it ends.
class ClusterGuard {
 public:
  ClusterGuard(std::string hnow, fs::path dir) : hnow_(std::move(hnow)), dir_(std::move(dir)) {}
  ~ClusterGuard() {
    const bool wasInterrupted = interrupted.exchange(false);  // let `down` run to its end
    runChild({hnow_, "local", "down", "--dir", (dir_ / "cluster").string()}, "/dev/null", "/dev/null");
    interrupted = wasInterrupted;
    std::error_code error;
    fs::remove_all(dir_, error);
  }
  const fs::path& dir() const { return dir_; }

 private:
  std::string hnow_;
  fs::path dir_;
};

class Sha256 {
 public:
  Sha256() : context_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(context_, EVP_sha256(), nullptr); }
  ~Sha256() { EVP_MD_CTX_free(context_); }
  void add(const char* data, std::size_t size) { EVP_DigestUpdate(context_, data, size); }
  std::string hex() {
    unsigned char digest[32];
    unsigned int length = 0;
    EVP_DigestFinal_ex(context_, digest, &length);
    char text[65];
    for (int i = 0; i < 32; ++i) std::snprintf(text + 2 * i, 3, "%02x", digest[i]);
    return text;
  }

 private:
  EVP_MD_CTX* context_;
};

// Random bytes (incompressible, like a real image), hashed as written.
std::string writeDemoFile(const fs::path& path, std::uint64_t size) {
  std::ofstream out(path, std::ios::binary);
  std::mt19937_64 random(size);
  std::vector<std::uint64_t> block(1 << 17);  // 1 MiB
  Sha256 sha;
  for (std::uint64_t left = size; left > 0 && !interrupted;) {
    for (auto& word : block) word = random();
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(left, block.size() * 8));
    out.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(n));
    sha.add(reinterpret_cast<const char*>(block.data()), n);
    left -= n;
  }
  return out.flush() ? sha.hex() : "";
}

std::string shaOfFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  Sha256 sha;
  std::vector<char> buffer(1 << 20);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
    sha.add(buffer.data(), static_cast<std::size_t>(in.gcount()));
  return sha.hex();
}

std::string joined(int agents, const std::function<std::string(const MachineClass&)>& field) {
  std::string out;
  for (int i = 0; i < agents; ++i) out += (i ? "," : "") + field(kClasses[i % 3]);
  return out;
}

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

// The last lines of a log, to explain a failure before the directory goes.
void showTail(const fs::path& log) {
  std::string text = readWhole(log);
  std::size_t start = text.size();
  for (int lines = 0; start > 0 && lines < 12;) lines += text[--start] == '\n';
  if (!text.empty()) std::fprintf(stderr, "--- %s\n%s", log.filename().c_str(), text.substr(start).c_str());
}

// Inside the lab's directory, one of hnowd's send roots (`hnow local up`):
// hnowd reads it where it lies, as it would a file on its own host, and the
// client uploads nothing.
fs::path demoFile(const fs::path& dir) { return dir / "cluster" / "demo.bin"; }

DemoRun sendOnce(const std::string& hnow, const fs::path& dir, const std::string& algo, int agents,
                 const std::string& sourceSha, const std::string& svg, bool quiet) {
  DemoRun run;
  run.algo = algo;
  run.plan = algo;
  run.expected = agents;
  std::vector<std::string> argv{hnow, "--config", (dir / "cluster" / "client.toml").string(), "send",
                                demoFile(dir).string(),
                                "--dest", "demo-" + algo + ".bin", "--algo", algo, "--json"};
  if (!svg.empty()) argv.insert(argv.end(), {"--svg", svg});
  const fs::path out = dir / ("send-" + algo + ".json");
  const int status = runChild(argv, out.string(), quiet ? (dir / "send.log").string() : "");
  if (interrupted) {
    run.error = "interrupted";
    return run;
  }
  std::vector<std::string> paths;
  if (!readSendReport(readWhole(out), run, paths)) {
    run.error = "hnow send failed (exit " + std::to_string(status) + ")";
    return run;
  }
  run.plan = run.plan.empty() ? algo : run.plan;
  // Every copy read back from its agent's disk; then removed, so the demo
  // holds at most one run's copies.
  for (const std::string& path : paths) {
    run.verified += !path.empty() && shaOfFile(path) == sourceSha;
    std::error_code error;
    fs::remove(path, error);
  }
  if (status != 0 && run.error.empty()) run.error = "some copies failed";
  return run;
}

}  // namespace

int runDemo(const DemoOptions& options) {
  if (options.agents < 1 || options.agents > 64) {
    std::fprintf(stderr, "hnow: --agents must be from 1 to 64\n");
    return 2;
  }
  if (options.size == 0) {
    std::fprintf(stderr, "hnow: --size must be at least 1 byte\n");
    return 2;
  }
  const std::string hnow = (fs::path(ownDirectory()) / "hnow").string();
  interrupted = false;
  SignalGuard signals;
  std::string pattern = (fs::temp_directory_path() / "hnow-demo-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) {
    std::fprintf(stderr, "hnow: cannot create a directory for the demo: %s\n", std::strerror(errno));
    return 1;
  }
  ClusterGuard cluster(hnow, pattern);
  const fs::path& dir = cluster.dir();
  auto say = [&](const std::string& text) {
    if (!options.json) std::fprintf(stderr, "%s\n", text.c_str());
  };

  say("starting hnowd and " + std::to_string(options.agents) + " agents in " + dir.string());
  const int up = runChild({hnow, "local", "up", "--dir", (dir / "cluster").string(), "--agents",
                           std::to_string(options.agents), "--source-uplink-mbps", number(kSourceUplinkMbps),
                           "--uplink-mbps", joined(options.agents, [](auto& c) { return number(c.uplinkMbps); }),
                           "--downlink-mbps", joined(options.agents, [](auto& c) { return number(c.downlinkMbps); }),
                           "--sites", joined(options.agents, [](auto& c) { return std::string(c.site); })},
                          (dir / "up.log").string(), (dir / "up.log").string());
  if (interrupted) return 130;
  if (up != 0) {
    std::fprintf(stderr, "hnow: the local cluster did not start\n");
    showTail(dir / "up.log");
    showTail(dir / "cluster" / "logs" / "hnowd.log");
    return 1;
  }
  say("generating " + std::to_string(options.size) + " random bytes");
  const std::string sourceSha = writeDemoFile(demoFile(dir), options.size);
  if (interrupted) return 130;
  if (sourceSha.empty()) {
    std::fprintf(stderr, "hnow: cannot write the demo file in %s\n", dir.c_str());
    return 1;
  }

  std::vector<DemoRun> runs;
  bool ok = true;
  for (const char* algo : kAlgos) {
    say(std::string("sending with --algo ") + algo);
    runs.push_back(sendOnce(hnow, dir, algo, options.agents, sourceSha,
                            std::string(algo) == "auto" ? fs::absolute(options.svgPath).string() : "",
                            options.json));
    if (interrupted) {
      std::fprintf(stderr, "hnow: interrupted; stopping the cluster\n");
      return 130;
    }
    ok = ok && runs.back().error.empty() && runs.back().verified == runs.back().expected;
    if (!runs.back().error.empty()) showTail(dir / "cluster" / "logs" / "hnowd.log");
  }
  std::fputs((options.json ? demoJson(runs) : demoTable(runs, options.size, options.agents)).c_str(), stdout);
  if (!options.json) std::printf("Picture of the auto run's send: %s\n", fs::absolute(options.svgPath).c_str());
  return ok ? 0 : 1;
}

}  // namespace hnow::cli
