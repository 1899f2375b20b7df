// What a rank learns from its environment: torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_USE_AGENT_STORE,
// TORCHELASTIC_RESTART_COUNT). Our own launcher (local_launcher.h) sets the same ones, and so can
// any other (a SLURM script), so a rank never needs to know who started it.
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

// nullopt when RANK and WORLD_SIZE are unset: the process is a plain command. Malformed or
// inconsistent values are UserErrors naming the variable.
std::optional<RankEnvironment> rank_environment();

// The layout a run with these launch keys will have: this rank's, else rank 0 of nproc x nnodes ranks.
WorldLayout planned_world(const DistributedSettings& dist);

}  // namespace trainer
