#include "util/stop_signal.h"

#include <csignal>

namespace trainer {
namespace {

volatile std::sig_atomic_t received_signal = 0;

void on_stop_signal(int signal_number) {
  if (received_signal != 0) {
    // Second signal: the user does not want to wait for the checkpoint.
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
    return;
  }
  received_signal = signal_number;
}

}  // namespace

void install_stop_signals() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

bool stop_requested() { return received_signal != 0; }

int stop_signal() { return received_signal; }

}  // namespace trainer
