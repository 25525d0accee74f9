#include "transport/identity.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hnow::transport {

namespace {

constexpr std::string_view kKeyPrefix = "ed25519:";
constexpr std::string_view kSeedPrefix = "hnow-ed25519-private:";

void ensureSodium() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium cannot initialise");
}

std::string base64(const std::uint8_t* bytes, std::size_t size) {
  std::string out(sodium_base64_encoded_len(size, sodium_base64_VARIANT_URLSAFE_NO_PADDING), '\0');
  sodium_bin2base64(out.data(), out.size(), bytes, size, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  out.resize(std::strlen(out.c_str()));
  return out;
}

// Exactly `size` bytes from base64url, or nothing.
std::optional<Bytes> unbase64(std::string_view text, std::size_t size) {
  Bytes out(size + 4);
  std::size_t length = 0;
  const char* end = nullptr;
  if (sodium_base642bin(out.data(), out.size(), text.data(), text.size(), nullptr, &length, &end,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
      end != text.data() + text.size() || length != size)
    return std::nullopt;
  out.resize(length);
  return out;
}

const char* roleWord(Role role) {
  switch (role) {
    case Role::kAgent: return "agent";
    case Role::kClient: return "operator";
    case Role::kCoordinator: return "coordinator";
  }
  return "?";
}

std::string trimmed(std::string text) {
  const char* space = " \t\r\n";
  auto first = text.find_first_not_of(space);
  auto last = text.find_last_not_of(space);
  return first == std::string::npos ? "" : text.substr(first, last - first + 1);
}

}  // namespace

KeyPair KeyPair::generate() {
  ensureSodium();
  KeyPair pair;
  crypto_sign_keypair(pair.public_.data(), pair.secret_.data());
  return pair;
}

KeyPair KeyPair::fromSeed(const std::uint8_t* seed) {
  ensureSodium();
  KeyPair pair;
  crypto_sign_seed_keypair(pair.public_.data(), pair.secret_.data(), seed);
  return pair;
}

KeyPair::~KeyPair() { sodium_memzero(secret_.data(), secret_.size()); }

KeyPair::KeyPair(KeyPair&& other) noexcept : public_(other.public_), secret_(other.secret_) {
  sodium_memzero(other.secret_.data(), other.secret_.size());
}

Bytes KeyPair::sign(const Bytes& message) const {
  Bytes signature(crypto_sign_BYTES);
  crypto_sign_detached(signature.data(), nullptr, message.data(), message.size(), secret_.data());
  return signature;
}

std::string KeyPair::fileText() const {
  // The seed is the first half of libsodium's secret key.
  std::string seed = base64(secret_.data(), crypto_sign_SEEDBYTES);
  std::string text = std::string(kSeedPrefix) + seed + "\n" + "# public: " + keyText(public_) + "\n";
  sodium_memzero(seed.data(), seed.size());
  return text;
}

Result<KeyPair> loadKeyFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return Error{"cannot read the key file " + path + ": " + std::strerror(errno)};
  struct stat st {};
  ::fstat(fd, &st);
  if ((st.st_mode & 077) != 0) {
    ::close(fd);
    char mode[8];
    std::snprintf(mode, sizeof mode, "%03o", st.st_mode & 0777);
    return Error{"the key file " + path + " may be read by others (mode " + mode +
                 "): a private key must be its owner's alone; run chmod 600 " + path};
  }
  std::string text;
  char buffer[512];
  ssize_t n = 0;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0 && text.size() < 4096) text.append(buffer, n);
  ::close(fd);
  std::string first = trimmed(text.substr(0, text.find('\n')));
  sodium_memzero(text.data(), text.size());
  if (first.rfind(kSeedPrefix, 0) != 0)
    return Error{"the key file " + path + " does not hold an hnow private key (its first line should begin " +
                 std::string(kSeedPrefix) + "); make one with `hnow key new " + path + "`"};
  auto seed = unbase64(std::string_view(first).substr(kSeedPrefix.size()), crypto_sign_SEEDBYTES);
  sodium_memzero(first.data(), first.size());
  if (!seed) return Error{"the private key in " + path + " is damaged (not 32 bytes of base64url)"};
  KeyPair pair = KeyPair::fromSeed(seed->data());
  sodium_memzero(seed->data(), seed->size());
  return pair;
}

Result<void> writeNewSecretFile(const std::string& path, std::string_view text, const std::string& what,
                                const std::string& whenExists) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    return Error{"cannot create " + what + " " + path + ": " + std::strerror(errno) +
                 (errno == EEXIST ? " (" + whenExists + ")" : "")};
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  const int error = errno;
  ::close(fd);
  if (!written) {
    ::unlink(path.c_str());
    return Error{"cannot write " + what + " " + path + ": " + std::strerror(error)};
  }
  return {};
}

Result<KeyPair> createKeyFile(const std::string& path) {
  KeyPair pair = KeyPair::generate();
  std::string text = pair.fileText();
  auto written = writeNewSecretFile(path, text, "the key file", "it exists; hnow never replaces a key");
  sodium_memzero(text.data(), text.size());
  if (!written) return written.error();
  return pair;
}

Result<KeyPair> loadOrCreateKeyFile(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 && errno == ENOENT) return createKeyFile(path);
  return loadKeyFile(path);
}

std::string keyText(const PublicKey& key) { return std::string(kKeyPrefix) + base64(key.data(), key.size()); }

std::string keyShort(const PublicKey& key) { return base64(key.data(), key.size()).substr(0, 12); }

Result<PublicKey> parseKeyText(std::string_view text) {
  if (text.rfind(kKeyPrefix, 0) != 0)
    return Error{"a public key reads ed25519:<43 characters of base64url>; got '" +
                 std::string(text.substr(0, 60)) + "'"};
  auto bytes = unbase64(text.substr(kKeyPrefix.size()), kPublicKeyBytes);
  if (!bytes) return Error{"the public key '" + std::string(text.substr(0, 60)) + "' is not 32 bytes of base64url"};
  PublicKey key{};
  std::memcpy(key.data(), bytes->data(), key.size());
  return key;
}

Bytes loginMessage(Role role, std::string_view name, const Bytes& nonce) {
  // The zero bytes separate the fields, so ("ab","c") and ("a","bc") differ.
  std::string header = std::string("hnow/2 ") + roleWord(role);
  header.push_back('\0');
  header.append(name);
  header.push_back('\0');
  Bytes message(header.begin(), header.end());
  message.insert(message.end(), nonce.begin(), nonce.end());
  return message;
}

Bytes signLogin(const KeyPair& key, Role role, std::string_view name, const Bytes& nonce) {
  return key.sign(loginMessage(role, name, nonce));
}

bool verifyLogin(const PublicKey& key, Role role, std::string_view name, const Bytes& nonce,
                 const Bytes& signature) {
  if (nonce.size() != kNonceBytes || signature.size() != kSignatureBytes) return false;
  ensureSodium();
  Bytes message = loginMessage(role, name, nonce);
  return crypto_sign_verify_detached(signature.data(), message.data(), message.size(), key.data()) == 0;
}

std::string tokenText(const EnrollToken& token) {
  Bytes raw;
  raw.insert(raw.end(), token.id.begin(), token.id.end());
  raw.insert(raw.end(), token.secret.begin(), token.secret.end());
  raw.insert(raw.end(), token.coordinator.begin(), token.coordinator.end());
  std::string text = std::string(kTokenPrefix) + base64(raw.data(), raw.size());
  sodium_memzero(raw.data(), raw.size());
  return text;
}

Result<EnrollToken> parseTokenText(std::string_view text) {
  std::string clean = trimmed(std::string(text));
  if (clean.rfind(kTokenPrefix, 0) != 0)
    return Error{"an enrollment token begins " + std::string(kTokenPrefix) + " (made by `hnow agent token`)"};
  EnrollToken token;
  auto raw = unbase64(std::string_view(clean).substr(kTokenPrefix.size()),
                      token.id.size() + token.secret.size() + token.coordinator.size());
  if (!raw) return Error{"the enrollment token is damaged or cut short: copy all of what `hnow agent token` printed"};
  std::memcpy(token.id.data(), raw->data(), token.id.size());
  std::memcpy(token.secret.data(), raw->data() + token.id.size(), token.secret.size());
  std::memcpy(token.coordinator.data(), raw->data() + token.id.size() + token.secret.size(), token.coordinator.size());
  sodium_memzero(raw->data(), raw->size());
  return token;
}

std::string tokenIdText(const std::array<std::uint8_t, 8>& id) {
  char hex[2 * 8 + 1];
  sodium_bin2hex(hex, sizeof hex, id.data(), id.size());
  return hex;
}

Bytes enrollProof(const std::array<std::uint8_t, 32>& secret, std::string_view name, const PublicKey& key,
                  const Bytes& nonce) {
  ensureSodium();
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, secret.data(), secret.size());
  std::string header = "hnow/2 enroll";
  header.push_back('\0');
  header.append(name);
  header.push_back('\0');
  crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(header.data()), header.size());
  crypto_auth_hmacsha256_update(&state, key.data(), key.size());
  crypto_auth_hmacsha256_update(&state, nonce.data(), nonce.size());
  Bytes proof(crypto_auth_hmacsha256_BYTES);
  crypto_auth_hmacsha256_final(&state, proof.data());
  sodium_memzero(&state, sizeof state);
  return proof;
}

bool checkEnrollProof(const std::array<std::uint8_t, 32>& secret, std::string_view name, const PublicKey& key,
                      const Bytes& nonce, const Bytes& proof) {
  if (nonce.size() != kNonceBytes || proof.size() != crypto_auth_hmacsha256_BYTES) return false;
  Bytes expected = enrollProof(secret, name, key, nonce);
  return sodium_memcmp(expected.data(), proof.data(), expected.size()) == 0;
}

}  // namespace hnow::transport
