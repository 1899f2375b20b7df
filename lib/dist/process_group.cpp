// ProcessGroupGloo.hpp (and ProcessGroupNCCL.hpp) compile to nothing without these switches;
// some LibTorch CMake packages pass them already.
#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO
#endif
#include "dist/process_group.h"

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#ifdef TRAINER_CUDA
#ifndef USE_C10D_NCCL
#define USE_C10D_NCCL
#endif
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <cstdlib>

#include "dist/rendezvous.h"
#include "util/error.h"

namespace trainer {
namespace {

// One class for both backends: 1.13's Gloo and NCCL groups derive from ProcessGroup, 2.x's from
// Backend, and both spell these calls alike.
template <typename Backend>
class C10dCollective : public Collective {
 public:
  C10dCollective(c10::intrusive_ptr<Backend> backend, WorldLayout layout, c10::Device device,
                 std::chrono::seconds timeout)
      : backend_(std::move(backend)), layout_(layout), device_(device), timeout_(timeout) {}

  const WorldLayout& layout() const override { return layout_; }
  bool distributed() const override { return true; }

  Completion start_all_reduce(const at::Tensor& tensor) override {
    return start("all-reduce", [&] {
      std::vector<at::Tensor> one{tensor};  // a vector is copies of ONE tensor to c10d, never a list
      return backend_->allreduce(one);
    });
  }

  std::vector<double> all_reduce(const std::vector<double>& values, Reduction reduction) override {
    const at::Tensor tensor = at::tensor(values, at::kDouble).to(device_);
    c10d::AllreduceOptions options;
    options.reduceOp = reduction == Reduction::sum ? c10d::ReduceOp::SUM : c10d::ReduceOp::MAX;
    start("all-reduce", [&] {
      std::vector<at::Tensor> one{tensor};
      return backend_->allreduce(one, options);
    })();
    const at::Tensor host = tensor.cpu();
    return {host.data_ptr<double>(), host.data_ptr<double>() + host.numel()};
  }

  void broadcast(const at::Tensor& tensor) override {
    start("broadcast", [&] {
      std::vector<at::Tensor> one{tensor};
      return backend_->broadcast(one);  // root rank 0 by default
    })();
  }

 private:
  // Runs `launch` and returns what waits for the work; a failure of either becomes a UserError
  // that says which rank saw it and why it most likely happened.
  template <typename Launch>
  Completion start(const char* what, Launch&& launch) {
    c10::intrusive_ptr<c10d::Work> work;
    guard(what, [&] { work = launch(); });
    return [this, what, work] { guard(what, [&] { work->wait(); }); };
  }

  template <typename Call>
  void guard(const char* what, Call&& call) const {
    try {
      call();
    } catch (const std::exception& error) {
      throw UserError(fmt::format("rank {} of {}: {} failed: another rank exited or did not answer within "
                                  "dist_timeout={} s ({})",
                                  layout_.rank, layout_.world_size, what, timeout_.count(), error.what()));
    }
  }

  c10::intrusive_ptr<Backend> backend_;
  WorldLayout layout_;
  c10::Device device_;
  std::chrono::seconds timeout_;
};

bool is_loopback(const std::string& address) {
  return address == "localhost" || address.rfind("127.", 0) == 0 || address == "::1";
}

// As torch.distributed picks Gloo's interface: GLOO_SOCKET_IFNAME, else the loopback device when
// the job is on this machine, else the interface of this machine's hostname.
std::shared_ptr<::gloo::transport::Device> gloo_device(const std::string& master_addr) {
  if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME")) {
    return c10d::ProcessGroupGloo::createDeviceForInterface(interface);
  }
  if (is_loopback(master_addr)) return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

std::unique_ptr<Collective> gloo_group(const c10::intrusive_ptr<c10d::Store>& store,
                                       const RankEnvironment& environment, const c10::Device& device,
                                       std::chrono::seconds timeout) {
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  options->devices.push_back(gloo_device(environment.master_addr));
  const WorldLayout& layout = environment.layout;
  auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, static_cast<int>(layout.rank),
                                                           static_cast<int>(layout.world_size), options);
  return std::make_unique<C10dCollective<c10d::ProcessGroupGloo>>(group, layout, device, timeout);
}

std::unique_ptr<Collective> nccl_group(const c10::intrusive_ptr<c10d::Store>& store,
                                       const RankEnvironment& environment, const c10::Device& device,
                                       std::chrono::seconds timeout) {
#ifdef TRAINER_CUDA
  if (!device.is_cuda()) {
    throw UserError("dist_backend=nccl exchanges CUDA tensors, but this rank trains on " + device.str());
  }
  c10::cuda::set_device(device.index());
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  const WorldLayout& layout = environment.layout;
  auto group = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, static_cast<int>(layout.rank),
                                                           static_cast<int>(layout.world_size), options);
  return std::make_unique<C10dCollective<c10d::ProcessGroupNCCL>>(group, layout, device, timeout);
#else
  throw UserError("dist_backend=nccl needs a CUDA build (cmake -DTRAINER_CUDA=ON); this build has Gloo only");
#endif
}

}  // namespace

DistBackend resolve_backend(DistBackend requested, const c10::Device& device) {
  if (requested != DistBackend::automatic) return requested;
  return device.is_cuda() ? DistBackend::nccl : DistBackend::gloo;
}

std::unique_ptr<Collective> join_process_group(const RankEnvironment& environment, DistBackend backend,
                                               const c10::Device& device, std::chrono::seconds timeout) {
  const c10::intrusive_ptr<c10d::Store> store = join_store(environment, timeout);
  const bool nccl = resolve_backend(backend, device) == DistBackend::nccl;
  try {
    return nccl ? nccl_group(store, environment, device, timeout)
                : gloo_group(store, environment, c10::Device(c10::kCPU), timeout);
  } catch (const UserError&) {
    throw;
  } catch (const std::exception& error) {
    throw UserError(fmt::format("rank {} of {}: connecting to the other ranks ({}) failed within dist_timeout={} s: {}",
                                environment.layout.rank, environment.layout.world_size, nccl ? "nccl" : "gloo",
                                timeout.count(), error.what()));
  }
}

}  // namespace trainer
