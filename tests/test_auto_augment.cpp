// RandAugment, AutoAugment and TrivialAugmentWide against torchvision's own
// (scripts/python/image_ops_fixture.py): every op at several magnitudes on an RGB image with a
// narrow and a constant channel and on a grey one, both non-square, pixel for pixel; and the
// policies' draws against torchvision's magnitude tables.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "data/classify/auto_augment.h"
#include "data/image_ops.h"
#include "data/read_image.h"
#include "test_helpers.h"

using namespace trainer;

namespace {

constexpr ImageOp kAllOps[] = {ImageOp::identity,   ImageOp::shear_x,   ImageOp::shear_y,      ImageOp::translate_x,
                               ImageOp::translate_y, ImageOp::rotate,    ImageOp::brightness,   ImageOp::color,
                               ImageOp::contrast,   ImageOp::sharpness, ImageOp::posterize,    ImageOp::solarize,
                               ImageOp::autocontrast, ImageOp::equalize, ImageOp::invert};

ImageOp op_named(const std::string& name) {
  for (const ImageOp op : kAllOps) {
    if (image_op_name(op) == name) return op;
  }
  FAIL("no op named " << name);
  return ImageOp::identity;
}

const testing::PythonOutput& fixture() {
  static const testing::PythonOutput outputs("image_ops_fixture.py");
  return outputs;
}

cv::Mat read_fixture(const std::string& name, int channels) { return read_image(fixture().file(name), channels); }

}  // namespace

TEST_CASE("every augmentation op matches torchvision's on uint8 images", "[data]") {
  std::ifstream manifest(fixture().file("ops.txt"));
  REQUIRE(manifest);
  std::string line;
  int cases = 0;
  std::set<std::string> seen;
  while (std::getline(manifest, line)) {
    std::istringstream fields(line);
    std::string input, name, output;
    double magnitude = 0;
    REQUIRE(fields >> input >> name >> magnitude >> output);
    const int channels = input == "grey.png" ? 1 : 3;
    const cv::Mat image = read_fixture(input, channels), expected = read_fixture(output, channels);
    const cv::Mat ours = apply_image_op(image, op_named(name), magnitude);
    INFO(input << " " << name << " " << magnitude);
    const testing::PixelDifference difference = testing::pixel_difference(ours, expected);
    INFO("differing values: " << difference.values << " of " << expected.total() * channels << ", largest "
                              << difference.largest);
    CHECK(difference.values == 0);
    seen.insert(name);
    ++cases;
  }
  CHECK(cases >= 80);
  CHECK(seen.size() == std::size(kAllOps));
}

namespace {

// tables.txt: policy -> op -> the magnitudes of its bins (one 0 for ops without any), and whether
// torchvision negates it at random.
struct OpTable {
  std::vector<double> magnitudes;
  bool is_signed = false;
};
using PolicyTables = std::map<std::string, std::map<std::string, OpTable>>;

const PolicyTables& tables() {
  static const PolicyTables read = [] {
    PolicyTables tables;
    std::ifstream file(fixture().file("tables.txt"));
    std::string policy, op;
    int bin = 0, is_signed = 0;
    double magnitude = 0;
    while (file >> policy >> op >> bin >> magnitude >> is_signed) {
      OpTable& table = tables[policy][op];
      REQUIRE(size_t(bin) == table.magnitudes.size());
      table.magnitudes.push_back(magnitude);
      table.is_signed = is_signed == 1;
    }
    return tables;
  }();
  return read;
}

bool close_to(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(b)); }

// The bin of `magnitude` in the policy's table of the op, or -1.
int bin_of(const std::string& policy, const ImageOpDraw& draw) {
  const OpTable& table = tables().at(policy).at(std::string(image_op_name(draw.op)));
  if (draw.magnitude < 0 && !table.is_signed) return -1;
  for (size_t bin = 0; bin < table.magnitudes.size(); ++bin) {
    if (close_to(std::abs(draw.magnitude), table.magnitudes[bin])) return int(bin);
  }
  return -1;
}

const cv::Size kTableImage(41, 29);

}  // namespace

TEST_CASE("RandAugment draws N of its 14 ops uniformly, all at bin M of torchvision's table, either sign", "[data]") {
  for (const int64_t magnitude : {0, 9, 30}) {
    const AutoAugment augment{AutoAugmentPolicy::randaugment, 2, magnitude};
    std::map<std::string, int> counts, negated;
    for (uint64_t image = 0; image < 2100; ++image) {
      SplitMix64 rng(derive_seed(5, RngStream::auto_augment, {image}));
      const std::vector<ImageOpDraw> draws = draw_auto_augment(augment, kTableImage, rng);
      REQUIRE(draws.size() == 2);
      for (const ImageOpDraw& draw : draws) {
        const std::string name(image_op_name(draw.op));
        INFO("magnitude bin " << magnitude << ": " << name << " " << draw.magnitude);
        const OpTable& table = tables().at("randaugment").at(name);
        const size_t bin = table.magnitudes.size() > 1 ? size_t(magnitude) : 0;
        CHECK(close_to(std::abs(draw.magnitude), table.magnitudes[bin]));
        ++counts[name];
        if (draw.magnitude < 0) ++negated[name];
      }
    }
    // 4,200 ops over 14 kinds: 300 each on average.
    REQUIRE(counts.size() == 14);
    CHECK(counts.count("Invert") == 0);
    for (const auto& [name, count] : counts) {
      INFO(name);
      CHECK(count > 240);
      CHECK(count < 360);
      if (tables().at("randaugment").at(name).is_signed && magnitude > 0) {
        CHECK(negated[name] > count / 3);
        CHECK(negated[name] < 2 * count / 3);
      }
    }
  }
}

TEST_CASE("TrivialAugmentWide draws one op at a uniform bin of torchvision's wide table", "[data]") {
  const AutoAugment augment{AutoAugmentPolicy::trivialaugment, 2, 9};
  std::map<std::string, std::set<int>> bins;
  for (uint64_t image = 0; image < 3000; ++image) {
    SplitMix64 rng(derive_seed(6, RngStream::auto_augment, {image}));
    const std::vector<ImageOpDraw> draws = draw_auto_augment(augment, kTableImage, rng);
    REQUIRE(draws.size() == 1);
    INFO(image_op_name(draws[0].op) << " " << draws[0].magnitude);
    const int bin = bin_of("trivialaugment", draws[0]);
    REQUIRE(bin >= 0);
    bins[std::string(image_op_name(draws[0].op))].insert(bin);
  }
  REQUIRE(bins.size() == 14);
  // ~214 draws of each op over 31 bins: all of them seen, but for ties in the table (posterize).
  CHECK(bins.at("Rotate").size() == 31);
  CHECK(bins.at("ShearY").size() == 31);
  CHECK(bins.at("Solarize").size() == 31);
}

TEST_CASE("AutoAugment applies the ops of one ImageNet sub-policy at their bins", "[data]") {
  const AutoAugment augment{AutoAugmentPolicy::autoaugment, 2, 9};
  std::map<std::string, int> counts;
  int applied = 0;
  for (uint64_t image = 0; image < 3000; ++image) {
    SplitMix64 rng(derive_seed(7, RngStream::auto_augment, {image}));
    const std::vector<ImageOpDraw> draws = draw_auto_augment(augment, kTableImage, rng);
    REQUIRE(draws.size() <= 2);
    for (const ImageOpDraw& draw : draws) {
      INFO(image_op_name(draw.op) << " " << draw.magnitude);
      CHECK(bin_of("autoaugment", draw) >= 0);
      ++counts[std::string(image_op_name(draw.op))];
      ++applied;
    }
  }
  // The policy's probabilities sum to 31 over 25 sub-policies: 1.24 ops per image on average.
  CHECK(applied > 3000 * 1.17);
  CHECK(applied < 3000 * 1.31);
  // Equalize's probabilities sum to 11.2 (0.448 per image); ops the policy never names never appear.
  CHECK(counts.at("Equalize") > 3000 * 0.448 * 0.9);
  CHECK(counts.at("Equalize") < 3000 * 0.448 * 1.1);
  CHECK(counts.at("Invert") > 0);
  CHECK(counts.count("TranslateX") == 0);
  CHECK(counts.count("Brightness") == 0);
}

TEST_CASE("a policy's ops applied in turn give auto_augment's image", "[data]") {
  const cv::Mat image = read_fixture("rgb.png", 3);
  const AutoAugment augment{AutoAugmentPolicy::randaugment, 3, 15};
  for (uint64_t seed = 0; seed < 10; ++seed) {
    SplitMix64 draw_rng(seed), apply_rng(seed);
    cv::Mat expected = image;
    for (const ImageOpDraw& draw : draw_auto_augment(augment, image.size(), draw_rng)) {
      expected = apply_image_op(expected, draw.op, draw.magnitude);
    }
    const cv::Mat augmented = auto_augment(image, augment, apply_rng);
    CHECK(cv::norm(augmented, expected, cv::NORM_INF) == 0);
  }
  SplitMix64 rng(1);
  CHECK(cv::norm(auto_augment(image, AutoAugment{}, rng), image, cv::NORM_INF) == 0);
}
