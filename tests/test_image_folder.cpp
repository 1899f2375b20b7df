// ImageFolder on tiny trees written with cv::imwrite: class listing, colour handling, the
// corrupt-file policy (skip, count, warn; fail past max_bad_fraction) and the scan cache; image
// headers, EXIF orientation, reduced JPEG decoding and the decoding of a JPEG region alone.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <fstream>

#include "config/setting_types.h"
#include "data/classify/image_folder.h"
#include "data/classify/open_dataset.h"
#include "data/jpeg_region.h"
#include "data/read_image.h"
#include "idx_files.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;
using Catch::Matchers::Contains;

namespace {

// Lays out root/{train,val}/<class>/ with `per_class` images of 8x8 each; colour images are
// solid BGR (10, 20, 30), grey ones solid 77.
void write_tree(const TempDir& root, const std::vector<std::string>& classes, int per_class, bool grey) {
  for (const char* split : {"train", "val"}) {
    for (const auto& name : classes) {
      const auto dir = root.path() / split / name;
      std::filesystem::create_directories(dir);
      for (int i = 0; i < per_class; ++i) {
        const cv::Mat image = grey ? cv::Mat(8, 8, CV_8UC1, cv::Scalar(77))
                                   : cv::Mat(8, 8, CV_8UC3, cv::Scalar(10, 20, 30));
        cv::imwrite((dir / (std::to_string(i) + (i % 2 ? ".png" : ".bmp"))).string(), image);
      }
    }
  }
}

void write_garbage(const std::filesystem::path& path) {
  std::ofstream(path) << "this is not a PNG";
}

// A JPEG stored `stored` wide whose EXIF block says "turn a quarter clockwise" (orientation 6),
// as cameras write portrait photographs. Its left half is white, so the turn shows.
void write_turned_jpeg(const std::filesystem::path& path, cv::Size stored) {
  cv::Mat image(stored, CV_8UC3, cv::Scalar(0, 0, 0));
  image.colRange(0, stored.width / 2).setTo(cv::Scalar(255, 255, 255));
  std::vector<uchar> jpeg;
  cv::imencode(".jpg", image, jpeg);
  // "Exif\0\0", a little-endian TIFF header, IFD0 with one entry: tag 0x0112, SHORT, 1 value, 6.
  const std::vector<uchar> exif = {'E', 'x', 'i', 'f', 0, 0, 'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01,
                                   3,   0,   1,   0,   0, 0, 6,   0,   0,  0, 0, 0, 0, 0};
  std::vector<uchar> app1 = {0xFF, 0xE1, uchar((exif.size() + 2) >> 8), uchar((exif.size() + 2) & 0xFF)};
  app1.insert(app1.end(), exif.begin(), exif.end());
  jpeg.insert(jpeg.begin() + 2, app1.begin(), app1.end());  // right after the start-of-image marker
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(jpeg.data()), std::streamsize(jpeg.size()));
}

}  // namespace

TEST_CASE("ImageFolder sorts classes by name and returns RGB images", "[data]") {
  TempDir root;
  write_tree(root, {"zebra", "apple", "mango"}, 3, false);
  std::ofstream(root / "train/apple/notes.txt") << "not an image, ignored";
  ImageFolder train(root.path().string(), Split::train, 0.0);
  CHECK(train.class_names() == std::vector<std::string>{"apple", "mango", "zebra"});
  CHECK(train.size() == 9);
  CHECK(train.skipped() == 0);
  CHECK(train.label(0) == 0);
  CHECK(train.label(8) == 2);
  CHECK(train.channels() == 3);
  CHECK(train.native_size() == 224);
  CHECK(train.normalization().mean == std::vector<double>{0.485, 0.456, 0.406});
  const cv::Mat image = train.image(4);
  REQUIRE(image.type() == CV_8UC3);
  CHECK(image.at<cv::Vec3b>(3, 3) == cv::Vec3b(30, 20, 10));
}

TEST_CASE("ImageFolder of grey images has one channel, and expands grey when colour is mixed in", "[data]") {
  TempDir root;
  write_tree(root, {"a", "b"}, 2, true);
  ImageFolder grey(root.path().string(), Split::val, 0.0);
  CHECK(grey.channels() == 1);
  CHECK(grey.normalization().std == std::vector<double>{0.5});
  CHECK(grey.image(0).type() == CV_8UC1);

  cv::imwrite(root / "val/b/colour.png", cv::Mat(8, 8, CV_8UC3, cv::Scalar(1, 2, 3)));
  ImageFolder mixed(root.path().string(), Split::val, 0.0);
  CHECK(mixed.channels() == 3);
  const cv::Mat expanded = mixed.image(0);
  REQUIRE(expanded.type() == CV_8UC3);
  CHECK(expanded.at<cv::Vec3b>(0, 0) == cv::Vec3b(77, 77, 77));
}

TEST_CASE("ImageFolder skips, counts and warns about a corrupt image", "[data]") {
  TempDir root;
  write_tree(root, {"cat", "dog"}, 5, false);
  write_garbage(root.path() / "train/dog/broken.png");
  CapturedLog log;
  ImageFolder train(root.path().string(), Split::train, 0.1);
  CHECK(train.size() == 10);
  CHECK(train.skipped() == 1);
  CHECK_THAT(log.text(), Contains("broken.png"));
  for (size_t i = 0; i < train.size(); ++i) CHECK_FALSE(train.image(i).empty());
}

TEST_CASE("ImageFolder fails when the unreadable share exceeds max_bad_fraction", "[data]") {
  TempDir root;
  write_tree(root, {"cat", "dog"}, 2, false);
  write_garbage(root.path() / "train/cat/bad1.jpg");
  write_garbage(root.path() / "train/dog/bad2.jpeg");
  CapturedLog log;
  CHECK_THROWS_MATCHES(ImageFolder(root.path().string(), Split::train, 0.2), UserError,
                       Catch::Matchers::Predicate<UserError>([](const UserError& error) {
                         return std::string(error.what()).find("2 of 6 images") != std::string::npos;
                       }));
  CHECK_THAT(log.text(), Contains("bad1.jpg") && Contains("bad2.jpeg"));
  CHECK_NOTHROW(ImageFolder(root.path().string(), Split::train, 0.5));
}

TEST_CASE("ImageFolder requires the same classes in train and val, and a non-empty split", "[data]") {
  TempDir root;
  write_tree(root, {"cat", "dog"}, 1, false);
  std::filesystem::create_directories(root.path() / "val/bird");
  CHECK_THROWS_WITH(ImageFolder(root.path().string(), Split::train, 0.0),
                    Contains("train/ has [cat, dog], val/ has [bird, cat, dog]"));

  TempDir empty;
  std::filesystem::create_directories(empty.path() / "train/cat");
  std::filesystem::create_directories(empty.path() / "val/cat");
  CHECK_THROWS_WITH(ImageFolder(empty.path().string(), Split::val, 1.0), Contains("no images under"));
}

TEST_CASE("open_classify_dataset picks IDX or ImageFolder by what the directory holds", "[data]") {
  TempDir root;
  write_tree(root, {"cat", "dog"}, 1, false);
  CHECK(open_classify_dataset(root.path().string(), Split::val, 0.0)->class_names().size() == 2);

  TempDir idx;
  write_idx_dir(idx.path().string(), 6, 2, 5, true);
  CHECK(open_classify_dataset(idx.path().string(), Split::train, 0.0)->native_size() == 5);
  std::filesystem::remove(idx / "t10k-images-idx3-ubyte.gz");
  CHECK_THROWS_WITH(open_classify_dataset(idx.path().string(), Split::val, 0.0),
                    Contains("lacks t10k-images-idx3-ubyte[.gz]"));

  TempDir neither;
  CHECK_THROWS_WITH(open_classify_dataset(neither.path().string(), Split::train, 0.0),
                    Contains("neither IDX files nor train/ and val/") && Contains("train-images-idx3-ubyte"));
  CHECK_THROWS_WITH(open_classify_dataset(neither / "missing", Split::train, 0.0),
                    Contains("is not a directory") && Contains("fashion-mnist"));
}

TEST_CASE("image headers give the decoded size, turned by a JPEG's EXIF orientation as decoding turns it", "[data]") {
  TempDir dir;
  cv::imwrite(dir / "plain.png", cv::Mat(20, 30, CV_8UC3, cv::Scalar(1, 2, 3)));
  cv::imwrite(dir / "plain.jpg", cv::Mat(24, 40, CV_8UC1, cv::Scalar(9)));
  cv::imwrite(dir / "plain.bmp", cv::Mat(5, 7, CV_8UC1, cv::Scalar(9)));
  write_turned_jpeg(dir / "turned.jpg", cv::Size(40, 24));

  const auto png = read_image_header(dir / "plain.png");
  REQUIRE(png);
  CHECK(png->size == cv::Size(30, 20));
  CHECK_FALSE(png->jpeg);
  const auto jpeg = read_image_header(dir / "plain.jpg");
  REQUIRE(jpeg);
  CHECK(jpeg->size == cv::Size(40, 24));
  CHECK(jpeg->jpeg);
  const auto bmp = read_image_header(dir / "plain.bmp");
  REQUIRE(bmp);
  CHECK(bmp->size == cv::Size(7, 5));
  CHECK_FALSE(bmp->jpeg);
  CHECK(image_size(dir / "plain.bmp") == cv::Size(7, 5));
  CHECK_THROWS_WITH(read_image_header(dir / "none.jpg"), Contains("none.jpg"));

  // The check keeps a JPEG's channels and its header size, and tells a file that is not an image.
  cv::imwrite(dir / "colour.jpg", cv::Mat(24, 40, CV_8UC3, cv::Scalar(200, 30, 90)));
  write_garbage(dir / "garbage.jpg");
  CHECK(check_image(dir / "colour.jpg").channels == 3);
  CHECK(check_image(dir / "colour.jpg").jpeg);
  CHECK(check_image(dir / "plain.jpg").channels == 1);
  CHECK(check_image(dir / "plain.png").size == cv::Size(30, 20));
  CHECK_FALSE(check_image(dir / "plain.png").jpeg);
  CHECK(check_image(dir / "turned.jpg").size == cv::Size(24, 40));
  CHECK(check_image(dir / "garbage.jpg").channels == 0);
  CHECK(check_image(dir / "none.jpg").channels == 0);

  const auto turned = read_image_header(dir / "turned.jpg");
  REQUIRE(turned);
  CHECK(turned->size == cv::Size(24, 40));
  const cv::Mat upright = read_image(dir / "turned.jpg", 3);
  CHECK(upright.size() == turned->size);
  CHECK(upright.at<cv::Vec3b>(2, 12)[0] > 200);   // the white half is on top now
  CHECK(upright.at<cv::Vec3b>(37, 12)[0] < 50);
  // Reduced decoding: each side divided and rounded up, turned the same way.
  CHECK(read_image(dir / "turned.jpg", 3, 4).size() == cv::Size(6, 10));
  const cv::Mat eighth = read_image(dir / "turned.jpg", 1, 8);
  CHECK(eighth.size() == cv::Size(3, 5));
  CHECK(eighth.channels() == 1);
}

TEST_CASE("the decode reduction is the largest power of two that keeps the pixels needed", "[data]") {
  CHECK(reduction_keeping(1060, 224, 8) == 4);
  CHECK(reduction_keeping(1792, 224, 8) == 8);
  CHECK(reduction_keeping(4032, 224, 8) == 8);
  CHECK(reduction_keeping(448, 224, 8) == 2);
  CHECK(reduction_keeping(447, 224, 8) == 1);
  CHECK(reduction_keeping(100, 224, 8) == 1);
  CHECK(reduction_keeping(4032, 224, 1) == 1);
  CHECK(reduction_keeping(4032, 640, 2) == 2);
}

TEST_CASE("ImageFolder keeps its scan beside the split and reuses it only for the same files", "[data]") {
  TempDir root;
  write_tree(root, {"cat", "dog"}, 2, false);
  cv::imwrite(root / "train/cat/photo.jpg", cv::Mat(48, 64, CV_8UC3, cv::Scalar(5, 6, 7)));
  write_garbage(root.path() / "train/dog/broken.png");
  const std::string dir = root.path().string();
  const auto cache = root / "train.trainer-cache";

  const ImageFolder scanned(dir, Split::train, 0.5);
  CHECK_FALSE(scanned.from_cache());
  CHECK(std::filesystem::exists(cache));
  // cat: 0.bmp, 1.png, photo.jpg; dog: 0.bmp, 1.png (broken.png skipped).
  REQUIRE(scanned.size() == 5);
  CHECK(scanned.skipped() == 1);
  CHECK(scanned.geometry(2).size == cv::Size(64, 48));
  CHECK(scanned.geometry(2).max_reduction == 8);
  CHECK(scanned.geometry(1).size == cv::Size(8, 8));
  CHECK(scanned.geometry(1).max_reduction == 1);
  CHECK(scanned.reduced_image(2, 8).size() == cv::Size(8, 6));

  CapturedLog log;
  const ImageFolder cached(dir, Split::train, 0.5);
  CHECK(cached.from_cache());
  CHECK_THAT(log.text(), Contains("broken.png"));
  CHECK(cached.size() == 5);
  CHECK(cached.skipped() == 1);
  CHECK(cached.channels() == 3);
  CHECK(cached.geometry(2).size == cv::Size(64, 48));
  CHECK(cached.geometry(2).max_reduction == 8);

  // Another file at the same path (another size on disk) makes the whole scan stale.
  cv::imwrite(root / "train/cat/photo.jpg", cv::Mat(30, 20, CV_8UC3, cv::Scalar(90, 60, 30)));
  const ImageFolder rescanned(dir, Split::train, 0.5);
  CHECK_FALSE(rescanned.from_cache());
  CHECK(rescanned.geometry(2).size == cv::Size(20, 30));
  CHECK(ImageFolder(dir, Split::train, 0.5).from_cache());

  // A damaged cache is ignored and rewritten; caching off neither reads nor writes it.
  std::filesystem::resize_file(cache, std::filesystem::file_size(cache) - 3);
  CHECK_FALSE(ImageFolder(dir, Split::train, 0.5).from_cache());
  CHECK(ImageFolder(dir, Split::train, 0.5).from_cache());
  std::filesystem::remove(cache);
  CHECK_FALSE(ImageFolder(dir, Split::train, 0.5, 224, false).from_cache());
  CHECK_FALSE(std::filesystem::exists(cache));
}

namespace {

// A photograph-like JPEG: colour ramps under detail at every scale (noise), chroma subsampled as
// cameras and cv::imwrite store it.
void write_detailed_jpeg(const std::filesystem::path& path, cv::Size size, bool grey) {
  cv::Mat image(size, CV_8UC3);
  cv::randu(image, cv::Scalar::all(0), cv::Scalar::all(255));
  cv::GaussianBlur(image, image, cv::Size(0, 0), 1.5);
  for (int y = 0; y < size.height; ++y)
    for (int x = 0; x < size.width; ++x) image.at<cv::Vec3b>(y, x)[2] = uint8_t(x * 255 / size.width);
  if (grey) cv::cvtColor(image, image, cv::COLOR_BGR2GRAY);
  cv::imwrite(path.string(), image);
}

int largest_difference(const cv::Mat& a, const cv::Mat& b) {
  REQUIRE(a.size() == b.size());
  REQUIRE(a.type() == b.type());
  cv::Mat difference;
  cv::absdiff(a, b, difference);
  double largest = 0;
  cv::minMaxLoc(difference.reshape(1), nullptr, &largest);
  return int(largest);
}

}  // namespace

TEST_CASE("a JPEG region decodes to the pixels of the whole decode at the same scale, cropped", "[data]") {
  TempDir dir;
  write_detailed_jpeg(dir / "colour.jpg", cv::Size(501, 375), false);
  write_detailed_jpeg(dir / "grey.jpg", cv::Size(501, 375), true);
  const std::vector<cv::Rect> regions = {{0, 0, 501, 375}, {37, 21, 300, 250}, {200, 120, 301, 255}, {5, 3, 9, 11}};
  for (const char* name : {"colour.jpg", "grey.jpg"}) {
    for (const int64_t channels : {1, 3}) {
      for (const int reduction : {1, 2, 4, 8}) {
        const cv::Mat whole = read_image(dir / name, channels, reduction);
        for (const cv::Rect& region : regions) {
          INFO(name << " channels " << channels << " reduction " << reduction << " region " << region);
          const auto part = read_jpeg_region(dir / name, channels, region, reduction);
          REQUIRE(part);
          const cv::Rect expected = reduced_region(region, cv::Size(501, 375), whole.size());
          CHECK(largest_difference(*part, whole(expected)) == 0);
        }
      }
    }
  }
}

TEST_CASE("a JPEG region leaves turned files to read_image and names a file it cannot read", "[data]") {
  TempDir dir;
  write_turned_jpeg(dir / "turned.jpg", cv::Size(40, 24));
  write_garbage(dir / "garbage.jpg");
  std::ofstream(dir / "cut.jpg") << "\xFF\xD8\xFF\xE0";
  CHECK_FALSE(read_jpeg_region(dir / "turned.jpg", 3, cv::Rect(0, 0, 24, 40), 1));
  CHECK_THROWS_WITH(read_jpeg_region(dir / "garbage.jpg", 3, cv::Rect(0, 0, 4, 4), 1), Contains("garbage.jpg"));
  CHECK_THROWS_WITH(read_jpeg_region(dir / "cut.jpg", 3, cv::Rect(0, 0, 4, 4), 1), Contains("cut.jpg"));
  CHECK_THROWS_WITH(read_jpeg_region(dir / "none.jpg", 3, cv::Rect(0, 0, 4, 4), 1), Contains("none.jpg"));
  set_max_image_pixels(100);
  write_detailed_jpeg(dir / "large.jpg", cv::Size(20, 10), false);
  CHECK_THROWS_WITH(read_jpeg_region(dir / "large.jpg", 3, cv::Rect(0, 0, 4, 4), 1), Contains("max_image_pixels"));
  set_max_image_pixels(kPilMaxImagePixels);
}

TEST_CASE("ImageFolder decodes a JPEG region as the whole reduced image cropped, and turned ones upright", "[data]") {
  TempDir root;
  for (const char* split : {"train", "val"}) std::filesystem::create_directories(root / split / "a");
  write_detailed_jpeg(root / "train/a/0.jpg", cv::Size(400, 300), false);
  write_turned_jpeg(root / "train/a/1.jpg", cv::Size(40, 24));
  cv::imwrite((root / "train/a/2.png").string(), cv::Mat(30, 20, CV_8UC3, cv::Scalar(1, 2, 3)));
  cv::imwrite((root / "val/a/0.png").string(), cv::Mat(8, 8, CV_8UC3, cv::Scalar(1, 2, 3)));
  const ImageFolder folder(root.path().string(), Split::train, 0.0, 224, false);
  const cv::Rect region(50, 40, 300, 200);
  const cv::Mat part = folder.region_image(0, region, 2);
  CHECK(largest_difference(part, folder.reduced_image(0, 2)(cv::Rect(25, 20, 150, 100))) == 0);
  // The turned file: the region is in the upright image's pixels (24 wide, 40 high).
  const cv::Mat top = folder.region_image(1, cv::Rect(0, 0, 24, 10), 1);
  CHECK(top.size() == cv::Size(24, 10));
  CHECK(top.at<cv::Vec3b>(2, 12)[0] > 200);
  CHECK(folder.region_image(2, cv::Rect(2, 3, 10, 12), 1).size() == cv::Size(10, 12));
}
