#include "dist/rendezvous.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include "util/error.h"
#include "util/torch_compat.h"

namespace trainer {

c10::intrusive_ptr<c10d::Store> join_store(const RankEnvironment& environment, std::chrono::seconds timeout) {
  const WorldLayout& layout = environment.layout;
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(environment.master_port);
  options.timeout = timeout;
  options.isServer = !environment.agent_store && layout.rank == 0;
  options.numWorkers = static_cast<std::size_t>(layout.world_size);
  options.waitWorkers = !environment.agent_store;
  compat::use_classic_store_server(options);
  try {
    auto store = c10::make_intrusive<c10d::TCPStore>(environment.master_addr, options);
    if (!environment.agent_store) return store;
    return c10::make_intrusive<c10d::PrefixStore>("/worker/attempt_" + std::to_string(environment.restart_count),
                                                  store);
  } catch (const std::exception& error) {
    throw UserError("rank " + std::to_string(layout.rank) + " of " + std::to_string(layout.world_size) +
                    ": no rendezvous at " + environment.master_addr + ":" + std::to_string(environment.master_port) +
                    " within dist_timeout=" + std::to_string(timeout.count()) +
                    " s (did every rank start, with the same MASTER_ADDR and MASTER_PORT?): " + error.what());
  }
}

AgentStore::AgentStore(int64_t port, std::chrono::seconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(port);
  options.isServer = true;
  options.waitWorkers = false;
  options.timeout = timeout;
  compat::use_classic_store_server(options);
  try {
    store_ = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
  } catch (const std::exception& error) {
    throw UserError("cannot host the ranks' store on port " + std::to_string(port) + " (master_port): " + error.what());
  }
}

}  // namespace trainer
