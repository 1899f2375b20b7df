#include "data/detect/image_memo.h"

#include "util/error.h"

namespace trainer {

ImageMemo::ImageMemo(size_t count) : count_(count), slots_(std::make_unique<Slot[]>(count)) {}

cv::Mat ImageMemo::get(size_t index, const std::function<cv::Mat()>& make) const {
  TORCH_INTERNAL_ASSERT(index < count_, "image ", index, " beyond a memo of ", count_);
  Slot& slot = slots_[index];
  std::call_once(slot.made, [&] {
    slot.image = make();
    ++kept_;
    bytes_ += int64_t(slot.image.total() * slot.image.elemSize());
  });
  return slot.image;
}

}  // namespace trainer
