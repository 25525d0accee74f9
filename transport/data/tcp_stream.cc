#include "transport/data/tcp_stream.h"

#include <netdb.h>

#include <algorithm>

#include <cstring>

namespace hnow::transport::data {

namespace {

struct WriteRequest {
  uv_write_t request;
  std::string bytes;
};

}  // namespace

TcpStream::TcpStream(uv_loop_t* loop, Callbacks callbacks, std::shared_ptr<WireTally> wire)
    : callbacks_(std::move(callbacks)),
      tcp_([loop](uv_tcp_t* t) { return uv_tcp_init(loop, t); }), wire_(std::move(wire)) {
  if (tcp_) tcp_.get()->data = this;
  if (wire_) wire_->attach(this);
}

TcpStream::~TcpStream() {
  *alive_ = false;
  countWire();
  if (wire_) wire_->detach(this);
}

void TcpStream::countWire() {
  if (!wire_ || !tcp_ || !open_) return;
  uv_os_fd_t fd = -1;
  if (uv_fileno(tcp_.handle(), &fd) != 0) return;
  auto now = wireBytesOf(fd);
  if (!now) return;
  auto since = [](std::uint64_t now, std::uint64_t seen) { return now - std::min(now, seen); };
  wire_->add({since(now->acked, wireSeen_.acked), since(now->received, wireSeen_.received)});
  wireSeen_ = *now;
}

WireBytes WireTally::total() {
  for (TcpStream* stream : streams_) stream->countWire();
  return total_;
}

bool TcpStream::accept(uv_stream_t* server) {
  if (!tcp_ || uv_accept(server, tcp_.stream()) != 0) return false;
  uv_tcp_nodelay(tcp_.get(), 1);
  open_ = true;
  peer_ = lookUpPeer();
  startReading();
  return true;
}

void TcpStream::connect(const sockaddr* address) {
  auto* request = new uv_connect_t{};
  int rc = tcp_ ? uv_tcp_connect(request, tcp_.get(), address, [](uv_connect_t* r, int status) {
    auto* self = r->handle->data ? static_cast<TcpStream*>(r->handle->data) : nullptr;
    delete r;
    if (!self) return;
    if (status != 0) return self->close(std::string("cannot connect: ") + uv_strerror(status));
    uv_tcp_nodelay(self->tcp_.get(), 1);
    self->open_ = true;
    self->peer_ = self->lookUpPeer();
    self->startReading();
    if (self->callbacks_.onConnected) self->callbacks_.onConnected();
  })
                : UV_EINVAL;
  if (rc != 0) {
    delete request;
    close(std::string("cannot connect: ") + uv_strerror(rc));
  }
}

void TcpStream::adopt(TcpStream& from) {
  if (open_ || closed_ || !from.open_) return close("cannot take over the connection");
  from.countWire();
  tcp_ = std::move(from.tcp_);
  tcp_.get()->data = this;
  std::swap(decoder_, from.decoder_);  // `from` is left a fresh one, so its read loop sees no failure
  open_ = true;
  reading_ = from.reading_;
  peer_ = from.peer_;
  wireSeen_ = from.wireSeen_;  // the socket's counts so far were tallied by `from`
  from.open_ = from.reading_ = false;
  from.closed_ = true;
}

void TcpStream::write(std::string bytes) {
  if (!open_) return;
  auto* request = new WriteRequest{};
  request->bytes = std::move(bytes);
  uv_buf_t buf = uv_buf_init(request->bytes.data(), static_cast<unsigned>(request->bytes.size()));
  int rc = uv_write(&request->request, tcp_.stream(), &buf, 1, [](uv_write_t* r, int status) {
    auto* request = reinterpret_cast<WriteRequest*>(r);
    auto* self = r->handle->data ? static_cast<TcpStream*>(r->handle->data) : nullptr;
    delete request;
    if (self && status != 0 && status != UV_ECANCELED)
      self->close(std::string("write failed: ") + uv_strerror(status));
  });
  if (rc != 0) {
    delete request;
    close(std::string("write failed: ") + uv_strerror(rc));
  }
}

void TcpStream::startReading() {
  if (!open_ || reading_) return;
  reading_ = true;
  uv_read_start(
      tcp_.stream(),
      [](uv_handle_t* h, size_t, uv_buf_t* buf) {
        auto* self = static_cast<TcpStream*>(h->data);
        *buf = uv_buf_init(self->readBuffer_, sizeof self->readBuffer_);
      },
      [](uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
        if (s->data) static_cast<TcpStream*>(s->data)->onRead(n, buf);
      });
}

void TcpStream::pauseReading() {
  if (open_ && reading_) uv_read_stop(tcp_.stream());
  reading_ = false;
}

void TcpStream::resumeReading() { startReading(); }

void TcpStream::onRead(ssize_t n, const uv_buf_t* buf) {
  if (n == UV_EOF) return close("closed by the peer");
  if (n < 0) return close(std::string("read failed: ") + uv_strerror(static_cast<int>(n)));
  decoder_.feed(buf->base, static_cast<std::size_t>(n));
  std::shared_ptr<bool> alive = alive_;
  while (*alive && open_) {
    std::optional<Frame> frame = decoder_.next();
    if (!frame) break;
    callbacks_.onFrame(std::move(*frame));
  }
  if (*alive && decoder_.failed()) close("refused: " + decoder_.error());
}

void TcpStream::close(const std::string& reason) {
  if (closed_) return;
  countWire();
  closed_ = true;
  open_ = false;
  reading_ = false;
  tcp_.reset();
  if (callbacks_.onClosed) {
    auto onClosed = callbacks_.onClosed;  // the owner may destroy us inside
    onClosed(reason);
  }
}

void TcpStream::shutdown() {
  countWire();
  closed_ = true;
  open_ = false;
  reading_ = false;
  tcp_.reset();
}

std::string TcpStream::lookUpPeer() const {
  if (!tcp_) return "?";
  sockaddr_storage address{};
  int length = sizeof address;
  if (uv_tcp_getpeername(tcp_.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0) return "?";
  char host[64] = "?";
  int port = 0;
  if (address.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&address);
    uv_ip4_name(in, host, sizeof host);
    port = ntohs(in->sin_port);
  } else if (address.ss_family == AF_INET6) {
    auto* in = reinterpret_cast<sockaddr_in6*>(&address);
    uv_ip6_name(in, host, sizeof host);
    port = ntohs(in->sin6_port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

bool parseAddress(const std::string& hostPort, sockaddr_storage& out) {
  auto colon = hostPort.rfind(':');
  if (colon == std::string::npos) return false;
  std::string host = hostPort.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  int port = 0;
  try {
    port = std::stoi(hostPort.substr(colon + 1));
  } catch (...) {
    return false;
  }
  if (port <= 0 || port > 65535) return false;
  std::memset(&out, 0, sizeof out);
  if (uv_ip4_addr(host.c_str(), port, reinterpret_cast<sockaddr_in*>(&out)) == 0) return true;
  if (uv_ip6_addr(host.c_str(), port, reinterpret_cast<sockaddr_in6*>(&out)) == 0) return true;
  // A name: resolved once here; labs usually give addresses.
  addrinfo hints{}, *found = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || !found) return false;
  std::memcpy(&out, found->ai_addr, found->ai_addrlen);
  freeaddrinfo(found);
  return true;
}

}  // namespace hnow::transport::data
