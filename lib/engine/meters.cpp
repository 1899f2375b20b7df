#include "engine/meters.h"

#include <algorithm>

#include <c10/util/Exception.h>

namespace trainer {

void SumMeter::merge(const std::vector<double>& packed) {
  TORCH_CHECK(packed.size() == 1, "a sum meter merges one value, got ", packed.size());
  sum_ += packed[0];
}

void CountsMeter::add(const std::vector<int64_t>& counts) {
  TORCH_CHECK(counts.size() == counts_.size(), "counts of ", counts.size(), " cells added to ", counts_.size());
  for (size_t i = 0; i < counts.size(); ++i) counts_[i] += counts[i];
}

std::vector<double> CountsMeter::pack() const { return {counts_.begin(), counts_.end()}; }

void CountsMeter::merge(const std::vector<double>& packed) {
  TORCH_CHECK(packed.size() == counts_.size(), "counts of ", packed.size(), " cells merged into ", counts_.size());
  for (size_t i = 0; i < packed.size(); ++i) counts_[i] += static_cast<int64_t>(packed[i]);
}

void sum_over_ranks(const std::vector<Meter*>& meters, Collective& collective) {
  if (!collective.distributed()) return;
  // One message per rank: each meter's length, then its numbers.
  std::vector<double> message;
  for (const Meter* meter : meters) {
    const std::vector<double> packed = meter->pack();
    message.push_back(static_cast<double>(packed.size()));
    message.insert(message.end(), packed.begin(), packed.end());
  }
  const std::vector<std::vector<double>> ranks = collective.all_gather(message);
  for (Meter* meter : meters) meter->reset();
  for (const std::vector<double>& received : ranks) {
    size_t offset = 0;
    for (Meter* meter : meters) {
      TORCH_CHECK(offset < received.size(), "a rank sent fewer meters than this one has");
      const auto length = static_cast<size_t>(received[offset]);
      TORCH_CHECK(offset + 1 + length <= received.size(), "a rank's meter is cut short");
      const auto begin = received.begin() + static_cast<std::ptrdiff_t>(offset + 1);
      meter->merge(std::vector<double>(begin, begin + static_cast<std::ptrdiff_t>(length)));
      offset += 1 + length;
    }
    TORCH_CHECK(offset == received.size(), "a rank sent more meters than this one has");
  }
}

}  // namespace trainer
