// The disk cache (cache=disk, issue 46 item 3): the file format and its checks, the key that
// rebuilds it, one builder among concurrent openers, and the detection and classification
// datasets that read it giving the batches they give without it.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "data/classify/classify_pixel_cache.h"
#include "data/classify/image_folder.h"
#include "data/detect/detect_collate.h"
#include "data/detect/detect_pixel_cache.h"
#include "data/loader.h"
#include "data/pixel_cache.h"
#include "data/read_image.h"
#include "data/sampler.h"
#include "detect_files.h"
#include "io/checkpoint.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

// Smooth colour gradients with a few edges: what JPEG keeps well at quality 95.
cv::Mat photo_like(cv::Size size, int seed) {
  cv::Mat image(size, CV_8UC3);
  for (int y = 0; y < size.height; ++y) {
    for (int x = 0; x < size.width; ++x) {
      image.at<cv::Vec3b>(y, x) = cv::Vec3b(uint8_t((x * 255) / size.width), uint8_t((y * 255) / size.height),
                                            uint8_t((x + y + seed * 40) % 256));
    }
  }
  cv::rectangle(image, cv::Rect(size.width / 4, size.height / 4, size.width / 3, size.height / 3),
                cv::Scalar(20, 200, 40), cv::FILLED);
  return image;
}

uint64_t write_cache(const fs::path& path, const std::vector<cv::Mat>& images, uint64_t key) {
  PixelCacheWriter writer(path);
  for (const cv::Mat& image : images) writer.add(encode_for_cache(image, 95));
  writer.finish(key);
  return fs::file_size(path);
}

PixelCacheRequest request_for(const TempDir& dir, const std::vector<std::string>& images) {
  PixelCacheRequest request;
  request.file = dir.path() / "split.trainer-pixels";
  request.images = images;
  request.purpose = "test";
  return request;
}

std::vector<std::string> write_pngs(const TempDir& dir, int count) {
  std::vector<std::string> files;
  for (int i = 0; i < count; ++i) {
    files.push_back(dir.file("img" + std::to_string(i) + ".png"));
    cv::imwrite(files.back(), photo_like({40 + i, 30}, i));
  }
  return files;
}

}  // namespace

TEST_CASE("cache entries keep small images raw and larger ones as JPEG, decoded whole, reduced or in part",
          "[pixel-cache]") {
  TempDir dir;
  const cv::Mat small = photo_like({64, 64}, 1), large = photo_like({320, 240}, 2);
  cv::Mat grey;
  cv::cvtColor(large, grey, cv::COLOR_RGB2GRAY);
  write_cache(dir.path() / "c", {small, large, cv::Mat(), grey}, 7);
  const auto cache = PixelCacheFile::open(dir.path() / "c", 7);
  REQUIRE(cache);
  REQUIRE(cache->size() == 4);
  CHECK(cache->encoding(0) == PixelEncoding::raw);
  CHECK(cv::norm(cache->image(0), small, cv::NORM_INF) == 0);
  CHECK(cv::norm(cache->image(0, {8, 4, 20, 10}), small(cv::Rect(8, 4, 20, 10)), cv::NORM_INF) == 0);

  CHECK(cache->encoding(1) == PixelEncoding::jpeg);
  CHECK(cache->image_size(1) == cv::Size(320, 240));
  const cv::Mat whole = cache->image(1);
  REQUIRE(whole.size() == large.size());
  CHECK(cv::norm(whole, large, cv::NORM_L1) / double(large.total() * 3) < 2.0);  // quality 95: within a few levels
  CHECK(cv::norm(cache->image(1, {100, 60, 80, 50}), whole(cv::Rect(100, 60, 80, 50)), cv::NORM_INF) == 0);
  CHECK(cache->image(1, {}, 4).size() == cv::Size(80, 60));

  CHECK(cache->encoding(2) == PixelEncoding::missing);
  CHECK(cache->image(2).empty());
  CHECK(cache->image(3).channels() == 1);
  CHECK(cv::norm(cache->image(3), grey, cv::NORM_L1) / double(grey.total()) < 2.0);
}

TEST_CASE("a cache file of another key, cut short or not a cache reads as none", "[pixel-cache]") {
  TempDir dir;
  const fs::path path = dir.path() / "c";
  const uint64_t bytes = write_cache(path, {photo_like({200, 100}, 1), photo_like({30, 30}, 2)}, 11);
  CHECK(PixelCacheFile::open(path, 11));
  CHECK_FALSE(PixelCacheFile::open(path, 12));
  CHECK_FALSE(PixelCacheFile::open(dir.path() / "missing", 11));
  fs::resize_file(path, bytes - 1);
  CHECK_FALSE(PixelCacheFile::open(path, 11));
  write_text(path, "not a cache at all, but long enough to hold a footer");
  CHECK_FALSE(PixelCacheFile::open(path, 11));
  // An index record pointing past the entries is refused rather than mapped.
  write_cache(path, {photo_like({30, 30}, 2)}, 11);
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    const uint64_t far = 1u << 30;
    file.seekp(30 * 30 * 3);  // the first record's offset field, right after the one raw entry
    file.write(reinterpret_cast<const char*>(&far), sizeof(far));
  }
  CHECK_FALSE(PixelCacheFile::open(path, 11));
}

TEST_CASE("the cache is built once, rebuilt when a file, the purpose or the quality changes", "[pixel-cache]") {
  TempDir dir;
  const std::vector<std::string> files = write_pngs(dir, 3);
  PixelCacheRequest request = request_for(dir, files);
  const fs::path left_by_killed_builder = request.file.string() + ".tmp-99999-0";
  write_text(left_by_killed_builder, "half a cache");
  std::atomic<int> made{0};
  const auto make = [&](size_t i) {
    ++made;
    if (i == 1) throw UserError("cannot read image " + files[1]);
    return read_image(files[i], 3);
  };
  auto cache = open_pixel_cache(request, make);
  CHECK(made == 3);
  CHECK_FALSE(fs::exists(left_by_killed_builder));
  CHECK(cache->encoding(1) == PixelEncoding::missing);  // a file that fails is read by the loader later
  CHECK(cv::norm(cache->image(2), read_image(files[2], 3), cv::NORM_INF) == 0);
  open_pixel_cache(request, make);
  CHECK(made == 3);

  request.purpose = "test at another size";
  open_pixel_cache(request, make);
  CHECK(made == 6);
  request.quality = 80;
  open_pixel_cache(request, make);
  CHECK(made == 9);
  fs::last_write_time(files[0], fs::last_write_time(files[0]) + std::chrono::seconds(5));
  open_pixel_cache(request, make);
  CHECK(made == 12);
  CHECK(fs::exists(request.file.string() + ".lock"));
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    CHECK(entry.path().filename().string().find(".tmp-") == std::string::npos);
  }
}

TEST_CASE("concurrent openers let one build while the others wait, then map its file", "[pixel-cache]") {
  TempDir dir;
  const std::vector<std::string> files = write_pngs(dir, 4);
  const PixelCacheRequest request = request_for(dir, files);
  std::atomic<int> made{0};
  const auto slow = [&](size_t i) {
    ++made;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return read_image(files[i], 3);
  };
  std::vector<std::shared_ptr<const PixelCacheFile>> opened(3);
  std::vector<std::thread> openers;
  for (size_t k = 0; k < opened.size(); ++k) {
    openers.emplace_back([&, k] { opened[k] = open_pixel_cache(request, slow); });
  }
  for (std::thread& opener : openers) opener.join();
  CHECK(made == 4);
  for (const auto& cache : opened) {
    REQUIRE(cache);
    CHECK(cv::norm(cache->image(3), read_image(files[3], 3), cv::NORM_INF) == 0);
  }
}

TEST_CASE("cache_dir gets one file per split folder and use, named after it", "[pixel-cache]") {
  CHECK(pixel_cache_path("data/coco/images/train", "", false) == fs::path("data/coco/images/train.trainer-pixels"));
  CHECK(pixel_cache_path("data/coco/images/train/", "", false) == fs::path("data/coco/images/train.trainer-pixels"));
  CHECK(pixel_cache_path("data/coco/images/val", "", true) == fs::path("data/coco/images/val.eval.trainer-pixels"));
  const fs::path one = pixel_cache_path("/data/a/images/train", "/ssd/cache", false);
  const fs::path other = pixel_cache_path("/data/b/images/train", "/ssd/cache", false);
  CHECK(one.parent_path() == fs::path("/ssd/cache"));
  CHECK(one.filename().string().rfind("train-", 0) == 0);
  CHECK(one != other);
  CHECK(one != pixel_cache_path("/data/a/images/train", "/ssd/cache", true));
}

TEST_CASE("detection with cache=disk gives the batches it gives without, for any worker count", "[pixel-cache]") {
  TempDir dir, cache_dir;
  std::vector<std::string> files;
  const cv::Size sizes[] = {{96, 64}, {64, 96}, {80, 80}, {120, 48}, {50, 70}, {100, 61}};
  for (int i = 0; i < 6; ++i) {
    files.push_back(write_labelled_image(dir.path(), "train", "img" + std::to_string(i), sizes[i],
                                         {{i % 5, {5, 5, 20, 20}}, {(i + 1) % 5, {25, 30, 16, 16}}}));
  }
  DetectDataOptions options;
  options.classes = 5;
  options.cache = false;
  const DetectDataset plain(files, options);
  DetectDataset cached(files, options), letterboxed(files, options);
  // At imgsz 64 every copy has at most 64 x 64 pixels: kept raw, so the pixels are those of the
  // decode and resize without the cache. One folder for both uses: two files.
  use_detect_pixel_cache(cached, 64, DetectCopies::training, {cache_dir.path().string(), 95});
  use_detect_pixel_cache(letterboxed, 64, DetectCopies::letterboxed, {cache_dir.path().string(), 95});
  CHECK(cached.max_reduction(0) == 1);
  CHECK(cached.image(0).size() == cv::Size(64, 43));
  CHECK(cached.image(5).size() == cv::Size(64, 40));       // 39.04 rounded up, as load_image
  CHECK(letterboxed.image(5).size() == cv::Size(64, 39));  // to nearest, as the letterbox
  for (const auto& entry : fs::directory_iterator(cache_dir.path())) {
    CHECK(entry.path().filename().string().rfind("train-", 0) == 0);
  }
  DetectAugment augment;
  augment.imgsz = 64;
  augment.max_boxes = 6;
  augment.degrees = 10;
  augment.mixup = 0.5;
  const auto batches = make_batches(epoch_order(subset_indices(6, 1.0, 0), 5, 0, true), 3, false);
  for (const bool train : {true, false}) {
    augment.train = train;
    const Batch expected = make_detect_collate(plain, augment, 5)(batches[0], 0);
    for (const int64_t workers : {0, 2}) {
      Loader loader(make_detect_collate(train ? cached : letterboxed, augment, 5), workers, 2);
      loader.start_epoch(batches, 0);
      INFO((train ? "training" : "evaluation") << ", workers " << workers);
      const Batch first = *loader.next();
      CHECK(torch::equal(first.input, expected.input));
      CHECK(torch::equal(first.target, expected.target));
    }
  }
  // The copies are all the loader needs: with the files gone it still makes its batches.
  for (const std::string& file : files) fs::remove(file);
  augment.train = true;
  CHECK_NOTHROW(make_detect_collate(cached, augment, 5)(batches[1], 1));
}

TEST_CASE("detection copies of large photographs keep imgsz on the long side as JPEG", "[pixel-cache]") {
  TempDir dir;
  const std::string file = write_labelled_image(dir.path(), "train", "big", {1000, 640}, {{0, {100, 100, 200, 150}}},
                                                ".jpg");
  DetectDataOptions options;
  options.classes = 1;
  options.cache = false;
  DetectDataset data({file}, options);
  const cv::Mat whole = data.image(0);
  use_detect_pixel_cache(data, 320, DetectCopies::training, {});
  REQUIRE(fs::exists(dir.path() / "images" / "train.trainer-pixels"));
  const auto cache = PixelCacheFile::open(dir.path() / "images" / "train.trainer-pixels",
                                          pixel_cache_key({{}, {file}, "detect: long side 320", 95}));
  REQUIRE(cache);
  CHECK(cache->encoding(0) == PixelEncoding::jpeg);
  const cv::Mat copy = data.image(0);
  REQUIRE(copy.size() == cv::Size(320, 205));
  cv::Mat shrunk;
  cv::resize(whole, shrunk, copy.size(), 0, 0, cv::INTER_AREA);
  CHECK(cv::norm(copy, shrunk, cv::NORM_L1) / double(copy.total() * 3) < 3.0);
  CHECK(data.original_size(0) == cv::Size(1000, 640));  // predictions still map back to the file's pixels
}

TEST_CASE("classification copies keep the short side the crops can use", "[pixel-cache]") {
  ClassifyAugment train;
  train.imgsz = 224;
  train.scale = 0.92;  // timm's (0.08, 1)
  CHECK(cached_short_side(train) == 792);
  train.scale = 0;
  CHECK(cached_short_side(train) == 224);
  train.scale = 1;
  CHECK(cached_short_side(train) == 0);
  ClassifyAugment evaluation;
  evaluation.imgsz = 224;
  evaluation.train = false;
  evaluation.crop_fraction = 0.875;
  CHECK(cached_short_side(evaluation) == 256);

  TempDir dir;
  for (const std::string cls : {"a", "b"}) {
    fs::create_directories(dir.path() / "train" / cls);
    fs::create_directories(dir.path() / "val" / cls);
    cv::Mat bgr;
    cv::cvtColor(photo_like({600, 400}, cls == "a" ? 1 : 2), bgr, cv::COLOR_RGB2BGR);
    cv::imwrite((dir.path() / "train" / cls / "big.jpg").string(), bgr);
    cv::imwrite((dir.path() / "val" / cls / "big.jpg").string(), bgr);
    cv::imwrite((dir.path() / "train" / cls / "small.png").string(), bgr(cv::Rect(0, 0, 40, 30)));
  }
  std::unique_ptr<ImageDataset> source = std::make_unique<ImageFolder>(dir.path().string(), Split::train, 0.0);
  const ImageDataset& folder = *source;
  const cv::Mat small_source = folder.image(1);
  const int64_t label = folder.label(0);
  const auto cached = with_pixel_cache(std::move(source), dir.path() / "train", false, 100, {});
  CHECK(fs::exists(dir.path() / "train.trainer-pixels"));
  CHECK(cached->geometry(0).size == cv::Size(150, 100));
  CHECK(cached->geometry(0).max_reduction == 8);
  CHECK(cached->geometry(1).size == cv::Size(40, 30));
  CHECK(cached->label(0) == label);
  CHECK(cv::norm(cached->image(1), small_source, cv::NORM_INF) == 0);
  CHECK(cached->region_image(0, {0, 0, 150, 100}, 2).size() == cv::Size(75, 50));
}

TEST_CASE("classification with cache=disk trains as reading every file does", "[pixel-cache][cli]") {
  TempDir dir("classify-disk-cache");
  write_two_class_images(dir / "data");
  const std::string args = " data=" + (dir / "data").string() + " model=resnet18 epochs=2 batch=4 imgsz=16 "
                           "workers=2 project=" + dir.file("runs") + " -q";
  const CommandResult plain = run_trainer("train name=plain" + args);
  const CommandResult cached = run_trainer("train name=cached cache=disk cache_quality=90" + args);
  INFO(plain.output << "\n---\n" << cached.output);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(cached.exit_code == 0);
  CHECK(fs::exists(dir / "data" / "train.trainer-pixels"));
  CHECK(fs::exists(dir / "data" / "val.eval.trainer-pixels"));
  // 16-px images are kept raw: the same batches, so the same weights to the bit.
  const auto weights = [&](const std::string& name) {
    return load_checkpoint(dir / "runs" / name / "weights" / "last.pt").model;
  };
  CHECK(identical(weights("cached"), weights("plain")));
}
