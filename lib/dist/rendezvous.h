// How ranks find each other: a c10d TCPStore at MASTER_ADDR:MASTER_PORT, hosted by the launcher
// (torchrun's agent, or ours) or, when no launcher hosts one, by rank 0.
#pragma once
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <chrono>
#include <cstdint>

#include "dist/rank_environment.h"

namespace trainer {

// This rank's view of the store (under /worker/attempt_<restart> for a launcher's store, as
// torch.distributed does). Rank 0 of a store it hosts waits for all ranks. A peer missing past
// `timeout` is a UserError naming the address.
c10::intrusive_ptr<c10d::Store> join_store(const RankEnvironment& environment, std::chrono::seconds timeout);

// The store a launcher hosts for its ranks; port 0 picks a free one.
class AgentStore {
 public:
  AgentStore(int64_t port, std::chrono::seconds timeout);
  int64_t port() const { return store_->getPort(); }

 private:
  c10::intrusive_ptr<c10d::TCPStore> store_;
};

}  // namespace trainer
