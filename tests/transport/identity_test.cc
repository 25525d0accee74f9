#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "transport/identity.h"

using namespace hnow::transport;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char name[] = "/tmp/hnow-identity-XXXXXX";
    path = ::mkdtemp(name);
  }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("a key file is made with mode 0600, read back to the same key, and never replaced") {
  TempDir dir;
  const std::string path = (dir.path / "agent.key").string();
  auto made = loadOrCreateKeyFile(path);
  REQUIRE(made.ok());
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto again = loadOrCreateKeyFile(path);
  REQUIRE(again.ok());
  CHECK(again->publicKey() == made->publicKey());
  auto replaced = createKeyFile(path);
  REQUIRE_FALSE(replaced.ok());
  CHECK(replaced.error().message.find("never replaces a key") != std::string::npos);
  // The file shows its public key, and the private half is not that text.
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("# public: " + keyText(made->publicKey())) != std::string::npos);
}

TEST_CASE("a key file others may read, or one that is not a key, is refused saying how to mend it") {
  TempDir dir;
  const std::string path = (dir.path / "op.key").string();
  REQUIRE(createKeyFile(path).ok());
  ::chmod(path.c_str(), 0644);
  auto open = loadKeyFile(path);
  REQUIRE_FALSE(open.ok());
  CHECK(open.error().message.find("chmod 600") != std::string::npos);
  const std::string junk = (dir.path / "junk.key").string();
  std::ofstream(junk) << "not a key\n";
  ::chmod(junk.c_str(), 0600);
  auto bad = loadKeyFile(junk);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("does not hold an hnow private key") != std::string::npos);
  CHECK_FALSE(loadKeyFile((dir.path / "missing.key").string()).ok());
}

TEST_CASE("a login signature answers one role, one name and one nonce") {
  KeyPair key = KeyPair::generate();
  Bytes nonce(kNonceBytes, 7);
  Bytes signature = signLogin(key, Role::kAgent, "a1", nonce);
  CHECK(verifyLogin(key.publicKey(), Role::kAgent, "a1", nonce, signature));
  CHECK_FALSE(verifyLogin(key.publicKey(), Role::kClient, "a1", nonce, signature));
  CHECK_FALSE(verifyLogin(key.publicKey(), Role::kAgent, "a2", nonce, signature));
  Bytes other(kNonceBytes, 8);
  CHECK_FALSE(verifyLogin(key.publicKey(), Role::kAgent, "a1", other, signature));
  CHECK_FALSE(verifyLogin(KeyPair::generate().publicKey(), Role::kAgent, "a1", nonce, signature));
  signature[3] ^= 1;
  CHECK_FALSE(verifyLogin(key.publicKey(), Role::kAgent, "a1", nonce, signature));
  CHECK_FALSE(verifyLogin(key.publicKey(), Role::kAgent, "a1", Bytes(5), signLogin(key, Role::kAgent, "a1", nonce)));
}

TEST_CASE("public keys and enrollment tokens read back from their text, and damaged text is refused") {
  KeyPair key = KeyPair::generate();
  auto parsed = parseKeyText(keyText(key.publicKey()));
  REQUIRE(parsed.ok());
  CHECK(parsed.value() == key.publicKey());
  CHECK_FALSE(parseKeyText("ed25519:short").ok());
  CHECK_FALSE(parseKeyText("rsa:" + keyText(key.publicKey()).substr(8)).ok());

  EnrollToken token;
  token.id[0] = 1;
  token.secret[5] = 9;
  token.coordinator = key.publicKey();
  const std::string text = tokenText(token);
  auto back = parseTokenText("  " + text + "\n");  // as a file holds it
  REQUIRE(back.ok());
  CHECK(back->id == token.id);
  CHECK(back->secret == token.secret);
  CHECK(back->coordinator == token.coordinator);
  CHECK(parseTokenText(text.substr(0, text.size() - 3)).error().message.find("cut short") != std::string::npos);
  CHECK_FALSE(parseTokenText("hnow-enroll-").ok());
  CHECK_FALSE(parseTokenText(keyText(key.publicKey())).ok());

  Bytes nonce(kNonceBytes, 1);
  Bytes proof = enrollProof(token.secret, "a1", key.publicKey(), nonce);
  CHECK(checkEnrollProof(token.secret, "a1", key.publicKey(), nonce, proof));
  CHECK_FALSE(checkEnrollProof(token.secret, "a2", key.publicKey(), nonce, proof));
  CHECK_FALSE(checkEnrollProof(token.secret, "a1", KeyPair::generate().publicKey(), nonce, proof));
}
