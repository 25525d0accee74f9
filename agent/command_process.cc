#include "agent/command_process.h"

#include <uv.h>

#include <chrono>
#include <cstring>

namespace hnow::agent {

namespace {

struct ExitState {
  bool exited = false;
  std::int64_t status = 0;
  int signal = 0;
};

void onExit(uv_process_t* process, int64_t status, int signal) {
  auto* state = static_cast<ExitState*>(process->data);
  state->exited = true;
  state->status = status;
  state->signal = signal;
  uv_close(reinterpret_cast<uv_handle_t*>(process), nullptr);
}

std::string words(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

CommandOutcome runCommand(const std::vector<std::string>& argv, int stdinFd, int stdoutFd, int stderrFd,
                          void (*onStart)(void*, int), void* context) {
  CommandOutcome outcome;
  if (argv.empty()) {
    outcome.error = "the command is empty";
    return outcome;
  }
  uv_loop_t loop;
  uv_loop_init(&loop);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  uv_stdio_container_t stdio[3];
  stdio[0].flags = UV_INHERIT_FD;
  stdio[0].data.fd = stdinFd;
  stdio[1].flags = UV_INHERIT_FD;
  stdio[1].data.fd = stdoutFd;
  stdio[2].flags = UV_INHERIT_FD;
  stdio[2].data.fd = stderrFd;
  uv_process_options_t options{};
  options.file = args[0];
  options.args = args.data();
  options.stdio = stdio;
  options.stdio_count = 3;
  options.exit_cb = onExit;
  uv_process_t process{};
  ExitState state;
  process.data = &state;
  const auto start = std::chrono::steady_clock::now();
  int rc = uv_spawn(&loop, &process, &options);
  if (rc != 0) {
    outcome.error = "cannot start '" + words(argv) + "': " + uv_strerror(rc);
    uv_close(reinterpret_cast<uv_handle_t*>(&process), nullptr);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    return outcome;
  }
  outcome.started = true;
  if (onStart) onStart(context, process.pid);
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  outcome.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.signal = state.signal;
  if (state.signal != 0) {
    outcome.error = "'" + words(argv) + "' was killed by signal " + std::to_string(state.signal) + " (" +
                    ::strsignal(state.signal) + ")";
  } else {
    outcome.exitCode = static_cast<int>(state.status);
    if (outcome.exitCode != 0)
      outcome.error = "'" + words(argv) + "' exited with status " + std::to_string(outcome.exitCode);
  }
  return outcome;
}

}  // namespace hnow::agent
