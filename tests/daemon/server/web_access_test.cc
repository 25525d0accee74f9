// Who may read what of the web view: tokens compared whole, /api/ behind
// the operators' token, /metrics open on the loopback only.
#include <doctest/doctest.h>

#include "server/web_server.h"

using namespace hnow::daemon;

namespace {

const WebTokens kTokens{"pages-token-0123456789abcdef", "scrape-token-0123456789abcdef"};

}  // namespace

TEST_CASE("a token matches only itself, whole, and an unset one matches nothing") {
  CHECK(sameToken("pages-token-0123456789abcdef", kTokens.pages));
  CHECK_FALSE(sameToken("pages-token-0123456789abcde", kTokens.pages));
  CHECK_FALSE(sameToken("pages-token-0123456789abcdef0", kTokens.pages));
  CHECK_FALSE(sameToken("", kTokens.pages));
  CHECK_FALSE(sameToken("", ""));
}

TEST_CASE("the JSON of the web view needs the operators' token, from the loopback too") {
  CHECK_FALSE(mayRead("/api/status", true, "", kTokens));
  CHECK_FALSE(mayRead("/api/status", false, "", kTokens));
  CHECK_FALSE(mayRead("/api/ops/3", true, kTokens.metrics, kTokens));
  CHECK(mayRead("/api/status", false, kTokens.pages, kTokens));
  CHECK(mayRead("/api/ops/3", true, kTokens.pages, kTokens));
}

TEST_CASE("/metrics is open to loopback clients, others need the scrapers' token, none when it is unset") {
  CHECK(mayRead("/metrics", true, "", kTokens));
  CHECK_FALSE(mayRead("/metrics", false, "", kTokens));
  CHECK_FALSE(mayRead("/metrics", false, kTokens.pages, kTokens));
  CHECK(mayRead("/metrics", false, kTokens.metrics, kTokens));
  const WebTokens noScrapers{kTokens.pages, ""};
  CHECK_FALSE(mayRead("/metrics", false, "", noScrapers));
  CHECK(mayRead("/metrics", true, "", noScrapers));
}

TEST_CASE("the page and its files hold no state and are served to anyone") {
  CHECK(mayRead("/", false, "", kTokens));
  CHECK(mayRead("/app.js", false, "", kTokens));
}
