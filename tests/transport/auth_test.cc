#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "transport/auth.h"

using namespace hnow::transport;

namespace {
Secret secret(const std::string& text) { return Secret(text); }
}  // namespace

TEST_CASE("a proof made with the secret checks, and fails for another secret, role, name or nonce") {
  Secret s = secret("0123456789abcdef0123456789abcdef");
  Bytes nonce = freshNonce();
  Bytes proof = makeProof(s, Role::kAgent, "a1", nonce);
  CHECK(proof.size() == kProofBytes);
  CHECK(checkProof(s, Role::kAgent, "a1", nonce, proof));
  CHECK_FALSE(checkProof(secret("0123456789abcdef0123456789abcdeX"), Role::kAgent, "a1", nonce, proof));
  CHECK_FALSE(checkProof(s, Role::kClient, "a1", nonce, proof));
  CHECK_FALSE(checkProof(s, Role::kAgent, "a2", nonce, proof));
  CHECK_FALSE(checkProof(s, Role::kAgent, "a1", freshNonce(), proof));
}

TEST_CASE("proofs and nonces of the wrong size are refused") {
  Secret s = secret("0123456789abcdef0123456789abcdef");
  Bytes nonce = freshNonce();
  Bytes proof = makeProof(s, Role::kClient, "", nonce);
  Bytes shortProof(proof.begin(), proof.end() - 1);
  CHECK_FALSE(checkProof(s, Role::kClient, "", nonce, shortProof));
  Bytes shortNonce(nonce.begin(), nonce.end() - 1);
  CHECK_FALSE(checkProof(s, Role::kClient, "", shortNonce, makeProof(s, Role::kClient, "", shortNonce)));
}

TEST_CASE("nonces are fresh") { CHECK(freshNonce() != freshNonce()); }

TEST_CASE("a secret file is read without its trailing newline, short or missing ones are refused") {
  auto dir = std::filesystem::temp_directory_path() / ("hnow-auth-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "good") << freshSecretText() << "\n";
  std::ofstream(dir / "short") << "tooshort\n";
  auto good = loadSecretFile((dir / "good").string());
  REQUIRE(good.secret.has_value());
  CHECK(good.secret->bytes().size() == 64);
  auto tooShort = loadSecretFile((dir / "short").string());
  CHECK_FALSE(tooShort.secret.has_value());
  CHECK(tooShort.error.find("shorter than 16 bytes") != std::string::npos);
  CHECK_FALSE(loadSecretFile((dir / "missing").string()).secret.has_value());
  std::filesystem::remove_all(dir);
}
