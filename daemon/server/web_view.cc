#include "server/web_view.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <filesystem>

#include "server/address_file.h"
#include "transport/auth.h"
#include "transport/identity.h"

namespace hnow::daemon {

Result<std::string> loadWebToken(const std::string& path, const std::string& what, bool create) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (!create) return Error{"cannot read " + what + " " + path + ": no such file (write a token of 16 or more "
                              "characters there, readable by hnowd's user only)"};
    if (auto written = transport::writeNewSecretFile(path, transport::freshSecretText() + "\n", what, ""); !written)
      return written.error();
    spdlog::info("made {} {} (mode 0600): operators open the web view with it", what, path);
  } else if ((info.st_mode & 077) != 0) {
    return Error{what + " " + path + " may be read by others than its owner: chmod 600 " + path};
  }
  transport::SecretLoad loaded = transport::loadSecretFile(path);
  if (!loaded.secret) return Error{what + ": " + loaded.error};
  return loaded.secret->bytes();
}

WebView::~WebView() {
  if (addressFile_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove(addressFile_, ignored);
}

Result<std::unique_ptr<WebView>> WebView::start(kj::AsyncIoContext& io, const conf::WebConfig& config,
                                                const std::string& addressFile, StatusSources sources,
                                                std::string version) {
  auto pages = loadWebToken(config.tokenFile, "the web view's token file", true);
  if (!pages) return pages.error();
  WebTokens tokens{*pages, ""};
  if (!config.metricsTokenFile.empty()) {
    auto metrics = loadWebToken(config.metricsTokenFile, "[web] metrics_token_file", false);
    if (!metrics) return metrics.error();
    tokens.metrics = *metrics;
  }
  std::unique_ptr<WebView> view(new WebView);
  try {
    auto address = io.provider->getNetwork().parseAddress(config.listen).wait(io.waitScope);
    view->receiver_ = address->listen();
  } catch (const kj::Exception& e) {
    return Error{"[web] listen = \"" + config.listen + "\": cannot listen there: " + e.getDescription().cStr()};
  }
  view->address_ = config.listen.substr(0, config.listen.rfind(':')) + ":" + std::to_string(view->receiver_->getPort());
  view->server_ = std::make_unique<WebServer>(io.provider->getTimer(), sources, std::move(tokens), std::move(version));
  view->serving_ = view->server_->listen(*view->receiver_).eagerlyEvaluate([](kj::Exception&& e) {
    spdlog::error("the web view stopped accepting connections: {}", e.getDescription().cStr());
  });
  if (!writeAddressFile(addressFile, view->address_)) return Error{"cannot write " + addressFile};
  view->addressFile_ = addressFile;
  spdlog::info("web view and /metrics on http://{}/", view->address_);
  return view;
}

}  // namespace hnow::daemon
