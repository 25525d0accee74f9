#pragma once
// hnowd's [web] listener from its configuration: the tokens read (the
// operators' made on the first start), the address bound and told, the
// WebServer serving it on hnowd's loop (docs/web-view.md).
#include <kj/async-io.h>

#include <memory>
#include <string>

#include "base/result.h"
#include "conf/runtime_config.h"
#include "server/web_server.h"

namespace hnow::daemon {

class WebView {
 public:
  // Binds [web] listen and serves it until destroyed; `addressFile` gets
  // the address bound (its port the OS's when listen says 0), for
  // launchers and tests. An error says what in [web] to fix.
  static Result<std::unique_ptr<WebView>> start(kj::AsyncIoContext& io, const conf::WebConfig& config,
                                                const std::string& addressFile, StatusSources sources,
                                                std::string version);
  ~WebView();
  const std::string& address() const { return address_; }

 private:
  WebView() = default;
  std::string addressFile_;
  std::unique_ptr<WebServer> server_;
  kj::Own<kj::ConnectionReceiver> receiver_;
  kj::Promise<void> serving_ = nullptr;
  std::string address_;
};

// The token in `path`, which only its owner may read; none there yet: a
// fresh one written (mode 0600) when `create`, else an error.
Result<std::string> loadWebToken(const std::string& path, const std::string& what, bool create);

}  // namespace hnow::daemon
