#include "api/report_print_wire.h"

#include <capnp/message.h>
#include <capnp/serialize.h>

#include "api/manifest_wire.h"
#include "api/run_wire.h"
#include "api/send_status_wire.h"

namespace hnow::api {

namespace {

template <class Report, class Status>
std::string wireBytes(const Status& status) {
  capnp::MallocMessageBuilder message;
  toWire(status, message.initRoot<Report>());
  auto words = capnp::messageToFlatArray(message);
  auto bytes = words.asBytes();
  return std::string(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
}

}  // namespace

std::string reportPrint(SendStatus s) {
  s.elapsedS = 0;
  for (auto& group : s.groups) group.elapsedS = 0;
  return wireBytes<wire::SendReport>(s);
}

std::string reportPrint(ManifestStatus s) {
  s.elapsedS = 0;
  for (auto& item : s.items) item.send.elapsedS = 0;
  return wireBytes<wire::ManifestReport>(s);
}

std::string reportPrint(RunStatus s) {
  s.elapsedS = 0;
  return wireBytes<wire::RunReport>(s);
}

}  // namespace hnow::api
