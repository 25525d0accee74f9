#include "transport/tls_setup.h"

#include <fstream>
#include <optional>
#include <sstream>

namespace hnow::transport {

namespace {

std::optional<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

Result<std::unique_ptr<TlsSetup>> TlsSetup::load(const TlsFiles& files,
                                                                     Side side, kj::Timer& timer) {
  std::string current;  // the file being used, for the error message
  try {
    auto pem = [&current](const std::string& path) {
      current = path;
      auto text = readFile(path);
      if (!text) throw Error{"cannot read " + path};
      return kj::heapString(text->data(), text->size());
    };
    auto caPem = pem(files.caFile);
    kj::TlsCertificate ca(caPem);
    auto certPem = pem(files.certFile);
    kj::TlsCertificate cert(certPem);
    auto keyPem = pem(files.keyFile);
    kj::TlsPrivateKey key(keyPem);
    current = files.certFile + " and " + files.keyFile;
    std::unique_ptr<TlsSetup> setup(new TlsSetup(kj::mv(ca), kj::TlsKeypair{kj::mv(key), kj::mv(cert)}));
    kj::TlsContext::Options options;
    options.useSystemTrustStore = false;
    options.trustedCertificates = kj::arrayPtr(&setup->ca_, 1);
    options.defaultKeypair = setup->keypair_;
    options.verifyClients = side == Side::kServer;
    options.minVersion = kj::TlsVersion::TLS_1_2;
    options.timer = timer;
    setup->context_ = kj::heap<kj::TlsContext>(kj::mv(options));
    return setup;
  } catch (const Error& e) {
    return e;
  } catch (const kj::Exception& e) {
    return Error{current + ": " + e.getDescription().cStr()};
  }
}

}  // namespace hnow::transport
