// Slurm's compressed host lists (SLURM_JOB_NODELIST: "node[01-04,07],gpu-b3"), read as
// `scontrol show hostnames` expands them, for the rendezvous host of a job started by srun.
#pragma once
#include <string>

namespace trainer {

// The first host of a host list: "node[01-04,07]" -> "node01", "a[3-4]-ib,b1" -> "a3-ib",
// "host1,host2" -> "host1". A list that is empty or whose brackets do not close is a UserError
// naming `variable`.
std::string first_slurm_host(const std::string& nodelist, const std::string& variable);

}  // namespace trainer
