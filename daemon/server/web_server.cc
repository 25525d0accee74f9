#include "server/web_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <cstdlib>
#include <optional>

#include "server/metrics_text.h"
#include "server/web_assets.h"
#include "server/web_json.h"

namespace hnow::daemon {

namespace {

// The operations the page lists: those under way are among the newest.
constexpr std::size_t kRecentOperations = 50;

bool fromLoopback(kj::AsyncIoStream& stream) {
  sockaddr_storage address{};
  kj::uint length = sizeof address;
  stream.getpeername(reinterpret_cast<sockaddr*>(&address), &length);
  if (address.ss_family == AF_INET)
    return (ntohl(reinterpret_cast<sockaddr_in*>(&address)->sin_addr.s_addr) >> 24) == 127;
  if (address.ss_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<sockaddr_in6*>(&address)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(&a) || (IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127);
  }
  return false;
}

// The token of an `Authorization: Bearer TOKEN` header; "" for any other.
std::string bearerOf(kj::Maybe<kj::StringPtr> header) {
  std::string value;
  KJ_IF_MAYBE(h, header) { value = h->cStr(); }
  const std::string scheme = "Bearer ";
  if (value.size() <= scheme.size() || value.compare(0, scheme.size(), scheme) != 0) return "";
  return value.substr(scheme.size());
}

// What every answer carries: nothing cached, no type guessed, the page's
// script and style from this server alone, no framing by other sites.
// Images may be blob: URLs: the page fetches a send's picture with its
// token and shows it as an image, where an SVG's scripts never run.
void secure(kj::HttpHeaders& headers) {
  headers.add("Content-Security-Policy",
              "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; "
              "base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  headers.add("Cache-Control", "no-store");
  headers.add("X-Content-Type-Options", "nosniff");
  headers.add("X-Frame-Options", "DENY");
  headers.add("Referrer-Policy", "no-referrer");
}

// The record ID of `/api/ops/ID` followed by `suffix`; none for any other path.
std::optional<OperationId> operationIn(const std::string& path, const std::string& suffix) {
  const std::string prefix = "/api/ops/";
  if (path.size() <= prefix.size() + suffix.size() || path.rfind(prefix, 0) != 0 ||
      path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  const std::string digits = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  if (digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::strtoll(digits.c_str(), nullptr, 10);
}

}  // namespace

bool sameToken(const std::string& presented, const std::string& expected) {
  if (expected.empty()) return false;
  unsigned char a[SHA256_DIGEST_LENGTH], b[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(presented.data()), presented.size(), a);
  SHA256(reinterpret_cast<const unsigned char*>(expected.data()), expected.size(), b);
  return CRYPTO_memcmp(a, b, sizeof a) == 0;
}

bool mayRead(const std::string& path, bool loopback, const std::string& bearer, const WebTokens& tokens) {
  if (path == "/metrics") return loopback || sameToken(bearer, tokens.metrics);
  if (path.rfind("/api/", 0) == 0) return sameToken(bearer, tokens.pages);
  return true;
}

class WebServer::Service final : public kj::HttpService {
 public:
  Service(WebServer& server, bool loopback) : server_(server), loopback_(loopback) {}

  kj::Promise<void> request(kj::HttpMethod method, kj::StringPtr url, const kj::HttpHeaders& headers,
                            kj::AsyncInputStream&, Response& response) override {
    head_ = method == kj::HttpMethod::HEAD;
    if (method != kj::HttpMethod::GET && method != kj::HttpMethod::HEAD) {
      kj::HttpHeaders out(*server_.table_);
      out.add("Allow", "GET, HEAD");
      return answer(response, 405, "Method Not Allowed", "text/plain; charset=utf-8",
                    "hnowd's web view is read-only: GET and HEAD only\n", kj::mv(out));
    }
    std::string path = url.cStr();
    path = path.substr(0, path.find_first_of("?#"));
    const std::string bearer = bearerOf(headers.get(server_.authorization_));
    if (path == "/metrics") {
      if (!mayRead(path, loopback_, bearer, server_.tokens_))
        return refuse(response, server_.tokens_.metrics.empty()
                                    ? "/metrics answers loopback clients only: set [web] metrics_token_file in "
                                      "hnowd.toml for scrapers elsewhere (docs/metrics.md)\n"
                                    : "/metrics off the loopback needs 'Authorization: Bearer' with the token of "
                                      "[web] metrics_token_file (docs/metrics.md)\n");
      MetricsValues values{server_.version_, coordinatorStatusOf(server_.sources_).agents, {},
                           server_.sources_.coordinator->counts(), 0, 0};
      if (auto counts = server_.sources_.coordinator->operationLog().counts()) values.operations = *counts;
      else spdlog::warn("/metrics: cannot count hnowd's operation records: {}", counts.error().message);
      values.bytesSent = server_.sources_.coordinator->localSample().dataSent;
      values.bytesReceived = server_.sources_.coordinator->localSample().dataReceived;
      return answer(response, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", metricsText(values));
    }
    if (path.rfind("/api/", 0) == 0) {
      if (!mayRead(path, loopback_, bearer, server_.tokens_))
        return refuse(response, "{\"error\":\"the web view's token is needed: 'Authorization: Bearer' with the "
                                "token in [web] token_file (docs/web-view.md)\"}\n");
      if (path == "/api/status")
        return answer(response, 200, "OK", "application/json", webStatusJson(server_.sources_, kRecentOperations));
      if (auto record = operationIn(path, "")) {
        if (auto json = webOperationJson(server_.sources_, *record))
          return answer(response, 200, "OK", "application/json", *json);
      } else if (auto sent = operationIn(path, "/picture.svg")) {
        auto svg = webSendPictureSvg(server_.sources_, *sent);
        if (svg) return answer(response, 200, "OK", "image/svg+xml", std::move(*svg));
        return answer(response, 404, "Not Found", "text/plain; charset=utf-8", svg.error().message + "\n");
      }
      return answer(response, 404, "Not Found", "application/json", "{\"error\":\"no such operation\"}\n");
    }
    if (const WebAsset* asset = findWebAsset(path == "/" ? "/index.html" : path))
      return answer(response, 200, "OK", asset->type, std::string(asset->body));
    return answer(response, 404, "Not Found", "text/plain; charset=utf-8", "not found\n");
  }

 private:
  kj::Promise<void> refuse(Response& response, std::string why) {
    kj::HttpHeaders out(*server_.table_);
    out.add("WWW-Authenticate", "Bearer realm=\"hnowd\"");
    const bool json = why.front() == '{';
    return answer(response, 401, "Unauthorized", json ? "application/json" : "text/plain; charset=utf-8",
                  kj::mv(why), kj::mv(out));
  }

  kj::Promise<void> answer(Response& response, kj::uint status, kj::StringPtr statusText, kj::StringPtr type,
                           std::string body) {
    return answer(response, status, statusText, type, kj::mv(body), kj::HttpHeaders(*server_.table_));
  }

  kj::Promise<void> answer(Response& response, kj::uint status, kj::StringPtr statusText, kj::StringPtr type,
                           std::string body, kj::HttpHeaders headers) {
    headers.set(kj::HttpHeaderId::CONTENT_TYPE, type);
    secure(headers);
    auto text = kj::heap<std::string>(kj::mv(body));
    auto stream = response.send(status, statusText, headers, text->size());
    if (head_) return kj::READY_NOW;  // the length said, no body
    auto written = stream->write(text->data(), text->size());
    return written.attach(kj::mv(stream), kj::mv(text));
  }

  WebServer& server_;
  bool loopback_;
  bool head_ = false;  // the request being answered is a HEAD
};

WebServer::WebServer(kj::Timer& timer, StatusSources sources, WebTokens tokens, std::string version)
    : sources_(sources), tokens_(std::move(tokens)), version_(std::move(version)) {
  kj::HttpHeaderTable::Builder builder;
  authorization_ = builder.add("Authorization");
  table_ = builder.build();
  server_ = kj::heap<kj::HttpServer>(timer, *table_, [this](kj::AsyncIoStream& connection) -> kj::Own<kj::HttpService> {
    return kj::heap<Service>(*this, fromLoopback(connection));
  });
}

WebServer::~WebServer() = default;

kj::Promise<void> WebServer::listen(kj::ConnectionReceiver& receiver) { return server_->listenHttp(receiver); }

}  // namespace hnow::daemon
