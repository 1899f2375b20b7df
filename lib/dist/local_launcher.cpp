#include "dist/local_launcher.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <thread>

#include "config/device_list.h"
#include "dist/device_ranks.h"
#include "dist/rendezvous.h"
#include "util/error.h"

extern char** environ;

namespace trainer {
namespace {

using Clock = std::chrono::steady_clock;
// How often the supervisor looks at its ranks and at forwarded signals.
constexpr auto kPollInterval = std::chrono::milliseconds(50);
// Ranks told to stop after another failed get this long before SIGKILL (a stopped process only
// dies to SIGKILL).
constexpr auto kTerminateGrace = std::chrono::seconds(30);

volatile std::sig_atomic_t received_signal = 0;
void on_signal(int signal_number) { received_signal = signal_number; }

std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> arguments;
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\0', start);
    arguments.push_back(text.substr(start, end - start));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  if (arguments.empty()) throw UserError("cannot read this command's arguments from /proc/self/cmdline");
  return arguments;
}

// This process's environment with `overrides` replacing variables of the same name.
std::vector<std::string> environment_with(const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> entries;
  for (char** entry = environ; *entry; ++entry) {
    const std::string text(*entry);
    const std::string name = text.substr(0, text.find('='));
    const auto replaced = [&](const auto& item) { return item.first == name; };
    if (std::none_of(overrides.begin(), overrides.end(), replaced)) entries.push_back(text);
  }
  for (const auto& [name, value] : overrides) entries.push_back(name + "=" + value);
  return entries;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (auto& text : strings) result.push_back(text.data());
  result.push_back(nullptr);
  return result;
}

// Between fork and exec only async-signal-safe calls: everything exec needs is built before.
pid_t start_rank(std::vector<std::string> arguments, std::vector<std::string> environment) {
  std::vector<char*> argv = pointers(arguments);
  std::vector<char*> envp = pointers(environment);
  const pid_t launcher = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw UserError(std::string("cannot start a rank: fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);                    // a terminal's Ctrl-C reaches the ranks only through the launcher
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // and a launcher killed outright takes its ranks along
    if (getppid() != launcher) _exit(1);
    execve("/proc/self/exe", argv.data(), envp.data());
    _exit(127);
  }
  return pid;
}

std::string describe(int status) {
  if (WIFSIGNALED(status)) {
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  }
  return "exited with code " + std::to_string(WEXITSTATUS(status));
}

int exit_code(int status) { return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status); }

struct Rank {
  int64_t rank = 0;
  pid_t pid = 0;
  bool running = true;
};

void signal_running(const std::vector<Rank>& ranks, int signal_number) {
  for (const Rank& rank : ranks) {
    if (rank.running) kill(rank.pid, signal_number);
  }
}

struct Exit {
  Rank* rank = nullptr;
  int status = 0;
};

// Exits of ranks since the last look, those killed by a signal first: when several fail at once,
// the one that died outright is the cause and the others, which exited with an error, reacted.
std::vector<Exit> collect_exits(std::vector<Rank>& ranks) {
  std::vector<Exit> exits;
  int status = 0;
  pid_t pid = 0;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    const auto rank = std::find_if(ranks.begin(), ranks.end(), [&](const Rank& r) { return r.pid == pid; });
    if (rank == ranks.end()) continue;
    rank->running = false;
    exits.push_back({&*rank, status});
  }
  std::stable_partition(exits.begin(), exits.end(), [](const Exit& exit) { return WIFSIGNALED(exit.status); });
  return exits;
}

int supervise(std::vector<Rank>& ranks, int64_t world_size) {
  std::optional<int> failure;        // exit code of the first rank that failed on its own
  std::optional<Clock::time_point> kill_at;
  bool forwarded = false;            // a stop was forwarded: non-zero exits are the ranks obeying it
  int result = 0;
  while (std::any_of(ranks.begin(), ranks.end(), [](const Rank& rank) { return rank.running; })) {
    if (const int signal_number = received_signal) {
      received_signal = 0;
      forwarded = true;
      signal_running(ranks, signal_number);
    }
    if (kill_at && Clock::now() >= *kill_at) signal_running(ranks, SIGKILL);
    for (const Exit& exit : collect_exits(ranks)) {
      const int code = exit_code(exit.status);
      if (code == 0) continue;
      if (result == 0) result = code;
      if (forwarded || failure) continue;
      failure = code;
      std::fprintf(stderr, "error: rank %lld of %lld (pid %d) %s; stopping the other ranks\n",
                   static_cast<long long>(exit.rank->rank), static_cast<long long>(world_size),
                   static_cast<int>(exit.rank->pid), describe(exit.status).c_str());
      signal_running(ranks, SIGTERM);
      kill_at = Clock::now() + kTerminateGrace;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  return failure.value_or(result);
}

}  // namespace

bool launches_ranks(const DistributedSettings& dist) { return dist.nproc > 1 || dist.nnodes > 1; }

int launch_local_ranks(const DistributedSettings& dist, const std::string& device) {
  const int64_t local_ranks = std::max<int64_t>(dist.nproc, 1);
  std::vector<std::pair<std::string, std::string>> gpus;
  if (!device_list(device).empty()) gpus.emplace_back("CUDA_VISIBLE_DEVICES", device_ranks_visible(device));
  const int64_t world_size = local_ranks * dist.nnodes;
  const char* address_variable = std::getenv("MASTER_ADDR");
  const char* port_variable = std::getenv("MASTER_PORT");
  const std::string master_addr = !dist.master_addr.empty() ? dist.master_addr
                                  : address_variable             ? address_variable
                                                                 : "127.0.0.1";
  int64_t master_port = dist.master_port > 0 ? dist.master_port : port_variable ? std::atoll(port_variable) : 0;
  if (dist.nnodes > 1 && (master_port == 0 || master_addr == "127.0.0.1")) {
    throw UserError("nnodes=" + std::to_string(dist.nnodes) + " needs master_addr and master_port (or "
                    "MASTER_ADDR and MASTER_PORT): rank 0's machine, the same on every machine");
  }
  // Node 0 hosts the store as torchrun's agent does; the ranks only join it.
  std::optional<AgentStore> store;
  if (dist.node_rank == 0) {
    store.emplace(master_port, std::chrono::seconds(dist.timeout));
    master_port = store->port();
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const std::vector<std::string> arguments = own_command_line();
  std::vector<Rank> ranks;
  for (int64_t local_rank = 0; local_rank < local_ranks; ++local_rank) {
    const int64_t rank = dist.node_rank * local_ranks + local_rank;
    std::vector<std::pair<std::string, std::string>> variables{
        {"RANK", std::to_string(rank)},
        {"LOCAL_RANK", std::to_string(local_rank)},
        {"GROUP_RANK", std::to_string(dist.node_rank)},
        {"WORLD_SIZE", std::to_string(world_size)},
        {"LOCAL_WORLD_SIZE", std::to_string(local_ranks)},
        {"MASTER_ADDR", master_addr},
        {"MASTER_PORT", std::to_string(master_port)},
        {"TORCHELASTIC_USE_AGENT_STORE", "True"},
        {"TORCHELASTIC_RESTART_COUNT", "0"}};
    variables.insert(variables.end(), gpus.begin(), gpus.end());
    ranks.push_back({rank, start_rank(arguments, environment_with(variables))});
  }
  return supervise(ranks, world_size);
}

}  // namespace trainer
