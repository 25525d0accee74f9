#pragma once
// How each agent lays down its copy of a send (copies.capnp CopyOptions):
// the options of `hnow send` the agent itself acts on. One value, held
// whole by what the client asks (api::SendRequest) and by what hnowd
// orders each agent (ReceiveOrder), so hnowd copies it from one to the
// other without naming its fields, and a new such option is a field here,
// its capnp field, its codec line (transport/agent_wire.cc), its flag in
// daemon/cli/main.cc and the agent's use (docs/architecture.md, "Adding a
// flag to hnow send").
namespace hnow::transport::orders {

struct CopyOptions {
  bool atomic = false;        // a tree: published at once (staged beside dest, then one rename)
  bool deleteOthers = false;  // a tree published file by file: then what dest holds that it does not name removed
};

}  // namespace hnow::transport::orders
