#pragma once
// Mutual TLS for the control connection through kj-tls. hnowd requires a
// client certificate signed by the configured CA; agents and clients
// verify hnowd's certificate against the same CA and the configured server
// name. Only that CA is trusted, never the system's store. The HMAC login
// still runs inside: TLS adds privacy and a second, independent check.
#include <kj/async-io.h>
#include <kj/compat/tls.h>

#include <memory>
#include <string>

#include "base/result.h"

namespace hnow::transport {

struct TlsFiles {
  std::string certFile;  // PEM chain presented to the peer
  std::string keyFile;   // PEM private key
  std::string caFile;    // PEM CA the peer's certificate must chain to
};

class TlsSetup {
 public:
  enum class Side { kServer, kClient };
  // Reads the files and builds the context; an error value names the file.
  static Result<std::unique_ptr<TlsSetup>> load(const TlsFiles& files, Side side,
                                                                     kj::Timer& timer);
  kj::TlsContext& context() { return *context_; }

 private:
  TlsSetup(kj::TlsCertificate ca, kj::TlsKeypair keypair)
      : ca_(kj::mv(ca)), keypair_(kj::mv(keypair)) {}
  // The context borrows these; declared first so they outlive it.
  kj::TlsCertificate ca_;
  kj::TlsKeypair keypair_;
  kj::Own<kj::TlsContext> context_;
};

}  // namespace hnow::transport
