// The control plane's interface ids do not change. An RPC call names its
// method by the interface's id and the method's ordinal, so a peer of
// another build (an agent of this build and hnowd of the previous one, or
// the reverse) understands a call only while both agree on the id. capnp
// derives an id left unwritten from the declaring file's id and the name:
// moving an interface to another schema file would change it silently,
// which is why the schema files write every id out (transport/control.capnp).
#include <doctest/doctest.h>

#include <capnp/schema.h>

#include "transport/agent_control.capnp.h"
#include "transport/agent_session.capnp.h"
#include "transport/client_session.capnp.h"
#include "transport/control.capnp.h"

namespace wire = hnow::wire;

TEST_CASE("every control-plane interface keeps the id peers of other builds call it by") {
  CHECK(capnp::typeId<wire::Gate>() == 0xbeb661f6704be875ull);
  CHECK(capnp::typeId<wire::AgentSession>() == 0xb1df143f2b98c4deull);
  CHECK(capnp::typeId<wire::AgentControl>() == 0xa2b15c648861c029ull);
  CHECK(capnp::typeId<wire::ClientSession>() == 0x86761ec34b694686ull);
  CHECK(capnp::typeId<wire::ProgressListener>() == 0xf377927a6b80395eull);
}

TEST_CASE("the Gate's logins keep the ordinals peers of other builds call them by") {
  // The login methods are what a peer of another build calls first; their
  // ordinals are the other half of a call's name.
  auto gate = capnp::Schema::from<wire::Gate>();
  CHECK(gate.getMethodByName("challenge").getOrdinal() == 0);
  CHECK(gate.getMethodByName("loginAgent").getOrdinal() == 1);
  CHECK(gate.getMethodByName("loginClient").getOrdinal() == 2);
  CHECK(gate.getMethodByName("loginOperator").getOrdinal() == 3);
  CHECK(gate.getMethodByName("loginAgentKey").getOrdinal() == 4);
}
