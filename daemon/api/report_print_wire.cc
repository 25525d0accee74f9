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

// What time alone changes in a send's picture: its elapsed time, and the
// rates edges still receiving achieved so far (bytes over the time since
// they began): a report differs when bytes move, not when a second passes.
void withoutTime(std::optional<SendPicture>& picture) {
  if (!picture) return;
  picture->elapsedS = 0;
  for (auto& version : picture->versions)
    for (auto& edge : version.edges)
      if (edge.toS == 0) edge.achievedBytesPerS.reset();
}

}  // namespace

std::string reportPrint(SendStatus s) {
  s.elapsedS = 0;
  for (auto& group : s.groups) group.elapsedS = 0;
  withoutTime(s.picture);
  return wireBytes<wire::SendReport>(s);
}

std::string reportPrint(ManifestStatus s) {
  s.elapsedS = 0;
  for (auto& item : s.items) {
    item.send.elapsedS = 0;
    withoutTime(item.send.picture);
  }
  return wireBytes<wire::ManifestReport>(s);
}

std::string reportPrint(RunStatus s) {
  s.elapsedS = 0;
  return wireBytes<wire::RunReport>(s);
}

}  // namespace hnow::api
