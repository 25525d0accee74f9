#pragma once
// Who a peer is: Ed25519 key pairs (libsodium's crypto_sign) for hnowd,
// each operator and each agent, and the single-use enrollment tokens an
// operator hands to a new agent (docs/security.md).
//
// A login signs "hnow/2 ROLE\0NAME\0" ++ the other side's single-use nonce, so
// a signature answers one challenge on one connection, for one role and one
// name: it cannot be replayed, nor moved from an agent's login to an
// operator's. The private half never leaves its file.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "transport/auth.h"

namespace hnow::transport {

inline constexpr std::size_t kPublicKeyBytes = 32;
inline constexpr std::size_t kSignatureBytes = 64;
using PublicKey = std::array<std::uint8_t, kPublicKeyBytes>;

// A key pair; the secret half is wiped when destroyed.
class KeyPair {
 public:
  static KeyPair generate();
  // From the 32-byte seed the key file holds.
  static KeyPair fromSeed(const std::uint8_t* seed);
  ~KeyPair();
  KeyPair(KeyPair&& other) noexcept;
  KeyPair(const KeyPair&) = delete;
  KeyPair& operator=(const KeyPair&) = delete;
  KeyPair& operator=(KeyPair&&) = delete;

  const PublicKey& publicKey() const { return public_; }
  Bytes sign(const Bytes& message) const;
  // The key file's text: what `loadKeyFile` reads back.
  std::string fileText() const;

 private:
  KeyPair() = default;
  PublicKey public_{};
  std::array<std::uint8_t, 64> secret_{};  // libsodium's form: seed ++ public key
};

// Reads a key file. It must be readable by its owner only (mode 0600 or
// stricter): a private key others can read is refused, saying so.
Result<KeyPair> loadKeyFile(const std::string& path);
// Reads it, or, when there is no file at `path`, makes a fresh key pair and
// writes it there with mode 0600 (a daemon's first start).
Result<KeyPair> loadOrCreateKeyFile(const std::string& path);
// Writes a fresh key pair to `path` (mode 0600); refuses to replace a file.
Result<KeyPair> createKeyFile(const std::string& path);
// A secret (a key, an enrollment token) in a new file at `path`: mode 0600
// from its creation, synced, never over another file, removed if it could
// not be written whole. Errors name it `what` ("the key file"), and, when a
// file is there already, add `whenExists`.
Result<void> writeNewSecretFile(const std::string& path, std::string_view text, const std::string& what,
                                const std::string& whenExists);

// "ed25519:" ++ base64url of the key: how configs, logs and `hnow` show it.
std::string keyText(const PublicKey& key);
Result<PublicKey> parseKeyText(std::string_view text);
// A short form for logs and tables: the first 12 characters of keyText's base64.
std::string keyShort(const PublicKey& key);

// The message a login signs (see the top of this file).
Bytes loginMessage(Role role, std::string_view name, const Bytes& nonce);
Bytes signLogin(const KeyPair& key, Role role, std::string_view name, const Bytes& nonce);
// False also for a signature or nonce of the wrong size.
bool verifyLogin(const PublicKey& key, Role role, std::string_view name, const Bytes& nonce,
                 const Bytes& signature);

// An enrollment token: an id hnowd finds it by, a secret that never crosses
// the wire (the agent proves it with an HMAC over hnowd's nonce, bound to its
// name and key), and hnowd's public key, so the new agent knows whom to trust.
struct EnrollToken {
  std::array<std::uint8_t, 8> id{};
  std::array<std::uint8_t, 32> secret{};
  PublicKey coordinator{};
};
inline constexpr std::string_view kTokenPrefix = "hnow-enroll-";
std::string tokenText(const EnrollToken& token);
Result<EnrollToken> parseTokenText(std::string_view text);
std::string tokenIdText(const std::array<std::uint8_t, 8>& id);
// HMAC-SHA256 with the token's secret over "hnow/2 enroll\0NAME\0" ++ key ++ nonce.
Bytes enrollProof(const std::array<std::uint8_t, 32>& secret, std::string_view name, const PublicKey& key,
                  const Bytes& nonce);
bool checkEnrollProof(const std::array<std::uint8_t, 32>& secret, std::string_view name, const PublicKey& key,
                      const Bytes& nonce, const Bytes& proof);

}  // namespace hnow::transport
