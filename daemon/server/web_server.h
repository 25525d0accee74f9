#pragma once
// hnowd's web view and /metrics (docs/web-view.md, docs/metrics.md): HTTP
// through kj-http on hnowd's own kj loop, on the address of [web] listen.
// Read-only: it answers GET and HEAD, reads hnowd's state through
// status_views.h and changes nothing.
//
// Who may read what: the page and its script hold no state and are served
// to anyone; the JSON they poll (/api/...) asks for the operators' token as
// `Authorization: Bearer`; /metrics answers loopback clients as they are and
// others with the scrapers' token ([web] metrics_token_file), none if unset.
#include <kj/async-io.h>
#include <kj/compat/http.h>

#include <memory>
#include <string>

#include "server/status_views.h"

namespace hnow::daemon {

struct WebTokens {
  std::string pages;    // the operators'; never empty
  std::string metrics;  // the scrapers' off the loopback; empty: none may scrape from afar
};

// Does `presented` equal `expected`? In time independent of where they
// differ (both are hashed first, then compared in constant time); an empty
// `expected` matches nothing.
bool sameToken(const std::string& presented, const std::string& expected);

// May a client read `path`? The page and its files: anyone. /api/...: with
// the operators' token as `bearer`. /metrics: a loopback client as it is,
// another with the scrapers' token.
bool mayRead(const std::string& path, bool loopback, const std::string& bearer, const WebTokens& tokens);

class WebServer {
 public:
  WebServer(kj::Timer& timer, StatusSources sources, WebTokens tokens, std::string version);
  ~WebServer();
  // Serves the connections `receiver` accepts until the promise is dropped.
  kj::Promise<void> listen(kj::ConnectionReceiver& receiver);

 private:
  class Service;
  kj::Own<kj::HttpHeaderTable> table_;
  kj::HttpHeaderId authorization_;
  StatusSources sources_;
  WebTokens tokens_;
  std::string version_;
  kj::Own<kj::HttpServer> server_;
};

}  // namespace hnow::daemon
