#pragma once
// From a config's [tls] table to a TlsSetup, for the three mains. Header
// only: transport/ does not link conf/, the programs link both.
#include "conf/runtime_config.h"
#include "transport/tls_setup.h"

namespace hnow::transport {

// A null setup when [tls] is absent (plain TCP); an error value naming the
// file when it is present but unusable.
inline Result<std::unique_ptr<TlsSetup>> loadTlsIfConfigured(
    const conf::TlsConfig& tls, TlsSetup::Side side, kj::Timer& timer) {
  if (!tls.enabled()) return std::unique_ptr<TlsSetup>();
  return TlsSetup::load({tls.certFile, tls.keyFile, tls.caFile}, side, timer);
}

}  // namespace hnow::transport
