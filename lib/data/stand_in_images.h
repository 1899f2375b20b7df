// Images that became unreadable after the scan (deleted, truncated or rewritten while a run
// trains): each is skipped for the rest of the run, its place taken by the next readable image of
// the dataset, with a warning naming it and the count so far. A long run does not die hours in
// because one file went away, and batch shapes and the plan stay as they were.
#pragma once
#include <opencv2/core.hpp>

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>

namespace trainer {

// One per dataset; thread-safe (loader threads decode concurrently).
class StandInImages {
 public:
  // The sample whose image, label and size sample i now gives: i itself until its file failed to
  // read, then the sample that stands in for it. The dataset answers every question about i
  // (label, boxes, size) through this, so a sample's image and labels stay together.
  size_t resolve(size_t i) const;
  // decode(i); when that throws UserError, i is marked unreadable and the samples after it (wrapping
  // at `count`) are tried in turn until one decodes, which stands in for i from then on. Rethrows
  // the first error when none of the `count` samples decodes.
  cv::Mat read(size_t i, size_t count, const std::function<cv::Mat(size_t)>& decode) const;

 private:
  mutable std::mutex mutex_;
  mutable std::map<size_t, size_t> stand_in_;  // unreadable sample -> the one read in its place
};

}  // namespace trainer
