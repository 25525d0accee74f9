#include "server/served_outputs.h"

#include <algorithm>

namespace hnow::daemon {

ServedOutputs::~ServedOutputs() {
  for (const std::string& token : tokens_) plane_->release(token);
}

void ServedOutputs::serve(const std::string& path, Granted done) {
  if (!plane_) return done(Error{"this hnowd serves no files to clients"});
  if (tokens_.size() >= kMaxServed)
    return done(Error{"this session has " + std::to_string(kMaxServed) + " files served already (connect again)"});
  const std::string token = freshToken_();
  tokens_.push_back(token);
  std::weak_ptr<ServedOutputs> self = weak_from_this();
  SourcePlane* plane = plane_;
  plane_->serveFile(token, path, [self, plane, token, done](const Result<SourceFile>& served) {
    auto outputs = self.lock();
    if (!outputs) {  // the session ended while the file was hashed: nobody will pull it
      plane->release(token);
      return done(Error{"the session ended"});
    }
    if (!served) {
      outputs->tokens_.erase(std::remove(outputs->tokens_.begin(), outputs->tokens_.end(), token), outputs->tokens_.end());
      return done(served.error());
    }
    done(Grant{token, *served});
  });
}

}  // namespace hnow::daemon
