#include "api/run_request_bytes.h"

#include <capnp/message.h>
#include <capnp/serialize-packed.h>
#include <kj/io.h>

#include "api/run_wire.h"

namespace hnow::api {

std::string encodeRunRequest(const RunRequest& request) {
  capnp::MallocMessageBuilder message;
  toWire(request, message.initRoot<wire::RunRequest>());
  kj::VectorOutputStream out;
  capnp::writePackedMessage(out, message);
  auto bytes = out.getArray();
  return std::string(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
}

Result<RunRequest> decodeRunRequest(const std::string& bytes) {
  RunRequest request;
  auto failure = kj::runCatchingExceptions([&] {
    kj::ArrayInputStream in(kj::arrayPtr(reinterpret_cast<const kj::byte*>(bytes.data()), bytes.size()));
    capnp::PackedMessageReader message(in);
    request = runRequestFromWire(message.getRoot<wire::RunRequest>());
  });
  if (failure != nullptr) return Error{"a queued run's request in state.db cannot be read (" + std::to_string(bytes.size()) + " bytes)"};
  return request;
}

}  // namespace hnow::api
