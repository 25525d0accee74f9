#pragma once
// RAII for libuv handles (libuv's design overview: only handles are closed,
// and their memory must outlive uv_close until its callback). The wrapper
// owns a heap-allocated handle; destroying the wrapper clears `data` (so no
// later callback reaches a destroyed owner) and hands the memory to
// uv_close, whose callback frees it. Requests in flight (writes, connects)
// see `data == nullptr` on their handle and only free themselves.
#include <uv.h>

#include <utility>

namespace hnow::transport::data {

template <class T>
class UvHandle {
 public:
  UvHandle() = default;
  // `init(T*)` is the matching uv_*_init; on failure the handle stays empty
  // and error() holds libuv's code.
  template <class Init>
  explicit UvHandle(Init&& init) : handle_(new T{}) {
    error_ = init(handle_);
    if (error_ != 0) {
      delete handle_;
      handle_ = nullptr;
    }
  }
  ~UvHandle() { reset(); }
  UvHandle(UvHandle&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)), error_(other.error_) {}
  UvHandle& operator=(UvHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
      error_ = other.error_;
    }
    return *this;
  }
  UvHandle(const UvHandle&) = delete;
  UvHandle& operator=(const UvHandle&) = delete;

  T* get() const { return handle_; }
  uv_handle_t* handle() const { return reinterpret_cast<uv_handle_t*>(handle_); }
  uv_stream_t* stream() const { return reinterpret_cast<uv_stream_t*>(handle_); }
  explicit operator bool() const { return handle_ != nullptr; }
  int error() const { return error_; }

  void reset() {
    if (!handle_) return;
    uv_handle_t* h = handle();
    h->data = nullptr;
    if (!uv_is_closing(h)) uv_close(h, [](uv_handle_t* closed) { delete reinterpret_cast<T*>(closed); });
    handle_ = nullptr;
  }

 private:
  T* handle_ = nullptr;
  int error_ = 0;
};

}  // namespace hnow::transport::data
