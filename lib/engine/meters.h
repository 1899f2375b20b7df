// Validation meters (flashlight's shape: add, value, reset): what a task's validation pass
// accumulates, summed over the ranks of a job by the engine before the task turns it into metrics.
// Each rank validates its shard into its own meters; sum_over_ranks leaves every rank's meters
// holding all ranks' values, merged in rank order.
#pragma once
#include <cstdint>
#include <vector>

#include "dist/collective.h"

namespace trainer {

class Meter {
 public:
  virtual ~Meter() = default;
  virtual void reset() = 0;
  // The meter's state as numbers, and adding another rank's: what crosses between ranks.
  virtual std::vector<double> pack() const = 0;
  virtual void merge(const std::vector<double>& packed) = 0;
};

// A sum: a loss total, a count of hits or samples.
class SumMeter : public Meter {
 public:
  void add(double value) { sum_ += value; }
  double value() const { return sum_; }
  void reset() override { sum_ = 0; }
  std::vector<double> pack() const override { return {sum_}; }
  void merge(const std::vector<double>& packed) override;

 private:
  double sum_ = 0;
};

// Counts in fixed cells (a confusion matrix's), summed cell by cell.
class CountsMeter : public Meter {
 public:
  explicit CountsMeter(size_t cells = 0) : counts_(cells, 0) {}
  void add(size_t cell, int64_t count) { counts_.at(cell) += count; }
  void add(const std::vector<int64_t>& counts);
  const std::vector<int64_t>& value() const { return counts_; }
  void reset() override { std::fill(counts_.begin(), counts_.end(), 0); }
  std::vector<double> pack() const override;
  void merge(const std::vector<double>& packed) override;

 private:
  std::vector<int64_t> counts_;
};

// Sums every meter over the ranks of `collective` (in one process it changes nothing): afterwards
// each meter holds rank 0's values merged with rank 1's, and so on, on every rank.
void sum_over_ranks(const std::vector<Meter*>& meters, Collective& collective);

}  // namespace trainer
