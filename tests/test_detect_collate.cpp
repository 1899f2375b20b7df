// The detection collate: batch layout, padding and overflow of target rows, the letterbox round
// trip for validation, boxes that follow their objects through the whole training pipeline,
// determinism across worker counts, close_mosaic, the mosaic pool and cache=ram.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "data/detect/detect_collate.h"
#include "data/normalized_input.h"
#include "data/loader.h"
#include "data/sampler.h"
#include "detect_files.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

// Six images of different shapes, each with up to three objects of distinct classes.
std::vector<std::string> write_images(const TempDir& dir) {
  const std::vector<std::pair<cv::Size, std::vector<TestObject>>> specs{
      {{96, 64}, {{0, {5, 5, 30, 20}}, {1, {50, 30, 20, 25}}}},
      {{64, 96}, {{2, {10, 40, 40, 30}}}},
      {{80, 80}, {{3, {20, 20, 40, 40}}, {4, {2, 60, 12, 12}}, {0, {60, 4, 16, 10}}}},
      {{120, 48}, {{1, {70, 5, 40, 36}}}},
      {{50, 70}, {}},
      {{100, 90}, {{2, {5, 5, 20, 60}}, {4, {40, 50, 50, 30}}}},
  };
  std::vector<std::string> images;
  for (size_t i = 0; i < specs.size(); ++i) {
    images.push_back(
        write_labelled_image(dir.path(), "train", "img" + std::to_string(i), specs[i].first, specs[i].second));
  }
  return images;
}

DetectDataset open(const std::vector<std::string>& images) {
  DetectDataOptions options;
  options.classes = 5;
  options.cache = false;
  return DetectDataset(images, options);
}

DetectAugment small(bool train) {
  DetectAugment augment;
  augment.imgsz = 64;
  augment.train = train;
  augment.max_boxes = 6;
  return augment;
}

std::vector<PixelBox> rows_of(const Batch& batch, int64_t b) {
  std::vector<PixelBox> boxes;
  const torch::Tensor rows = batch.target[b];
  const auto target = rows.accessor<float, 2>();
  for (int64_t r = 0; r < target.size(0); ++r) {
    const float cls = target[r][0], cx = target[r][1], cy = target[r][2], w = target[r][3], h = target[r][4];
    if (cls >= 0) boxes.push_back({int64_t(cls), cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2});
  }
  return boxes;
}

// Training samples of every image for `epochs` epochs, each box checked against its object's
// colour: the colour's extent inside the box grown by 2 px must match the box. Returns how many
// boxes were checked (those of at least 4 px a side: smaller ones have too few unblended pixels).
size_t check_boxes_on_objects(const DetectDataset& data, const DetectAugment& augment, uint64_t seed, int64_t epochs) {
  const int side = int(augment.imgsz);
  size_t boxes = 0;
  for (int64_t epoch = 0; epoch < epochs; ++epoch) {
    for (size_t index = 0; index < data.size(); ++index) {
      const LabelledImage sample = detect_sample(data, augment, seed, epoch, index, {});
      REQUIRE(sample.image.size() == cv::Size(side, side));
      for (const PixelBox& box : sample.boxes) {
        if (box.width() < 4 || box.height() < 4) continue;
        const cv::Rect window =
            cv::Rect(cv::Point(int(box.x1) - 2, int(box.y1) - 2), cv::Point(int(box.x2) + 3, int(box.y2) + 3)) &
            cv::Rect(0, 0, side, side);
        const cv::Rect extent = colour_extent(sample.image(window), class_colour(int(box.cls))) + window.tl();
        INFO("epoch " << epoch << " index " << index << " class " << box.cls << " box (" << box.x1 << ", " << box.y1
                      << ", " << box.x2 << ", " << box.y2 << ") colour " << extent);
        REQUIRE(extent.area() > 0);
        CHECK(std::abs(extent.x - box.x1) <= 1.5);
        CHECK(std::abs(extent.y - box.y1) <= 1.5);
        CHECK(std::abs(extent.br().x - box.x2) <= 1.5);
        CHECK(std::abs(extent.br().y - box.y2) <= 1.5);
        ++boxes;
      }
    }
  }
  return boxes;
}

}  // namespace

TEST_CASE("detect collate stacks [B,3,S,S] uint8 inputs and [B,R,5] pixel targets padded with -1", "[detect-data]") {
  TempDir dir;
  const DetectDataset data = open(write_images(dir));
  const Batch batch = make_detect_collate(data, small(false), 0)({0, 4}, 0);
  CHECK(batch.size == 2);
  CHECK(batch.input.sizes() == torch::IntArrayRef{2, 3, 64, 64});
  CHECK(batch.target.sizes() == torch::IntArrayRef{2, 6, 5});
  CHECK(batch.input.dtype() == torch::kUInt8);
  CHECK(batch.target.dtype() == torch::kFloat32);
  CHECK(batch.dropped_boxes == 0);
  // Image 0 is 96x64 -> 64x43 (not enlarged, only shrunk), padded 10 rows on top.
  CHECK(batch.input[0][0][0][0].item<int64_t>() == 114);
  // Object 0 spans x [3.3, 23.3], y [13.4, 26.8] there.
  CHECK(batch.input[0][0][20][10].item<int64_t>() == class_colour(0)[0]);
  CHECK(batch.input[0][2][20][10].item<int64_t>() == class_colour(0)[2]);
  // The task scales them to [0, 1] where the step runs, within a float32 rounding of p / 255.
  const torch::Tensor scaled = normalized_input(batch.input, {{0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}});
  CHECK(torch::allclose(scaled, batch.input.to(torch::kFloat).div(255.0), 0.0, 1e-7));
  const auto first = batch.target[0][0];
  CHECK(first[0].item<float>() == 0);
  CHECK(first[1].item<float>() == Approx(20 * 64 / 96.0));  // centre x: (5 + 15) * 2/3
  CHECK(first[3].item<float>() == Approx(30 * 64.0 / 96));
  CHECK(torch::equal(batch.target[0].slice(0, 2), torch::tensor({-1.f, 0.f, 0.f, 0.f, 0.f}).expand({4, 5})));
  CHECK(torch::equal(batch.target[1].select(1, 0), torch::full({6}, -1.f)));
}

TEST_CASE("validation targets map back to the original boxes within half a pixel", "[detect-data]") {
  TempDir dir;
  const DetectDataset data = open(write_images(dir));
  for (const bool scaleup : {false, true}) {
    DetectAugment augment = small(false);
    augment.scaleup = scaleup;
    const Batch batch = make_detect_collate(data, augment, 0)({0, 1, 2, 3, 5}, 0);
    for (int64_t b = 0; b < batch.size; ++b) {
      const size_t index = std::vector<size_t>{0, 1, 2, 3, 5}[size_t(b)];
      const Letterbox geometry = letterbox_geometry(data.original_size(index), 64, scaleup);
      const std::vector<PixelBox> rows = rows_of(batch, b);
      std::vector<float> mapped, expected;
      for (const PixelBox& row : rows) mapped.insert(mapped.end(), {row.x1, row.y1, row.x2, row.y2});
      const torch::Tensor back = geometry.to_original(torch::tensor(mapped).view({-1, 4}));
      for (const PixelBox& box : to_pixel_boxes(data.boxes(index), data.original_size(index))) {
        expected.insert(expected.end(), {box.x1, box.y1, box.x2, box.y2});
      }
      // Rows are ordered largest first; compare as sets by sorting on x1.
      const torch::Tensor want = torch::tensor(expected).view({-1, 4});
      const auto by_x = [](const torch::Tensor& t) { return t.index_select(0, std::get<1>(t.select(1, 0).sort())); };
      CHECK((by_x(back) - by_x(want)).abs().max().item<float>() < 0.5);
    }
  }
}

TEST_CASE("images with more boxes than target rows keep the largest and count the rest", "[detect-data]") {
  TempDir dir;
  std::vector<TestObject> objects;
  for (int k = 0; k < 7; ++k) objects.push_back({k % 5, {k * 9, k * 9, 3 + k, 3 + k}});
  const auto image = write_labelled_image(dir.path(), "train", "crowded", {64, 64}, objects);
  const DetectDataset data = open({image, image});
  DetectAugment augment = small(false);
  augment.max_boxes = 4;
  const Batch batch = make_detect_collate(data, augment, 0)({0, 1}, 0);
  CHECK(batch.dropped_boxes == 6);
  const auto widths = batch.target[0].select(1, 3);
  CHECK(torch::equal(widths, torch::tensor({9.f, 8.f, 7.f, 6.f})));
}

TEST_CASE("training samples keep every box on its object through mosaic, perspective and flips", "[detect-data]") {
  TempDir dir;
  const DetectDataset data = open(write_images(dir));
  DetectAugment augment = small(true);
  augment.hsv_h = augment.hsv_s = augment.hsv_v = 0;  // colours identify the objects
  augment.flipud = 0.5;
  augment.max_boxes = 40;
  CHECK(check_boxes_on_objects(data, augment, 7, 4) > 40);
}

TEST_CASE("training batches are identical for any worker count and differ between epochs", "[detect-data]") {
  TempDir dir;
  const DetectDataset data = open(write_images(dir));
  DetectAugment augment = small(true);
  augment.degrees = 10;
  const auto collate = make_detect_collate(data, augment, 5);
  const auto batches = make_batches(epoch_order(subset_indices(data.size(), 1.0, 0), 5, 0, true), 4, false);
  std::vector<std::vector<Batch>> runs;
  for (const int64_t workers : {0, 1, 3}) {
    Loader loader(collate, workers, 2);
    loader.start_epoch(batches, 0);
    runs.emplace_back();
    while (auto batch = loader.next()) runs.back().push_back(*batch);
  }
  REQUIRE(runs[0].size() == 2);
  for (size_t run = 1; run < runs.size(); ++run) {
    for (size_t b = 0; b < 2; ++b) {
      CHECK(torch::equal(runs[run][b].input, runs[0][b].input));
      CHECK(torch::equal(runs[run][b].target, runs[0][b].target));
    }
  }
  CHECK_FALSE(torch::equal(collate(batches[0], 1).input, runs[0][0].input));
}

TEST_CASE("close_mosaic_epoch turns mosaic off from that epoch on", "[detect-data]") {
  TempDir dir;
  const DetectDataset data = open(write_images(dir));
  DetectAugment mosaic = small(true);
  mosaic.close_mosaic_epoch = 2;
  DetectAugment plain = small(true);
  plain.mosaic = 0;
  for (size_t index = 0; index < data.size(); ++index) {
    const LabelledImage closed = detect_sample(data, mosaic, 3, 2, index, {});
    const LabelledImage reference = detect_sample(data, plain, 3, 2, index, {});
    CHECK(cv::norm(closed.image, reference.image, cv::NORM_INF) == 0);
    CHECK(closed.boxes.size() == reference.boxes.size());
    const LabelledImage open_epoch = detect_sample(data, mosaic, 3, 1, index, {});
    CHECK(cv::norm(open_epoch.image, detect_sample(data, plain, 3, 1, index, {}).image, cv::NORM_INF) > 0);
  }
}

TEST_CASE("mixup blends in a partner placed the same way, adds its boxes and ends with mosaic", "[detect-data]") {
  TempDir dir;
  const auto a = write_labelled_image(dir.path(), "train", "a", {64, 64}, {{0, {4, 4, 20, 20}}});
  const auto b = write_labelled_image(dir.path(), "train", "b", {64, 64}, {{1, {36, 36, 24, 20}}});
  const DetectDataset data = open({a, b});
  // No mosaic, warp, colour or flip: each sample alone is its image, so the blend can be checked.
  DetectAugment plain = small(true);
  plain.mosaic = 0, plain.translate = 0, plain.scale = 0, plain.fliplr = 0;
  plain.hsv_h = plain.hsv_s = plain.hsv_v = 0;
  plain.close_mosaic_epoch = 4;
  DetectAugment mixed = plain;
  mixed.mixup = 1.0;
  const cv::Mat image_a = detect_sample(data, plain, 1, 0, 0, {1}).image;
  const cv::Mat image_b = detect_sample(data, plain, 1, 0, 1, {1}).image;
  REQUIRE(image_a.at<cv::Vec3b>(10, 10) == class_colour(0));
  std::set<double> weights;
  for (int64_t epoch = 0; epoch < 4; ++epoch) {
    const LabelledImage sample = detect_sample(data, mixed, 1, epoch, 0, {1});
    REQUIRE(sample.boxes.size() == 2);
    CHECK(sample.boxes[0].cls == 0);
    CHECK(sample.boxes[1].cls == 1);
    CHECK(sample.boxes[1].x1 == 36.0f);
    CHECK(sample.boxes[1].y2 == 56.0f);
    // a's object over b's background: 230 r + 60 (1 - r) in the red channel gives the weight.
    const double weight = (sample.image.at<cv::Vec3b>(10, 10)[0] - 60.0) / (230.0 - 60.0);
    CHECK(weight > 0.3);
    CHECK(weight < 0.7);
    weights.insert(weight);
    cv::Mat expected;
    cv::addWeighted(image_a, weight, image_b, 1.0 - weight, 0.0, expected);
    CHECK(cv::norm(sample.image, expected, cv::NORM_INF) <= 2);
  }
  CHECK(weights.size() == 4);
  // From close_mosaic_epoch on, and at probability 0, the sample is the one without mixup.
  CHECK(cv::norm(detect_sample(data, mixed, 1, 4, 0, {1}).image, detect_sample(data, plain, 1, 4, 0, {1}).image,
                 cv::NORM_INF) == 0);
  // At probability one half, a sample that is not mixed is bit for bit the sample of a run without
  // mixup (the mixup draws have their own stream), with the whole default augmentation on.
  DetectAugment full = small(true);
  DetectAugment half = full;
  half.mixup = 0.5;
  int mixed_samples = 0, unmixed_samples = 0;
  for (int64_t epoch = 0; epoch < 12; ++epoch) {
    const LabelledImage with = detect_sample(data, half, 2, epoch, 0, {});
    const LabelledImage without = detect_sample(data, full, 2, epoch, 0, {});
    if (cv::norm(with.image, without.image, cv::NORM_INF) == 0) {
      ++unmixed_samples;
      CHECK(with.boxes.size() == without.boxes.size());
    } else {
      ++mixed_samples;
      CHECK(with.boxes.size() >= without.boxes.size());
    }
  }
  CHECK(mixed_samples > 0);
  CHECK(unmixed_samples > 0);
}

TEST_CASE("mosaic partners come only from the mosaic pool", "[detect-data]") {
  TempDir dir;
  const auto a = write_labelled_image(dir.path(), "train", "a", {64, 64}, {{0, {10, 10, 40, 40}}});
  const auto b = write_labelled_image(dir.path(), "train", "b", {64, 64}, {{1, {10, 10, 40, 40}}});
  const DetectDataset data = open({a, b});
  const DetectAugment augment = small(true);
  bool partner_b = false;
  for (int64_t epoch = 0; epoch < 8; ++epoch) {
    for (const PixelBox& box : detect_sample(data, augment, 1, epoch, 0, {0}).boxes) CHECK(box.cls == 0);
    for (const PixelBox& box : detect_sample(data, augment, 1, epoch, 0, {}).boxes)
      partner_b = partner_b || box.cls == 1;
  }
  CHECK(partner_b);
}

TEST_CASE("training decodes large JPEGs reduced, and boxes still fit their objects", "[detect-data]") {
  TempDir dir;
  // 640 x 480 and 480 x 720: at imgsz 64 both decode at an eighth (80 and 90 px on the long side).
  const std::vector<std::string> images{
      write_labelled_image(dir.path(), "train", "wide", {640, 480},
                           {{0, {40, 40, 200, 160}}, {1, {400, 240, 160, 200}}, {2, {300, 60, 80, 80}}}, ".jpg"),
      write_labelled_image(dir.path(), "train", "tall", {480, 720}, {{3, {60, 400, 240, 240}}, {4, {280, 40, 160, 120}}},
                           ".jpg")};
  const DetectDataset data = open(images);
  REQUIRE(data.max_reduction(0) == 8);
  CHECK(data.image(0, 8).size() == cv::Size(80, 60));
  DetectAugment augment = small(true);
  augment.hsv_h = augment.hsv_s = augment.hsv_v = 0;
  augment.max_boxes = 40;
  CHECK(check_boxes_on_objects(data, augment, 3, 6) > 20);
  // Evaluation decodes whole: the letterboxed sample equals one built from the full-size pixels.
  const LabelledImage evaluated = detect_sample(data, small(false), 3, 0, 0, {});
  const LabelledImage whole{data.image(0), to_pixel_boxes(data.boxes(0), data.original_size(0))};
  const LabelledImage expected = letterbox(whole, letterbox_geometry(data.original_size(0), 64, false), 64, 114);
  CHECK(cv::norm(evaluated.image, expected.image, cv::NORM_INF) == 0);
}

TEST_CASE("cache=ram keeps each image after its first decode and gives the batches it would without", "[detect-data]") {
  TempDir dir;
  const std::vector<std::string> files = write_images(dir);
  const DetectDataset data = open(files);
  DetectAugment mosaic = small(true), plain = small(true);
  mosaic.mosaic = 1.0;
  plain.mosaic = 0.0;
  const DetectAugment evaluation = small(false);
  const DetectAugment* augments[] = {&mosaic, &plain, &evaluation};
  const ImageMemo train_memo(data.size()), val_memo(data.size());
  const std::vector<size_t> all{0, 1, 2, 3, 4, 5};
  const auto memo_of = [&](const DetectAugment& augment) { return augment.train ? &train_memo : &val_memo; };
  std::vector<Batch> kept_batches;
  for (const int64_t epoch : {0, 1}) {
    for (const DetectAugment* augment : augments) {
      const Batch fresh = make_detect_collate(data, *augment, 9)(all, epoch);
      const Batch kept = make_detect_collate(data, *augment, 9, {}, memo_of(*augment))(all, epoch);
      INFO("epoch " << epoch << (augment->train ? (augment->mosaic > 0 ? " mosaic" : " letterbox") : " evaluation"));
      CHECK(torch::equal(kept.input, fresh.input));
      CHECK(torch::equal(kept.target, fresh.target));
      if (epoch == 1) kept_batches.push_back(kept);
    }
    CHECK(train_memo.kept() == data.size());
    CHECK(val_memo.kept() == data.size());
  }
  // Training images are kept at imgsz on the long side, evaluation ones letterboxed.
  CHECK(train_memo.bytes() == (64 * 43 + 43 * 64 + 64 * 64 + 64 * 26 + 46 * 64 + 64 * 58) * 3);
  CHECK(val_memo.bytes() == 6 * 64 * 64 * 3);

  // With the files gone, the memo still makes the same batches; without it, loading fails.
  for (const std::string& file : files) std::filesystem::remove(file);
  size_t k = 0;
  for (const DetectAugment* augment : augments) {
    const Batch kept = make_detect_collate(data, *augment, 9, {}, memo_of(*augment))(all, 1);
    CHECK(torch::equal(kept.input, kept_batches[k++].input));
    CHECK_THROWS_AS(make_detect_collate(data, *augment, 9)(all, 1), UserError);
  }
}
