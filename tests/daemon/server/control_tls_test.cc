// Mutual TLS on the control connection: certificates made at test time by
// the openssl command in a temporary directory; hnowd's ControlServer on
// 127.0.0.1 accepts only clients with a certificate from its CA.
#include <doctest/doctest.h>

#include <kj/compat/tls.h>

#include "cli/run_process.h"
#include "daemon/server/control_server_harness.h"
#include "transport/tls_setup.h"

using namespace hnow;
using testing::ControlServerHarness;
using testing::TempDir;

namespace {

// A CA, hnowd's certificate (DNS name "hnowd") and an agent's, both signed
// by the CA, plus an agent certificate signed by another CA.
struct Certificates {
  TempDir dir;
  bool made = false;
  std::string path(const std::string& name) const { return (dir.path / name).string(); }

  Certificates() {
    const std::string d = dir.path.string();
    const std::string key = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    auto ca = [&](const std::string& name) {
      return "openssl req -x509" + key + " -keyout " + d + "/" + name + ".key -out " + d + "/" +
             name + ".pem -days 1 -subj /CN=" + name;
    };
    auto leaf = [&](const std::string& name, const std::string& ca) {
      return "openssl req" + key + " -keyout " + d + "/" + name + ".key -out " + d + "/" + name +
             ".csr -subj /CN=" + name + " -addext subjectAltName=DNS:" + name +
             " && openssl x509 -req -in " + d + "/" + name + ".csr -CA " + d + "/" + ca +
             ".pem -CAkey " + d + "/" + ca + ".key -CAcreateserial -days 1 -copy_extensions copy -out " +
             d + "/" + name + ".pem";
    };
    auto r = hnow::testing::runCommand("(" + ca("lab-ca") + " && " + ca("other-ca") + " && " +
                                       leaf("hnowd", "lab-ca") + " && " + leaf("agent", "lab-ca") +
                                       " && " + leaf("intruder", "other-ca") + ")");
    made = r.status == 0;
    if (!made) MESSAGE(r.err);
  }

  transport::TlsFiles files(const std::string& leaf) const {
    return {path(leaf + ".pem"), path(leaf + ".key"), path("lab-ca.pem")};
  }
};

// Made once per test binary (key generation is the slow part); the
// directory is removed at exit.
const Certificates& certificates() {
  static Certificates certs;
  return certs;
}

std::unique_ptr<transport::TlsSetup> load(const transport::TlsFiles& files,
                                          transport::TlsSetup::Side side, kj::Timer& timer) {
  auto setup = transport::TlsSetup::load(files, side, timer);
  REQUIRE_MESSAGE(setup.ok(), (setup.ok() ? "" : setup.error().message));
  return std::move(setup).value();
}

}  // namespace

TEST_CASE("with mutual TLS, only a client whose certificate hnowd's CA signed gets to log in") {
  const Certificates& certs = certificates();
  REQUIRE(certs.made);
  kj::TimerImpl tlsTimer{kj::origin<kj::TimePoint>()};
  auto server = load(certs.files("hnowd"), transport::TlsSetup::Side::kServer, tlsTimer);
  ControlServerHarness h(daemon::ConnectionLimits{}, &server->context());

  auto agent = load(certs.files("agent"), transport::TlsSetup::Side::kClient, tlsTimer);
  auto secured = h.within(agent->context().wrapClient(h.connectRaw(), "hnowd"));
  auto peer = h.peerOver(kj::mv(secured));
  auto session = h.within(h.keys.loginOperator(peer.gate));
  CHECK(h.failureOf(session.statusRequest().send()) == "");

  SUBCASE("a client with a certificate from another CA is refused") {
    transport::TlsFiles files = certs.files("intruder");
    files.caFile = certs.path("lab-ca.pem");  // it trusts hnowd; hnowd does not trust it
    auto intruder = load(files, transport::TlsSetup::Side::kClient, tlsTimer);
    std::string failure = h.failureOf(
        intruder->context().wrapClient(h.connectRaw(), "hnowd").then([&](kj::Own<kj::AsyncIoStream> s) {
          auto p = h.peerOver(kj::mv(s));
          return h.keys.loginOperator(p.gate).attach(kj::mv(p.connection));
        }));
    CHECK_FALSE(failure.empty());
  }
  SUBCASE("a client without a certificate is refused") {
    kj::TlsCertificate ca(kj::heapString(hnow::testing::readWhole(certs.path("lab-ca.pem"))));
    kj::TlsContext::Options options;
    options.useSystemTrustStore = false;
    options.trustedCertificates = kj::arrayPtr(&ca, 1);
    kj::TlsContext anonymous(kj::mv(options));
    std::string failure = h.failureOf(
        anonymous.wrapClient(h.connectRaw(), "hnowd").then([&](kj::Own<kj::AsyncIoStream> s) {
          auto p = h.peerOver(kj::mv(s));
          return h.keys.loginOperator(p.gate).attach(kj::mv(p.connection));
        }));
    CHECK_FALSE(failure.empty());
  }
  SUBCASE("a plain TCP client is refused") {
    auto plain = h.connect();
    CHECK_FALSE(h.failureOf(h.keys.loginOperator(plain.gate)).empty());
  }
  SUBCASE("an agent refuses a server whose certificate is not for the configured name") {
    CHECK_FALSE(h.failureOf(agent->context().wrapClient(h.connectRaw(), "other-name")).empty());
  }
}

TEST_CASE("a missing certificate file is an error value naming the file") {
  kj::TimerImpl timer{kj::origin<kj::TimePoint>()};
  auto setup = transport::TlsSetup::load({"/nonexistent/cert.pem", "/nonexistent/key.pem",
                                          "/nonexistent/ca.pem"},
                                         transport::TlsSetup::Side::kServer, timer);
  REQUIRE_FALSE(setup.ok());
  CHECK(setup.error().message.find("/nonexistent/ca.pem") != std::string::npos);
}
