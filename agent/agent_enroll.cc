#include "agent/agent_enroll.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "agent/agent_credentials.h"
#include "base/result.h"
#include "conf/runtime_config.h"
#include "transport/daemon_main.h"
#include "transport/identity.h"

namespace hnow::agent {

namespace {

// The token file's text; what is wrong with it otherwise, and how to fix it.
Result<std::string> readTokenFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT)
      return Error{"there is no token file " + path + ": copy onto this machine a file `hnow agent token --out DIR` "
                   "wrote (or save what `hnow agent token` printed) and name it here"};
    return Error{"cannot read the token file " + path + ": " + std::strerror(error) +
                 (error == EACCES ? " (token files are their owner's alone, mode 0600: run hnow-agent enroll as root "
                                    "or as the file's owner)"
                                  : "")};
  }
  std::string text;
  char buffer[4096];
  ssize_t n;
  // A token is about 140 bytes: a large file is something else.
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0 && text.size() < 65536) text.append(buffer, n);
  const int error = errno;
  ::close(fd);
  if (n < 0) return Error{"cannot read the token file " + path + ": " + std::strerror(error)};
  auto token = transport::parseTokenText(text);
  if (!token) return Error{path + ": " + token.error().message};
  return text;
}

// host:port, or [v6]:port: what the agent's config takes as coordinator.
bool plainAddress(const std::string& address) {
  static const std::regex form(R"(^([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):([0-9]{1,5})$)");
  std::smatch match;
  return std::regex_match(address, match, form) && std::stoi(match[2]) >= 1 && std::stoi(match[2]) <= 65535;
}

// Writes `coordinator = "ADDRESS"` over the config's top-level coordinator
// line (or first, when it has none), keeping every other line and the
// file's mode; the file is replaced whole, by a rename.
Result<void> setCoordinator(const std::string& configPath, const std::string& address) {
  std::ifstream in(configPath);
  if (!in) return Error{"cannot read the agent's config " + configPath + ": " + std::strerror(errno)};
  static const std::regex coordinatorLine(R"(^\s*coordinator\s*=.*$)");
  static const std::regex tableHeader(R"(^\s*\[.*$)");
  const std::string wanted = "coordinator = \"" + address + "\"";
  std::ostringstream out;
  bool set = false, inTable = false;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, tableHeader)) inTable = true;
    if (!set && !inTable && std::regex_match(line, coordinatorLine)) {
      line = wanted;
      set = true;
    }
    out << line << "\n";
  }
  std::string text = set ? out.str() : wanted + "\n" + out.str();
  struct stat st {};
  if (::stat(configPath.c_str(), &st) != 0)
    return Error{"cannot read the agent's config " + configPath + ": " + std::strerror(errno)};
  const std::string temp = configPath + ".enroll-new";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, st.st_mode & 07777);
  if (fd < 0) return Error{"cannot write " + temp + ": " + std::strerror(errno)};
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                       ::fchown(fd, st.st_uid, st.st_gid) == 0 && ::fsync(fd) == 0;
  const int error = errno;
  ::close(fd);
  if (!written || ::rename(temp.c_str(), configPath.c_str()) != 0) {
    const int failure = written ? errno : error;
    ::unlink(temp.c_str());
    return Error{"cannot write the agent's config " + configPath + ": " + std::strerror(failure)};
  }
  return {};
}

// Root places the agent's files as the owner of its data directory (the
// package's hnow-agent user), so the service can read them and nothing it
// makes is root's. Anyone else places them as themselves.
Result<void> becomeDataOwner(const std::string& dataDir) {
  std::error_code error;
  std::filesystem::create_directories(dataDir, error);
  if (error) return Error{"cannot create the agent's data directory " + dataDir + ": " + error.message()};
  struct stat st {};
  if (::stat(dataDir.c_str(), &st) != 0)
    return Error{"cannot look at the agent's data directory " + dataDir + ": " + std::strerror(errno)};
  if (::geteuid() != 0 || st.st_uid == 0) return {};
  if (::setgroups(0, nullptr) != 0 || ::setgid(st.st_gid) != 0 || ::setuid(st.st_uid) != 0)
    return Error{"cannot become " + dataDir + "'s owner (uid " + std::to_string(st.st_uid) +
                 ") to place the agent's files: " + std::strerror(errno)};
  return {};
}

int fail(const std::string& why, int status) {
  std::fprintf(stderr, "hnow-agent enroll: %s\n", why.c_str());
  return status;
}

}  // namespace

std::variant<EnrollArgs, int> parseEnrollArgs(int argc, char** argv) {
  CLI::App app{"Places an enrollment token `hnow agent token` made where the installed agent finds it (mode 0600, "
               "owned by the agent's user); the agent enrolls at its next start and removes the token. As root, the "
               "files are placed as the owner of the agent's data directory."};
  app.name("hnow-agent enroll");
  EnrollArgs args;
  app.add_option("TOKEN_FILE", args.tokenFile, "the token file (hnow agent token --out DIR wrote one per agent)")
      ->required();
  app.add_option("-c,--config", args.configPath, "the agent's settings file")->capture_default_str();
  app.add_option("--coordinator", args.coordinator,
                 "hnowd's HOST:PORT, written into the config as its coordinator (the other lines are kept)");
  if (auto exit = transport::exitInsteadOfRunning(app, argc, argv)) return *exit;
  return args;
}

int enroll(const EnrollArgs& args) {
  // Read while still the caller: the token may be readable by root alone.
  auto tokenText = readTokenFile(args.tokenFile);
  if (!tokenText) return fail(tokenText.error().message, 2);
  if (!args.coordinator.empty()) {
    if (!plainAddress(args.coordinator))
      return fail("--coordinator '" + args.coordinator + "' is not HOST:PORT (e.g. hnowd.lab.example:7411)", 2);
    if (auto set = setCoordinator(args.configPath, args.coordinator); !set) return fail(set.error().message, 1);
  }
  auto config = conf::loadAgentConfig(args.configPath);
  if (!config) return fail(config.error().text(), 2);
  if (auto became = becomeDataOwner(config->dataDir); !became) return fail(became.error().message, 1);
  // The same checks as the agent's start: its key (made here if missing, mode
  // 0600), and a token from the hnowd it already trusts.
  auto credentials = AgentCredentials::load(*config, *tokenText, args.tokenFile);
  if (!credentials) return fail(credentials.error().message, 2);
  const std::string placed = enrollTokenPath(config->dataDir);
  if (::unlink(placed.c_str()) != 0 && errno != ENOENT)
    return fail("cannot replace the token placed before, " + placed + ": " + std::strerror(errno), 1);
  auto written = transport::writeNewSecretFile(placed, *tokenText, "the enrollment token", "remove it first");
  if (!written) return fail(written.error().message, 1);
  std::printf("hnow-agent enroll: placed the token in %s for agent %s (key %s), hnowd at %s (key %s).\n"
              "Start the agent (systemctl restart hnow-agent): it enrolls at its first login and removes the token.\n",
              placed.c_str(), config->name.c_str(), transport::keyText(credentials->key()).c_str(),
              config->coordinator.c_str(),
              credentials->trusted() ? transport::keyText(*credentials->trusted()).c_str() : "?");
  return 0;
}

}  // namespace hnow::agent
