#include "data/ocr/text_line_collate.h"

#include <opencv2/imgproc.hpp>

#include "data/ocr/bucket_sampler.h"

namespace trainer {
namespace {

cv::Mat resize_line(const cv::Mat& image, int64_t height, int64_t width) {
  cv::Mat scaled;
  const bool shrinking = width < image.cols || height < image.rows;
  // INTER_AREA when shrinking: like PIL's bicubic (which filters over the footprint) it does not
  // alias thin strokes the way INTER_CUBIC's fixed 4x4 kernel does.
  cv::resize(image, scaled, cv::Size(static_cast<int>(width), static_cast<int>(height)), 0, 0,
             shrinking ? cv::INTER_AREA : cv::INTER_CUBIC);
  return scaled;
}

// Writes `scaled` (height rows) into uint8 channel planes of `width` columns, the columns past its
// own repeating its last one.
void write_planes(const cv::Mat& scaled, int64_t height, int64_t width, uint8_t* out) {
  const int64_t resized = scaled.cols;
  const int channels = scaled.channels();
  for (int64_t y = 0; y < height; ++y) {
    const uint8_t* row = scaled.ptr<uint8_t>(static_cast<int>(y));
    for (int c = 0; c < channels; ++c) {
      uint8_t* plane_row = out + (c * height + y) * width;
      for (int64_t x = 0; x < width; ++x) plane_row[x] = row[std::min(x, resized - 1) * channels + c];
    }
  }
}

}  // namespace

Batch collate_text_lines(const std::vector<cv::Mat>& images, const std::vector<std::u32string>* labels,
                         const Charset& charset, const TextLineShape& shape, const TextLineAugment& augment,
                         const std::vector<uint64_t>& seeds) {
  TORCH_INTERNAL_ASSERT(!images.empty(), "an empty text-line batch");
  const auto batch = static_cast<int64_t>(images.size());
  const int64_t channels = images.front().channels();
  std::vector<int64_t> widths;
  int64_t bucket = 0;
  for (const cv::Mat& image : images) {
    TORCH_INTERNAL_ASSERT(image.channels() == channels && image.depth() == CV_8U, "mixed image formats in a batch");
    widths.push_back(resized_width(image.size(), shape.img_h, shape.img_w));
    bucket = std::max(bucket, bucket_of(shape.bucket_widths, widths.back()));
  }
  const int64_t width = shape.bucket_widths.at(static_cast<size_t>(bucket));
  Batch out;
  out.size = batch;
  out.input = torch::empty({batch, channels, shape.img_h, width}, torch::kUInt8);
  uint8_t* pixels = out.input.data_ptr<uint8_t>();
  for (size_t i = 0; i < images.size(); ++i) {
    cv::Mat line = resize_line(images[i], shape.img_h, std::min(widths[i], width));
    if (augment.active()) {
      SplitMix64 rng(seeds.at(i));
      line = augment_text_line(line, augment, rng);
    }
    write_planes(line, shape.img_h, width, pixels + static_cast<int64_t>(i) * channels * shape.img_h * width);
  }
  if (labels) {
    TORCH_INTERNAL_ASSERT(labels->size() == images.size(), "one label per image");
    out.target = torch::zeros({batch, shape.max_label_length}, torch::kLong);
    out.target_lengths = torch::empty({batch}, torch::kLong);
    int64_t* target = out.target.data_ptr<int64_t>();
    int64_t* lengths = out.target_lengths.data_ptr<int64_t>();
    for (int64_t i = 0; i < batch; ++i) {
      const std::u32string& label = (*labels)[static_cast<size_t>(i)];
      TORCH_INTERNAL_ASSERT(static_cast<int64_t>(label.size()) <= shape.max_label_length, "label longer than ",
                            shape.max_label_length);
      for (size_t k = 0; k < label.size(); ++k) target[i * shape.max_label_length + static_cast<int64_t>(k)] = charset.class_of(label[k]);
      lengths[i] = static_cast<int64_t>(label.size());
    }
  }
  return out;
}

Loader::Collate make_text_line_collate(const OcrDataset& data, const Charset& charset, TextLineShape shape,
                                       TextLineAugment augment, uint64_t seed) {
  return [&data, &charset, shape, augment, seed](const std::vector<size_t>& indices, int64_t epoch) {
    std::vector<cv::Mat> images;
    std::vector<std::u32string> labels;
    std::vector<uint64_t> seeds;
    for (size_t i : indices) {
      images.push_back(data.image(i));
      labels.push_back(data.label(i));
      seeds.push_back(derive_seed(seed, RngStream::augment, {static_cast<uint64_t>(epoch), i}));
    }
    return collate_text_lines(images, &labels, charset, shape, augment, seeds);
  };
}

}  // namespace trainer
