// SIGINT/SIGTERM as a request to stop cleanly: the first one sets a flag the training loop polls
// (it then saves a resumable checkpoint); a second one ends the process at once.
#pragma once

namespace trainer {

void install_stop_signals();
bool stop_requested();
// The signal that asked to stop (SIGINT or SIGTERM), 0 when none did.
int stop_signal();

}  // namespace trainer
