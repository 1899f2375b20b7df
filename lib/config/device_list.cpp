#include "config/device_list.h"

#include "util/text.h"

namespace trainer {
namespace {

// "3", "cuda:3" → 3; "-1" → -1; anything else → nullopt.
std::optional<int64_t> device_index(std::string item) {
  item = to_lower(trim(item));
  if (item.rfind("cuda:", 0) == 0) item = item.substr(5);
  if (item == "-1") return -1;
  if (item.empty() || item.size() > 4 || item.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoll(item);
}

// The indices of two or more items, or nothing when one is not an index.
std::vector<int64_t> indices_of(const std::vector<std::string>& items) {
  std::vector<int64_t> indices;
  for (const std::string& item : items) {
    const std::optional<int64_t> index = device_index(item);
    if (!index) return {};
    indices.push_back(*index);
  }
  return indices.size() < 2 ? std::vector<int64_t>{} : indices;
}

}  // namespace

std::optional<std::string> device_list_text(const std::vector<std::string>& items) {
  const std::vector<int64_t> indices = indices_of(items);
  if (indices.empty()) return std::nullopt;
  std::vector<std::string> texts;
  for (int64_t index : indices) texts.push_back(std::to_string(index));
  return join(texts, ",");
}

std::vector<int64_t> device_list(const std::string& device) {
  std::vector<std::string> items;
  for (size_t start = 0; start <= device.size();) {
    const size_t end = std::min(device.find(',', start), device.size());
    items.push_back(device.substr(start, end - start));
    start = end + 1;
  }
  return indices_of(items);
}

}  // namespace trainer
