#pragma once
// Challenge-response with the shared secret (transport/control.capnp, top):
// a proof is HMAC-SHA256 over a fresh single-use nonce, bound to the role
// and the name that log in, so a proof for one cannot be replayed as another.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hnow::transport {

using Bytes = std::vector<std::uint8_t>;

inline constexpr std::size_t kNonceBytes = 32;
inline constexpr std::size_t kProofBytes = 32;
// Shorter secrets are refused: they would be guessable offline from one proof.
inline constexpr std::size_t kMinSecretBytes = 16;

enum class Role { kAgent, kClient, kCoordinator };

// The secret's bytes; never logged, wiped when destroyed.
class Secret {
 public:
  explicit Secret(std::string bytes);
  ~Secret();
  Secret(Secret&& other) noexcept;
  Secret(const Secret&) = delete;
  Secret& operator=(const Secret&) = delete;
  Secret& operator=(Secret&&) = delete;

  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

struct SecretLoad {
  std::optional<Secret> secret;
  std::string error;  // set when `secret` is empty
};

// Reads a secret file; surrounding whitespace (a trailing newline) is not part of it.
SecretLoad loadSecretFile(const std::string& path);

// 32 random bytes as 64 hex digits: what `hnow local up` writes as a secret.
std::string freshSecretText();

Bytes freshNonce();
// 32 random bytes as a string: an operation's data-plane token, an upload's
// ticket (docs/security.md, "Threats, and what stops each").
std::string freshToken();
Bytes makeProof(const Secret& secret, Role role, std::string_view name, const Bytes& nonce);
// Constant-time; false also for a proof or nonce of the wrong size.
bool checkProof(const Secret& secret, Role role, std::string_view name, const Bytes& nonce,
                const Bytes& proof);

}  // namespace hnow::transport
