#include "server/control_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include "server/gate_server.h"
#include "transport/rpc_connection.h"

namespace hnow::daemon {

namespace {

std::string peerName(kj::AsyncIoStream& stream) {
  sockaddr_storage address{};
  kj::uint length = sizeof address;
  stream.getpeername(reinterpret_cast<sockaddr*>(&address), &length);
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (address.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&address);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    port = ntohs(in->sin_port);
  } else if (address.ss_family == AF_INET6) {
    auto* in = reinterpret_cast<sockaddr_in6*>(&address);
    inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof host);
    port = ntohs(in->sin6_port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

}  // namespace

ControlServer::ControlServer(Coordinator& coordinator, const transport::Secret& secret,
                             SendService* sends)
    : coordinator_(coordinator), secret_(secret), sends_(sends), tasks_(*this), connections_(*this) {}

kj::Promise<void> ControlServer::listen(kj::ConnectionReceiver& receiver) {
  return receiver.accept().then([this, &receiver](kj::Own<kj::AsyncIoStream> stream) {
    serve(kj::mv(stream));
    return listen(receiver);
  });
}

void ControlServer::serve(kj::Own<kj::AsyncIoStream> stream) {
  std::string peer = peerName(*stream);
  spdlog::debug("control connection from {}", peer);
  auto gate = kj::heap<GateServer>(coordinator_, secret_, tasks_, peer, sends_);
  auto connection = kj::heap<transport::RpcConnection>(kj::mv(stream), kj::mv(gate));
  auto ended = connection->onDisconnect();
  connections_.add(ended.attach(kj::mv(connection)));
}

void ControlServer::taskFailed(kj::Exception&& exception) {
  // A peer that vanishes mid-call is routine; anything else is worth a warning.
  if (exception.getType() == kj::Exception::Type::DISCONNECTED)
    spdlog::debug("control connection ended: {}", exception.getDescription().cStr());
  else
    spdlog::warn("control connection: {}", exception.getDescription().cStr());
}

}  // namespace hnow::daemon
