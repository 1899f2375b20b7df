// The c10d process group behind Collective (R17): PyTorch's own distributed engine, Gloo on CPU
// and NCCL on CUDA (NCCL only in TRAINER_CUDA builds).
#pragma once
#include <c10/core/Device.h>

#include <chrono>
#include <memory>

#include "config/setting_types.h"
#include "dist/collective.h"
#include "dist/rank_environment.h"

namespace trainer {

// auto: NCCL for a CUDA device, Gloo otherwise.
DistBackend resolve_backend(DistBackend requested, const c10::Device& device);

// Joins the job: rendezvous through the store, then the backend's connections to every rank.
// `timeout` bounds the rendezvous and every collective, so a rank that dies or hangs makes the
// others fail with a UserError naming their rank instead of waiting forever. `device` holds the
// tensors the collective exchanges (cuda:LOCAL_RANK for NCCL).
std::unique_ptr<Collective> join_process_group(const RankEnvironment& environment, DistBackend backend,
                                               const c10::Device& device, std::chrono::seconds timeout);

}  // namespace trainer
