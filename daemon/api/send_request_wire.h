#pragma once
// The one codec of `hnow send`'s request (transport/send.capnp
// SendRequest): the CLI writes it, hnowd's session reads it.
#include "api/send_request.h"
#include "transport/send.capnp.h"

namespace hnow::api {

void toWire(const SendRequest& request, wire::SendRequest::Builder out);
// As sent, but an empty algo or compress is "auto". Refuses (kj) a max rate
// that is not finite or negative.
SendRequest sendRequestFromWire(wire::SendRequest::Reader in);

}  // namespace hnow::api
