#pragma once
// The one codec of hnowd's orders to an agent that carry data (agent_control.capnp
// ReceiveOrder, JobInput, JobTask, JobResult; their plain values are
// transport/orders/): hnowd's RPC glue writes the orders and reads the
// results, the agent the other way round, both through these pairs. Tokens and digests are raw bytes; what the agent reads is
// checked (32-byte tokens and digests, stripes that cover the file in
// order, a command to run).
#include "base/result.h"
#include "transport/agent_control.capnp.h"
#include "transport/copies.capnp.h"
#include "transport/orders/job_orders.h"
#include "transport/orders/receive_order.h"

namespace hnow::transport {

// Held by both SendRequest (daemon/api/send_request_wire.cc) and ReceiveOrder:
// what a ReceiveOrder's copy may hold is checked with the order (a tree's).
void toWire(const orders::CopyOptions& copy, wire::CopyOptions::Builder out);
orders::CopyOptions copyOptionsFromWire(wire::CopyOptions::Reader in);

void toWire(const orders::ReceiveOrder& order, wire::ReceiveOrder::Builder out);
Result<orders::ReceiveOrder> receiveOrderFromWire(wire::ReceiveOrder::Reader in);

void toWire(const orders::JobFileOrder& order, wire::JobInput::Builder out);
Result<orders::JobFileOrder> jobFileFromWire(wire::JobInput::Reader in);

void toWire(const orders::JobTaskOrder& order, wire::JobTask::Builder out);
Result<orders::JobTaskOrder> jobTaskFromWire(wire::JobTask::Reader in);

void toWire(const orders::JobTaskAnswer& answer, wire::JobResult::Builder out);
orders::JobTaskAnswer jobTaskAnswerFromWire(wire::JobResult::Reader in);

}  // namespace hnow::transport
