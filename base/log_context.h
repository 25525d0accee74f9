#pragma once
// What a log line is about, besides its message: the operation (its id in
// `hnow ops`), the agent and the network peer. A daemon sets them where an
// event enters (an RPC call of a session, a report of a send, a tick of a
// job) for the code it runs from there; the log formatter of transport/
// writes them as fields of a JSON line (log_format = "json"), so a reader
// selects one operation's or one agent's lines without parsing messages.
// hnowd and hnow-agent log from one control thread each: the fields are
// per thread, and a thread that sets none logs none.
#include <cstdint>
#include <string>

namespace hnow {

struct LogFields {
  std::int64_t operation = 0;  // 0: none (as `hnow ops` numbers them, from 1)
  std::string agent;
  std::string peer;  // "host:port" of the connection the event came on
};

// The fields in force on this thread.
const LogFields& logFields();

// Sets the fields it is given (a non-zero operation, a non-empty agent or
// peer) for its lifetime, leaving the others as they were; restores them
// all when it ends. Scopes nest: an operation's scope inside an agent's
// call keeps the agent.
class LogScope {
 public:
  explicit LogScope(const LogFields& set);
  ~LogScope();
  LogScope(const LogScope&) = delete;
  LogScope& operator=(const LogScope&) = delete;

 private:
  LogFields saved_;
};

// Shorthands for the common one-field scopes.
inline LogFields operationField(std::int64_t operation) { return LogFields{operation, {}, {}}; }

}  // namespace hnow
