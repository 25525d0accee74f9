#include "transport/auth.h"

#include <sodium.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hnow::transport {

namespace {

void ensureSodium() {
  // sodium_init is idempotent and thread-safe; it only fails without a
  // source of randomness, and then no nonce can be trusted.
  if (sodium_init() < 0) throw std::runtime_error("libsodium cannot initialise");
}

const char* roleWord(Role role) {
  switch (role) {
    case Role::kAgent: return "agent";
    case Role::kClient: return "client";
    case Role::kCoordinator: return "coordinator";
  }
  return "?";
}

}  // namespace

Secret::Secret(std::string bytes) : bytes_(std::move(bytes)) {}

Secret::Secret(Secret&& other) noexcept : bytes_(std::move(other.bytes_)) {
  sodium_memzero(other.bytes_.data(), other.bytes_.size());
  other.bytes_.clear();
}

Secret::~Secret() { sodium_memzero(bytes_.data(), bytes_.size()); }

SecretLoad loadSecretFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {std::nullopt, "cannot read the secret file " + path};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  const char* space = " \t\r\n";
  auto first = text.find_first_not_of(space);
  auto last = text.find_last_not_of(space);
  std::string trimmed = first == std::string::npos ? "" : text.substr(first, last - first + 1);
  sodium_memzero(text.data(), text.size());
  if (trimmed.size() < kMinSecretBytes)
    return {std::nullopt, "the secret in " + path + " is shorter than " +
                              std::to_string(kMinSecretBytes) + " bytes"};
  return {Secret(std::move(trimmed)), ""};
}

std::string freshSecretText() {
  ensureSodium();
  unsigned char raw[32];
  randombytes_buf(raw, sizeof raw);
  char hex[2 * sizeof raw + 1];
  sodium_bin2hex(hex, sizeof hex, raw, sizeof raw);
  sodium_memzero(raw, sizeof raw);
  return std::string(hex);
}

Bytes freshNonce() {
  ensureSodium();
  Bytes nonce(kNonceBytes);
  randombytes_buf(nonce.data(), nonce.size());
  return nonce;
}

std::string freshToken() {
  const Bytes nonce = freshNonce();
  return std::string(nonce.begin(), nonce.end());
}

Bytes makeProof(const Secret& secret, Role role, std::string_view name, const Bytes& nonce) {
  ensureSodium();
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, reinterpret_cast<const unsigned char*>(secret.bytes().data()),
                              secret.bytes().size());
  // The zero bytes separate the fields, so ("ab","c") and ("a","bc") differ.
  std::string header = std::string("hnow/1 ") + roleWord(role);
  header.push_back('\0');
  header.append(name);
  header.push_back('\0');
  crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(header.data()),
                                header.size());
  crypto_auth_hmacsha256_update(&state, nonce.data(), nonce.size());
  Bytes proof(crypto_auth_hmacsha256_BYTES);
  crypto_auth_hmacsha256_final(&state, proof.data());
  sodium_memzero(&state, sizeof state);
  return proof;
}

bool checkProof(const Secret& secret, Role role, std::string_view name, const Bytes& nonce,
                const Bytes& proof) {
  if (nonce.size() != kNonceBytes || proof.size() != kProofBytes) return false;
  Bytes expected = makeProof(secret, role, name, nonce);
  return sodium_memcmp(expected.data(), proof.data(), kProofBytes) == 0;
}

}  // namespace hnow::transport
