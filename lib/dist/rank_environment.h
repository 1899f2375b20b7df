// What a rank learns from its environment: torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_USE_AGENT_STORE,
// TORCHELASTIC_RESTART_COUNT), or Slurm's when srun started it. Our own launcher (local_launcher.h)
// sets torchrun's, so a rank never needs to know who started it.
#pragma once
#include <optional>
#include <string>

#include "config/setting_types.h"
#include "dist/collective.h"

namespace trainer {

struct RankEnvironment {
  WorldLayout layout;
  std::string master_addr;
  int64_t master_port = 0;
  // The launcher (torchrun's agent, or ours) hosts the store: every rank is a client and works
  // under the prefix /worker/attempt_<restart_count>, as torch.distributed does.
  bool agent_store = false;
  int64_t restart_count = 0;
};

// torchrun's variables; without RANK and WORLD_SIZE, those of a task of an srun step of more than
// one task (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_TASKS_PER_NODE, MASTER_ADDR or the
// first host of SLURM_STEP_NODELIST / SLURM_JOB_NODELIST, MASTER_PORT or 15000 plus the last four
// digits of SLURM_JOB_ID); nullopt when neither: the process is a plain command. Malformed or
// inconsistent values are UserErrors naming the variable.
std::optional<RankEnvironment> rank_environment();

// The layout a run with these launch keys will have: this rank's, else rank 0 of nproc x nnodes ranks.
WorldLayout planned_world(const DistributedSettings& dist);

}  // namespace trainer
