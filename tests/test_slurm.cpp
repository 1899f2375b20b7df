// Slurm (issue 46 item 4): a task srun starts finds its rank, world size, local rank and the
// rendezvous from Slurm's variables alone, as timm's utils/distributed.py maps them; and two Gloo
// ranks on CPU with only those variables set train as nproc=2 does.
#include <catch2/catch.hpp>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <optional>

#include "dist/rank_environment.h"
#include "dist/slurm_nodes.h"
#include "io/checkpoint.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

// Sets the variables while it lives (an empty value unsets one), restoring them after.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const std::map<std::string, std::string>& values) {
    for (const auto& [name, value] : values) {
      const char* previous = std::getenv(name.c_str());
      saved_[name] = previous ? std::optional<std::string>(previous) : std::nullopt;
      if (value.empty()) {
        unsetenv(name.c_str());
      } else {
        setenv(name.c_str(), value.c_str(), 1);
      }
    }
  }
  ~ScopedEnvironment() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// The torchrun variables unset, so that Slurm's are read.
std::map<std::string, std::string> slurm_task(std::map<std::string, std::string> values) {
  for (const char* name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
                           "SLURM_STEP_NODELIST", "SLURM_TASKS_PER_NODE"}) {
    values.emplace(name, "");
  }
  return values;
}

// A port from first to last that is free now, tried from a point that varies between processes.
int free_port_between(int first, int last) {
  const int span = last - first + 1;
  const int start = static_cast<int>(getpid()) % span;
  for (int i = 0; i < span; ++i) {
    const int port = first + (start + i) % span;
    const int socket_fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    const bool bound = socket_fd >= 0 && bind(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    if (socket_fd >= 0) close(socket_fd);
    if (bound) return port;
  }
  throw std::runtime_error("no free port between " + std::to_string(first) + " and " + std::to_string(last));
}

}  // namespace

TEST_CASE("the first host of a Slurm host list, as scontrol show hostnames expands it", "[dist][slurm]") {
  CHECK(first_slurm_host("node[01-04,07]", "L") == "node01");
  CHECK(first_slurm_host("gpu-a[3-4]-ib,gpu-b1", "L") == "gpu-a3-ib");
  CHECK(first_slurm_host("host1,host2", "L") == "host1");
  CHECK(first_slurm_host("n[007,009]", "L") == "n007");
  CHECK(first_slurm_host("localhost", "L") == "localhost");
  CHECK_THROWS_WITH(first_slurm_host("node[01-04", "SLURM_JOB_NODELIST"),
                    Catch::Contains("SLURM_JOB_NODELIST='node[01-04'") && Catch::Contains("not closed"));
  CHECK_THROWS_AS(first_slurm_host("", "L"), UserError);
  CHECK_THROWS_AS(first_slurm_host("node[a-b]", "L"), UserError);
}

TEST_CASE("a task of an srun step takes its rank and rendezvous from Slurm's variables", "[dist][slurm]") {
  {
    const ScopedEnvironment env(slurm_task({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "8"}, {"SLURM_LOCALID", "1"},
                                            {"SLURM_TASKS_PER_NODE", "4(x2)"},
                                            {"SLURM_JOB_NODELIST", "node[03-04]"}, {"SLURM_JOB_ID", "1234567"}}));
    const std::optional<RankEnvironment> rank = rank_environment();
    REQUIRE(rank);
    CHECK(rank->layout.rank == 5);
    CHECK(rank->layout.world_size == 8);
    CHECK(rank->layout.local_rank == 1);
    CHECK(rank->layout.local_world_size == 4);
    CHECK(rank->master_addr == "node03");
    CHECK(rank->master_port == 15000 + 4567);  // Lightning's rule: the job id's last four digits
  }
  {
    // The job script's own MASTER_ADDR and MASTER_PORT win; torchrun's RANK wins over Slurm's.
    const ScopedEnvironment env(slurm_task({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}, {"SLURM_JOB_ID", "9"}}));
    const ScopedEnvironment master({{"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29400"}});
    CHECK(rank_environment()->master_addr == "10.0.0.1");
    CHECK(rank_environment()->master_port == 29400);
    const ScopedEnvironment torchrun({{"RANK", "0"}, {"WORLD_SIZE", "1"}});
    CHECK(rank_environment()->layout.world_size == 1);
  }
  {
    // A step of one task (sbatch's script, srun -n1) is a plain command.
    const ScopedEnvironment env(slurm_task({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}}));
    CHECK_FALSE(rank_environment());
  }
  {
    const ScopedEnvironment env(slurm_task({{"SLURM_PROCID", "2"}, {"SLURM_NTASKS", "2"}, {"SLURM_JOB_ID", "1"},
                                            {"SLURM_JOB_NODELIST", "a"}}));
    CHECK_THROWS_WITH(rank_environment(), Catch::Contains("SLURM_PROCID=2 must be below SLURM_NTASKS=2"));
  }
}

TEST_CASE("two Gloo ranks with only Slurm's variables train as nproc=2 does", "[dist][slurm][cli]") {
  TempDir dir("slurm-cli");
  write_two_class_images(dir / "data", {20, 6, 16, 5, "a", "b"});
  const std::string recipe = "train data=" + dir.file("data") +
                             " scale=0 imgsz=16 norm=gn accumulate=2 workers=1 threads=1 optimizer=sgd lr0=0.02 "
                             "warmup_updates=1 plots=false epochs=1 batch=8 dist_timeout=120 --quiet project=" + dir.file("runs");
  const CommandResult launched = run_trainer(recipe + " name=nproc nproc=2");
  INFO(launched.output);
  REQUIRE(launched.exit_code == 0);
  // The job id gives the port: 15000 + its last four digits, taken free here.
  const std::string job = std::to_string(free_port_between(15000, 24999) - 15000);
  std::string tasks;
  for (const int rank : {0, 1}) {
    tasks += "(env -u RANK -u WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT SLURM_PROCID=" + std::to_string(rank) +
             " SLURM_LOCALID=" + std::to_string(rank) + " SLURM_NTASKS=2 SLURM_TASKS_PER_NODE=2 SLURM_JOB_ID=" +
             job + " SLURM_JOB_NODELIST=localhost " + TRAINER_BINARY + " " + recipe + " name=slurm > " +
             dir.file("rank" + std::to_string(rank) + ".log") + " 2>&1; echo $? > " +
             dir.file("rank" + std::to_string(rank) + ".status") + ") & ";
  }
  const CommandResult ran = run_command(tasks + "wait");
  INFO(read_text(dir / "rank0.log") << read_text(dir / "rank1.log"));
  CHECK(read_text(dir / "rank0.status") == "0\n");
  CHECK(read_text(dir / "rank1.status") == "0\n");
  CHECK(identical(load_checkpoint(dir / "runs" / "slurm" / "weights" / "last.pt").model,
                  load_checkpoint(dir / "runs" / "nproc" / "weights" / "last.pt").model));
}
