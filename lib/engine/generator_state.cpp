#include "engine/generator_state.h"

#include <ATen/CPUGeneratorImpl.h>

#include <mutex>

namespace trainer {

NamedTensors generator_states() {
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  return {{"cpu", generator.get_state()}};
}

void restore_generators(const NamedTensors& states) {
  for (const auto& [name, state] : states) {
    if (name != "cpu") continue;
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(state);
  }
}

}  // namespace trainer
