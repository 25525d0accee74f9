#pragma once
// What an agent proves itself with and whom it trusts as hnowd
// (docs/security.md, "An identity per agent"): its own key pair, made on
// the first start; hnowd's public key, from the config, from what an
// earlier enrollment kept (<data_dir>/hnowd.pub), or from the enrollment
// token; and, only while a lab moves from the shared secret, that secret.
#include <optional>
#include <string>
#include <variant>

#include "base/result.h"
#include "conf/runtime_config.h"
#include "transport/auth.h"
#include "transport/identity.h"

namespace hnow::agent {

// Where `hnow-agent enroll` places a token for the agent whose state is in
// `dataDir`; the agent takes it from there when not given one on its
// command line, and removes it once hnowd has taken it.
std::string enrollTokenPath(const std::string& dataDir);

class AgentCredentials {
 public:
  // `tokenText`: what `hnow agent token` printed ("" for none: then the
  // token at enrollTokenPath, if one is there); errors about it name it
  // `tokenFrom`.
  static Result<AgentCredentials> load(const conf::AgentConfig& config, const std::string& tokenText,
                                       const std::string& tokenFrom = "--enroll");

  const transport::PublicKey& key() const { return key_.publicKey(); }
  // The key hnowd must prove it holds; none before a secret-based enrollment.
  const std::optional<transport::PublicKey>& trusted() const { return trusted_; }
  const transport::Secret* secret() const { return secret_ ? &*secret_ : nullptr; }

  // The login's credential for `name` over hnowd's `nonce` (AgentCredential
  // in transport/control.capnp): the key and its signature, and the token's
  // or the shared secret's proof while enrolling.
  struct Proof {
    transport::Bytes key, signature, tokenId, tokenProof, secretProof;
  };
  Proof sign(const std::string& name, const transport::Bytes& nonce) const;
  // After a login: keeps hnowd's key (writes hnowd.pub when it was learned
  // here) and drops the token, which enrolls once.
  void loggedIn(const transport::PublicKey& coordinator);
  // The file the token being used was read from ("" for none, or one given
  // on the command line): a refused login names it.
  const std::string& tokenFile() const { return tokenFile_; }

 private:
  AgentCredentials(transport::KeyPair key) : key_(std::move(key)) {}
  transport::KeyPair key_;
  std::optional<transport::PublicKey> trusted_;
  std::optional<transport::EnrollToken> token_;
  std::optional<transport::Secret> secret_;
  std::string pinPath_;
  std::string tokenFile_;
  bool pinned_ = false;
};

// `--enroll TOKEN` or `--enroll-file FILE` beside `--config FILE`.
struct AgentArgs {
  std::string configPath;
  std::string token;
};
// The agent's command line, or the status to exit with instead of running
// (0 after --help or --version, 2 for a bad one: what was wrong printed).
std::variant<AgentArgs, int> parseAgentArgs(int argc, char** argv);

}  // namespace hnow::agent
