#include "data/synth/synth_detect.h"

#include <zlib.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <filesystem>

#include "data/rng.h"
#include "util/error.h"
#include "util/file_write.h"
#include "util/parallel.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

constexpr const char* kOpencvDocData = "/usr/share/doc/opencv-doc/examples/data";
// opencv-doc's photographs. Drawings, text, charts and calibration patterns are left out, and so
// are pictures full of round things (fruit, sweets, a starry sky) that would pass for unlabelled
// circles.
constexpr const char* kPhotos[] = {"aero1.jpg",      "aloeL.jpg",        "baboon.jpg",      "basketball1.png",
                                   "board.jpg",      "box_in_scene.png", "building.jpg",    "butterfly.jpg",
                                   "chicky_512.png", "graf1.png",        "home.jpg",        "leuvenA.jpg",
                                   "messi5.jpg",     "rubberwhale1.png", "squirrel_cls.jpg"};
enum ShapeClass { kCircle, kSquare, kTriangle, kCross, kRing, kClassCount };
// An earlier object must keep this share of its pixels in view when a later one is drawn.
constexpr double kMinVisible = 0.7;
constexpr int kPlacementTries = 30;
constexpr int kSubpixelBits = 4;

// Debian compresses some documentation files; a photo may be there only as NAME.gz.
cv::Mat decode_gzipped(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) return {};
  std::vector<uchar> bytes;
  std::vector<uchar> chunk(1 << 16);
  for (int read; (read = gzread(file, chunk.data(), unsigned(chunk.size()))) > 0;) {
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + read);
  }
  gzclose(file);
  return bytes.empty() ? cv::Mat() : cv::imdecode(bytes, cv::IMREAD_COLOR);
}

cv::Mat read_photo(const std::string& path) {
  cv::Mat photo = fs::exists(path) ? cv::imread(path, cv::IMREAD_COLOR) : decode_gzipped(path + ".gz");
  return photo.cols >= 16 && photo.rows >= 16 ? photo : cv::Mat();
}

std::vector<cv::Mat> read_photos(const std::vector<std::string>& backgrounds) {
  std::vector<cv::Mat> photos;
  if (backgrounds.empty()) {
    for (const char* name : kPhotos) {
      cv::Mat photo = read_photo(std::string(kOpencvDocData) + "/" + name);
      if (!photo.empty()) photos.push_back(std::move(photo));
    }
    if (photos.empty()) {
      throw UserError(std::string("no background photographs in ") + kOpencvDocData +
                      ": install the Debian package opencv-doc, or name background images explicitly");
    }
    return photos;
  }
  for (const std::string& path : backgrounds) {
    photos.push_back(read_photo(path));
    if (photos.back().empty()) throw UserError("cannot read background image " + path);
  }
  return photos;
}

// A random crop of a random photo with the image's aspect ratio, resized to it, maybe mirrored.
cv::Mat background(const std::vector<cv::Mat>& photos, cv::Size size, SplitMix64& rng) {
  const cv::Mat& photo = photos[rng.below(photos.size())];
  const double aspect = double(size.width) / size.height;
  const double fraction = rng.uniform(0.35, 1.0);
  const double width = std::min<double>(photo.cols, photo.rows * aspect) * fraction;
  const double height = width / aspect;
  const cv::Rect crop(int(rng.uniform(0, photo.cols - width)), int(rng.uniform(0, photo.rows - height)),
                      std::max(1, int(width)), std::max(1, int(height)));
  cv::Mat image;
  cv::resize(photo(crop), image, size, 0, 0, crop.width > size.width ? cv::INTER_AREA : cv::INTER_LINEAR);
  if (rng.uniform() < 0.5) cv::flip(image, image, 1);
  return image;
}

struct Shape {
  int cls;
  cv::Point2d centre;  ///< in the image
  double radius;       ///< of the circle the shape fills
  double angle;        ///< radians
};

Shape draw_shape_parameters(cv::Size size, int64_t imgsz, SplitMix64& rng) {
  Shape shape;
  shape.cls = int(rng.below(kClassCount));
  // Log-uniform diameters from small (5 % of the image) to large (45 %).
  const double diameter = imgsz * std::exp(rng.uniform(std::log(0.05), std::log(0.45)));
  shape.radius = std::min(diameter, 0.9 * std::min(size.width, size.height)) / 2;
  const double margin = shape.radius * 1.1 + 1;  // the cross's corners reach 1.05 radii
  shape.centre = {rng.uniform(margin, size.width - margin), rng.uniform(margin, size.height - margin)};
  shape.angle = rng.uniform(0, 2 * CV_PI);
  return shape;
}

// The polygon's corners around the origin for a unit radius, before rotation.
std::vector<cv::Point2d> outline(int cls) {
  switch (cls) {
    case kSquare:
      return {{0.7071, 0.7071}, {-0.7071, 0.7071}, {-0.7071, -0.7071}, {0.7071, -0.7071}};
    case kTriangle:
      return {{1, 0}, {-0.5, 0.8660}, {-0.5, -0.8660}};
    default: {  // kCross: a plus sign with arms a third of the diameter wide
      const double a = 0.3;
      return {{a, -1}, {a, -a}, {1, -a}, {1, a},   {a, a},   {a, 1},
              {-a, 1}, {-a, a}, {-1, a}, {-1, -a}, {-a, -a}, {-a, -1}};
    }
  }
}

// 255 where the shape covers `roi` of the image, in the roi's coordinates.
cv::Mat shape_mask(const Shape& shape, const cv::Rect& roi) {
  cv::Mat mask = cv::Mat::zeros(roi.size(), CV_8UC1);
  const double unit = 1 << kSubpixelBits;
  const auto fixed = [&](cv::Point2d p) {
    // +0.5: OpenCV's drawing puts pixel centres at integers, the shapes' coordinates at i + 0.5.
    return cv::Point(int(std::lround((p.x - roi.x - 0.5) * unit)), int(std::lround((p.y - roi.y - 0.5) * unit)));
  };
  const cv::Point centre = fixed(shape.centre);
  if (shape.cls == kCircle || shape.cls == kRing) {
    cv::circle(mask, centre, int(std::lround(shape.radius * unit)), 255, cv::FILLED, cv::LINE_8, kSubpixelBits);
    if (shape.cls == kRing) {
      cv::circle(mask, centre, int(std::lround(0.55 * shape.radius * unit)), 0, cv::FILLED, cv::LINE_8, kSubpixelBits);
    }
    return mask;
  }
  const double c = std::cos(shape.angle), s = std::sin(shape.angle);
  std::vector<cv::Point> corners;
  for (const cv::Point2d& p : outline(shape.cls)) {
    corners.push_back(fixed(shape.centre + shape.radius * cv::Point2d(c * p.x - s * p.y, s * p.x + c * p.y)));
  }
  cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{corners}, 255, cv::LINE_8, kSubpixelBits);
  return mask;
}

cv::Vec3b random_colour(SplitMix64& rng) {
  cv::Mat colour(1, 1, CV_8UC3, cv::Scalar(rng.uniform(0, 180), rng.uniform(140, 255), rng.uniform(110, 255)));
  cv::cvtColor(colour, colour, cv::COLOR_HSV2BGR);
  return colour.at<cv::Vec3b>(0, 0);
}

// The objects painted so far: which one each pixel shows, and how much of each is in view.
class Canvas {
 public:
  explicit Canvas(cv::Mat image) : image_(std::move(image)), owner_(cv::Mat::zeros(image_.size(), CV_16UC1)) {}

  // Paints the shape unless that would hide too much of an earlier object.
  bool try_paint(const Shape& shape, const cv::Vec3b& colour) {
    const double reach = shape.radius * 1.1 + 2;
    const cv::Rect roi = cv::Rect(cv::Point(int(shape.centre.x - reach), int(shape.centre.y - reach)),
                                  cv::Size(int(2 * reach) + 2, int(2 * reach) + 2)) &
                         cv::Rect(cv::Point(), image_.size());
    const cv::Mat mask = shape_mask(shape, roi);
    std::vector<int64_t> covered(visible_.size() + 1, 0);
    for_each_pixel(mask, roi, [&](int y, int x) { ++covered[owner_.at<uint16_t>(y, x)]; });
    for (size_t k = 0; k < visible_.size(); ++k) {
      if (double(visible_[k] - covered[k + 1]) < kMinVisible * double(painted_[k])) return false;
    }
    const uint16_t id = uint16_t(visible_.size() + 1);
    int64_t pixels = 0;
    for_each_pixel(mask, roi, [&](int y, int x) {
      uint16_t& owner = owner_.at<uint16_t>(y, x);
      if (owner) --visible_[owner - 1u];
      owner = id;
      image_.at<cv::Vec3b>(y, x) = colour;
      ++pixels;
    });
    if (pixels == 0) return false;
    classes_.push_back(shape.cls);
    rois_.push_back(roi);
    painted_.push_back(pixels);
    visible_.push_back(pixels);
    return true;
  }

  // One "class cx cy w h" line per object: the box of its pixels in view, normalised.
  std::string labels() const {
    std::string text;
    for (size_t k = 0; k < classes_.size(); ++k) {
      const cv::Rect box = cv::boundingRect(owner_(rois_[k]) == double(k + 1)) + rois_[k].tl();
      char line[96];
      std::snprintf(line, sizeof(line), "%d %.6f %.6f %.6f %.6f\n", classes_[k],
                    (box.x + box.width / 2.0) / image_.cols, (box.y + box.height / 2.0) / image_.rows,
                    double(box.width) / image_.cols, double(box.height) / image_.rows);
      text += line;
    }
    return text;
  }
  const cv::Mat& image() const { return image_; }

 private:
  template <typename Visit>
  static void for_each_pixel(const cv::Mat& mask, const cv::Rect& roi, Visit visit) {
    for (int y = 0; y < mask.rows; ++y) {
      const uint8_t* row = mask.ptr<uint8_t>(y);
      for (int x = 0; x < mask.cols; ++x) {
        if (row[x]) visit(y + roi.y, x + roi.x);
      }
    }
  }

  cv::Mat image_;  // BGR, as imwrite takes it
  cv::Mat owner_;  // 0 = background, k = the k-th object
  std::vector<int> classes_;
  std::vector<cv::Rect> rois_;
  std::vector<int64_t> painted_, visible_;
};

void write_sample(const SynthDetectOptions& options, const std::vector<cv::Mat>& photos, const fs::path& root,
                  const std::string& split, uint64_t split_id, int64_t i) {
  SplitMix64 rng(derive_seed(options.seed, RngStream::synthetic_data, {split_id, uint64_t(i)}));
  const int long_side = int(options.imgsz);
  const int short_side = int(std::lround(long_side * rng.uniform(0.6, 1.0)));
  const cv::Size size = rng.uniform() < 0.5 ? cv::Size(long_side, short_side) : cv::Size(short_side, long_side);
  Canvas canvas(background(photos, size, rng));
  const int64_t objects =
      rng.uniform() < options.background_fraction ? 0 : 1 + int64_t(rng.below(uint64_t(options.max_objects)));
  for (int64_t object = 0; object < objects; ++object) {
    const cv::Vec3b colour = random_colour(rng);
    for (int attempt = 0; attempt < kPlacementTries; ++attempt) {
      if (canvas.try_paint(draw_shape_parameters(size, options.imgsz, rng), colour)) break;
    }
  }
  char stem[16];
  std::snprintf(stem, sizeof(stem), "%05lld", static_cast<long long>(i));
  // Every fourth image is a PNG, so both decoders are exercised.
  const fs::path image = root / "images" / split / (std::string(stem) + (i % 4 == 3 ? ".png" : ".jpg"));
  if (!cv::imwrite(image.string(), canvas.image(), {cv::IMWRITE_JPEG_QUALITY, 92})) {
    throw UserError("cannot write " + image.string());
  }
  write_file(root / "labels" / split / (std::string(stem) + ".txt"), canvas.labels());
}

void check(bool condition, const std::string& message) {
  if (!condition) throw UserError("synthetic detection data: " + message);
}

}  // namespace

const std::vector<std::string>& synth_detect_classes() {
  static const std::vector<std::string> names{"circle", "square", "triangle", "cross", "ring"};
  return names;
}

void write_synth_detect(const SynthDetectOptions& options) {
  check(!options.root.empty(), "no output folder given");
  check(options.train >= 1 && options.val >= 1, "train and val must be >= 1");
  check(options.imgsz >= 32, "imgsz must be >= 32");
  check(options.max_objects >= 1, "max_objects must be >= 1");
  check(options.background_fraction >= 0 && options.background_fraction <= 1, "background_fraction must be in [0, 1]");
  const fs::path root(options.root);
  std::error_code error;
  check(!fs::exists(root, error) || (fs::is_directory(root, error) && fs::is_empty(root, error)),
        options.root + " exists and is not an empty folder; choose a new one");
  const std::vector<cv::Mat> photos = read_photos(options.backgrounds);

  for (const char* kind : {"images", "labels"}) {
    for (const char* split : {"train", "val"}) fs::create_directories(root / kind / split);
  }
  parallel_for_each_index(size_t(options.train + options.val), [&](size_t n) {
    const bool train = int64_t(n) < options.train;
    write_sample(options, photos, root, train ? "train" : "val", train ? 0 : 1,
                 train ? int64_t(n) : int64_t(n) - options.train);
  });

  std::string yaml =
      "# Synthetic shapes on crops of photographs, written by trainer (write_synth_detect).\n"
      "train: images/train\nval: images/val\nnc: " +
      std::to_string(synth_detect_classes().size()) + "\nnames:\n";
  for (size_t c = 0; c < synth_detect_classes().size(); ++c) {
    yaml += "  " + std::to_string(c) + ": " + synth_detect_classes()[c] + "\n";
  }
  write_file(root / "data.yaml", yaml);
}

}  // namespace trainer
