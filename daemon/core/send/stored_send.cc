#include "core/send/stored_send.h"

namespace hnow::daemon {

SendStarter startOn(SendService& sends) {
  return [&sends](SendRequest request, std::function<void(const Result<std::uint64_t>&)> started) {
    sends.start(std::move(request), [started](const Result<std::pair<std::uint64_t, SendStatus>>& s) {
      started(s ? Result<std::uint64_t>(s->first) : Result<std::uint64_t>(s.error()));
    });
  };
}

StoredOwedSend storedOf(const SendRequest& r) {
  StoredOwedSend o;
  o.path = r.path;
  o.dest = r.dest;
  o.algo = r.algo;
  o.compress = r.compress;
  o.replan = r.replan;
  o.atomic = r.copy.atomic;
  o.deleteOthers = r.copy.deleteOthers;
  o.maxRateBytesPerSecond = r.maxRateBytesPerSecond;
  o.force = r.force;
  return o;
}

SendRequest requestOf(const StoredOwedSend& stored, std::vector<std::string> to) {
  SendRequest request;
  request.path = stored.path;
  request.dest = stored.dest;
  request.to = std::move(to);
  request.algo = stored.algo;
  request.compress = stored.compress;
  request.replan = stored.replan;
  request.copy.atomic = stored.atomic;
  request.copy.deleteOthers = stored.deleteOthers;
  request.maxRateBytesPerSecond = stored.maxRateBytesPerSecond;
  request.force = stored.force;
  return request;
}

}  // namespace hnow::daemon
