// `trainer train … nproc=N` when no launcher started this process: this process becomes the
// launcher of its machine's N ranks, doing what torchrun's agent does (R17).
#pragma once
#include <string>

#include "config/setting_types.h"

namespace trainer {

// nproc > 1 or nnodes > 1: the command asks for more processes than itself.
bool launches_ranks(const DistributedSettings& dist);

// Starts this same command line (/proc/self/exe with /proc/self/cmdline) once per local rank with
// torchrun's variables set (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT, and the agent-store pair: node 0's launcher hosts the store, on a free port of the
// loopback address for a one-machine job). Then supervises them: SIGINT/SIGTERM are forwarded
// once per signal (the ranks run in their own process group, so a terminal's Ctrl-C reaches them
// only through here), and when a rank exits non-zero or is killed, the others are terminated and
// the launcher fails naming it. Returns the exit code: 0, the failed rank's code, or that of a
// forwarded stop (130, 143).
// With a device list (`device=0,1`, config/device_list.h) the ranks see only their GPUs, rank r the
// r-th (CUDA_VISIBLE_DEVICES, dist/device_ranks.h); a machine without them is a UserError before
// any rank starts.
int launch_local_ranks(const DistributedSettings& dist, const std::string& device);

}  // namespace trainer
