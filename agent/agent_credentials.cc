#include "agent/agent_credentials.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "transport/daemon_main.h"

namespace hnow::agent {

namespace {

std::optional<std::string> readFirstLine(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  return line;
}

// The token `hnow-agent enroll` placed, if there is one.
Result<std::optional<std::string>> placedToken(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return std::optional<std::string>();
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return Error{"cannot read the enrollment token " + path + " (hnow-agent enroll places it readable by the "
                        "agent's user; place it again)"};
  return std::optional<std::string>(text.str());
}

}  // namespace

std::string enrollTokenPath(const std::string& dataDir) {
  return (std::filesystem::path(dataDir) / "enroll.token").string();
}

Result<AgentCredentials> AgentCredentials::load(const conf::AgentConfig& config, const std::string& tokenText,
                                                const std::string& givenFrom) {
  auto key = transport::loadOrCreateKeyFile(config.keyFile);
  if (!key) return Error{"the agent's key: " + key.error().message};
  AgentCredentials c(std::move(key).value());
  c.pinPath_ = (std::filesystem::path(config.dataDir) / "hnowd.pub").string();
  std::string trustedFrom;
  if (!config.coordinatorKey.empty()) {
    auto parsed = transport::parseKeyText(config.coordinatorKey);
    if (!parsed) return Error{"coordinator_key: " + parsed.error().message};
    c.trusted_ = parsed.value();
    trustedFrom = "coordinator_key in the config";
  } else if (auto pinned = readFirstLine(c.pinPath_)) {
    auto parsed = transport::parseKeyText(*pinned);
    if (!parsed) return Error{c.pinPath_ + ": " + parsed.error().message + " (remove it and enroll again)"};
    c.trusted_ = parsed.value();
    c.pinned_ = true;
    trustedFrom = c.pinPath_ + ", kept from the enrollment";
  }
  std::string tokenFrom = givenFrom, placedText;
  if (tokenText.empty()) {
    auto placed = placedToken(enrollTokenPath(config.dataDir));
    if (!placed) return placed.error();
    if (*placed) {
      placedText = std::move(**placed);
      c.tokenFile_ = enrollTokenPath(config.dataDir);
      tokenFrom = c.tokenFile_;
    }
  }
  if (const std::string& text = tokenText.empty() ? placedText : tokenText; !text.empty()) {
    auto token = transport::parseTokenText(text);
    if (!token) return Error{tokenFrom + ": " + token.error().message};
    if (c.trusted_ && *c.trusted_ != token->coordinator)
      return Error{tokenFrom + ": the token was made by an hnowd with the key " + transport::keyText(token->coordinator) +
                   ", not the one this agent trusts (" + transport::keyText(*c.trusted_) + ", from " + trustedFrom +
                   ")"};
    c.trusted_ = token->coordinator;
    c.token_ = token.value();
  }
  if (!config.secretFile.empty()) {
    auto secret = transport::loadSecretFile(config.secretFile);
    if (!secret.secret) return Error{secret.error};
    c.secret_.emplace(std::move(*secret.secret));
  }
  if (!c.trusted_ && !c.secret_)
    return Error{"this agent does not know hnowd's key: enroll it once with a token from `hnow agent token` "
                 "(hnow-agent enroll TOKEN_FILE --config FILE, then start it), or set coordinator_key in its config "
                 "(the line in hnowd's <data_dir>/hnowd.pub)"};
  return c;
}

AgentCredentials::Proof AgentCredentials::sign(const std::string& name, const transport::Bytes& nonce) const {
  Proof p;
  p.key.assign(key_.publicKey().begin(), key_.publicKey().end());
  p.signature = transport::signLogin(key_, transport::Role::kAgent, name, nonce);
  if (token_) {
    p.tokenId.assign(token_->id.begin(), token_->id.end());
    p.tokenProof = transport::enrollProof(token_->secret, name, key_.publicKey(), nonce);
  } else if (secret_) {
    p.secretProof = transport::makeProof(*secret_, transport::Role::kAgent, name, nonce);
  }
  return p;
}

void AgentCredentials::loggedIn(const transport::PublicKey& coordinator) {
  if (token_) spdlog::info("enrolled with hnowd: the token is used up and no longer needed");
  if (token_ && !tokenFile_.empty()) {
    std::error_code error;
    std::filesystem::remove(tokenFile_, error);
    if (error) spdlog::warn("cannot remove the used enrollment token {}: {}", tokenFile_, error.message());
    tokenFile_.clear();
  }
  token_.reset();
  trusted_ = coordinator;
  if (pinned_) return;
  std::ofstream(pinPath_) << transport::keyText(coordinator) << "\n";
  pinned_ = static_cast<bool>(std::ifstream(pinPath_));
  if (pinned_) spdlog::info("keeping hnowd's key {} in {}", transport::keyText(coordinator), pinPath_);
}

std::variant<AgentArgs, int> parseAgentArgs(int argc, char** argv) {
  CLI::App app{"hnow-agent: measures this machine's links, receives and relays hnow's sends, runs job shares"};
  AgentArgs args;
  transport::describeDaemon(app, "hnow-agent", args.configPath);
  app.footer("Enrolling an installed agent: hnow-agent enroll TOKEN_FILE [--config FILE] [--coordinator HOST:PORT] "
             "places the token where the agent finds it at its next start (hnow-agent enroll --help).");
  std::string tokenFile;
  auto* token = app.add_option("--enroll", args.token, "the enrollment token `hnow agent token` made (docs/security.md)");
  app.add_option("--enroll-file", tokenFile, "the same token, read from a file (kept out of ps and shell history)")
      ->check(CLI::ExistingFile)
      ->excludes(token);
  if (auto exit = transport::exitInsteadOfRunning(app, argc, argv)) return *exit;
  if (!tokenFile.empty()) {
    std::ifstream in(tokenFile);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
      std::fprintf(stderr, "hnow-agent: cannot read the token file %s\n", tokenFile.c_str());
      return 2;
    }
    args.token = text.str();
  }
  return args;
}

}  // namespace hnow::agent
