#include "dist/rank_environment.h"

#include <cctype>
#include <cstdlib>

#include "dist/slurm_nodes.h"
#include "util/error.h"

namespace trainer {
namespace {

std::optional<std::string> variable(const char* name) {
  const char* value = std::getenv(name);
  if (!value) return std::nullopt;
  return std::string(value);
}

int64_t integer_variable(const char* name, std::optional<int64_t> fallback) {
  const std::optional<std::string> text = variable(name);
  if (!text) {
    if (fallback) return *fallback;
    throw UserError(std::string("environment variable ") + name + " is not set; a distributed rank needs RANK, "
                    "WORLD_SIZE, MASTER_ADDR and MASTER_PORT (torchrun sets them all)");
  }
  char* end = nullptr;
  const long long value = std::strtoll(text->c_str(), &end, 10);
  if (text->empty() || *end != '\0' || value < 0) {
    throw UserError(std::string("environment variable ") + name + "='" + *text + "' is not a non-negative integer");
  }
  return value;
}

void check_below(const char* name, int64_t value, const char* limit_name, int64_t limit) {
  if (value >= limit) {
    throw UserError(std::string("environment variable ") + name + "=" + std::to_string(value) + " must be below " +
                    limit_name + "=" + std::to_string(limit));
  }
}

// The tasks per node of SLURM_TASKS_PER_NODE's first group ("4(x2),3" -> 4).
std::optional<int64_t> slurm_tasks_per_node() {
  const std::optional<std::string> text = variable("SLURM_TASKS_PER_NODE");
  if (!text || text->empty() || !std::isdigit(static_cast<unsigned char>(text->front()))) return std::nullopt;
  return std::stoll(text->substr(0, text->find_first_not_of("0123456789")));
}

// A task of a job step srun started with more than one task: timm's utils/distributed.py reads its
// rank, world size and local rank from SLURM_PROCID, SLURM_NTASKS and SLURM_LOCALID. MASTER_ADDR and
// MASTER_PORT, where the job script leaves them unset, are the step's first host and, as Lightning
// picks it, 15000 plus the last four digits of SLURM_JOB_ID.
std::optional<RankEnvironment> slurm_environment() {
  if (!variable("SLURM_PROCID") || !variable("SLURM_NTASKS") || integer_variable("SLURM_NTASKS", 0) < 2) {
    return std::nullopt;
  }
  RankEnvironment environment;
  WorldLayout& layout = environment.layout;
  layout.rank = integer_variable("SLURM_PROCID", std::nullopt);
  layout.world_size = integer_variable("SLURM_NTASKS", std::nullopt);
  layout.local_rank = integer_variable("SLURM_LOCALID", 0);
  layout.local_world_size = slurm_tasks_per_node().value_or(layout.world_size);
  check_below("SLURM_PROCID", layout.rank, "SLURM_NTASKS", layout.world_size);
  check_below("SLURM_LOCALID", layout.local_rank, "SLURM_TASKS_PER_NODE", layout.local_world_size);
  environment.master_addr = variable("MASTER_ADDR").value_or("");
  if (environment.master_addr.empty()) {
    const char* list = variable("SLURM_STEP_NODELIST") ? "SLURM_STEP_NODELIST" : "SLURM_JOB_NODELIST";
    if (!variable(list)) throw UserError("a Slurm task needs MASTER_ADDR or SLURM_JOB_NODELIST in its environment");
    environment.master_addr = first_slurm_host(*variable(list), list);
  }
  environment.master_port = variable("MASTER_PORT") ? integer_variable("MASTER_PORT", std::nullopt)
                                                     : 15000 + integer_variable("SLURM_JOB_ID", std::nullopt) % 10000;
  check_below("MASTER_PORT", environment.master_port, "the port limit", 65536);
  return environment;
}

}  // namespace

std::optional<RankEnvironment> rank_environment() {
  if (!variable("RANK") && !variable("WORLD_SIZE")) return slurm_environment();
  RankEnvironment environment;
  WorldLayout& layout = environment.layout;
  layout.rank = integer_variable("RANK", std::nullopt);
  layout.world_size = integer_variable("WORLD_SIZE", std::nullopt);
  // Without the local variables the job is taken to be on one machine.
  layout.local_rank = integer_variable("LOCAL_RANK", layout.rank);
  layout.local_world_size = integer_variable("LOCAL_WORLD_SIZE", layout.world_size);
  check_below("RANK", layout.rank, "WORLD_SIZE", layout.world_size);
  check_below("LOCAL_RANK", layout.local_rank, "LOCAL_WORLD_SIZE", layout.local_world_size);
  environment.master_addr = variable("MASTER_ADDR").value_or("");
  if (environment.master_addr.empty()) throw UserError("environment variable MASTER_ADDR is not set");
  environment.master_port = integer_variable("MASTER_PORT", std::nullopt);
  check_below("MASTER_PORT", environment.master_port, "the port limit", 65536);
  environment.agent_store = variable("TORCHELASTIC_USE_AGENT_STORE").value_or("") == "True";
  environment.restart_count = integer_variable("TORCHELASTIC_RESTART_COUNT", 0);
  return environment;
}

WorldLayout planned_world(const DistributedSettings& dist) {
  if (const auto environment = rank_environment()) return environment->layout;
  WorldLayout layout;
  layout.local_world_size = std::max<int64_t>(dist.nproc, 1);
  layout.world_size = layout.local_world_size * dist.nnodes;
  return layout;
}

}  // namespace trainer
