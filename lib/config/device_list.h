// Ultralytics' device lists: `device=0,1`, `device=[0,1,2,3]`, `device=-1,-1` train data-parallel,
// one rank per listed GPU, as `yolo` starts DDP over them (select_device in
// ultralytics/utils/torch_utils.py); -1 stands for an idle GPU picked when the ranks start.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainer {

// The device key's text of a list ("0,1", "-1,-1") from its items, or nullopt when the items are
// not a list of two or more GPU indices (cuda:N and -1 included).
std::optional<std::string> device_list_text(const std::vector<std::string>& items);

// The entries of a device list (-1 for an idle GPU); empty for a single device (cpu, auto, cuda:0).
std::vector<int64_t> device_list(const std::string& device);

}  // namespace trainer
