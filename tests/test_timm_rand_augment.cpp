// timm's RandAugment: its --aa strings read as timm reads them, its level-to-argument rules and the
// PIL ops without resampling equal to the Python reference (scripts/python/
// timm_rand_augment_fixture.py, written from timm/data/auto_augment.py), and its draws.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "config/timm_rand_augment_text.h"
#include "data/classify/auto_augment.h"
#include "data/classify/timm_rand_augment.h"
#include "io/state_dict.h"
#include "io/tensor_archive.h"
#include "test_helpers.h"

using namespace trainer;

namespace {

const testing::PythonOutput& fixture() {
  static const testing::PythonOutput output("timm_rand_augment_fixture.py");
  return output;
}

TimmOp timm_op_named(std::string name) {
  const size_t increasing = name.find("Increasing");
  if (increasing != std::string::npos) name.erase(increasing);
  static const std::map<std::string, TimmOp> ops = {
      {"AutoContrast", TimmOp::auto_contrast}, {"Equalize", TimmOp::equalize},   {"Invert", TimmOp::invert},
      {"Rotate", TimmOp::rotate},              {"Posterize", TimmOp::posterize}, {"Solarize", TimmOp::solarize},
      {"SolarizeAdd", TimmOp::solarize_add},   {"Color", TimmOp::color},         {"Contrast", TimmOp::contrast},
      {"Brightness", TimmOp::brightness},      {"Sharpness", TimmOp::sharpness}, {"ShearX", TimmOp::shear_x},
      {"ShearY", TimmOp::shear_y},             {"TranslateXRel", TimmOp::translate_x_rel},
      {"TranslateYRel", TimmOp::translate_y_rel}};
  return ops.at(name);
}

// timm's argument as image_ops.h's magnitude: enhancement factors less 1, translations in pixels.
double as_magnitude(TimmOp op, double argument, cv::Size size) {
  switch (op) {
    case TimmOp::color:
    case TimmOp::contrast:
    case TimmOp::brightness:
    case TimmOp::sharpness: return argument - 1.0;
    case TimmOp::translate_x_rel: return argument * size.width;
    case TimmOp::translate_y_rel: return argument * size.height;
    default: return argument;
  }
}

cv::Mat mat_of(const torch::Tensor& hwc) {
  const torch::Tensor dense = hwc.contiguous();
  return cv::Mat(int(dense.size(0)), int(dense.size(1)), CV_8UC3, dense.data_ptr()).clone();
}

}  // namespace

TEST_CASE("timm's --aa strings are read as timm reads them and written back", "[data][timm]") {
  TimmRandAugmentSpec spec;
  REQUIRE_FALSE(read_timm_rand_augment("rand-m9-mstd0.5", spec));
  CHECK(spec.magnitude == 9);
  CHECK(spec.layers == 2);
  CHECK(spec.magnitude_std == 0.5);
  CHECK_FALSE(spec.increasing);
  CHECK(timm_rand_augment_text(spec) == "rand-m9-n2-mstd0.5");
  REQUIRE_FALSE(read_timm_rand_augment("rand-m9-n3-mstd0.5-inc1", spec));
  CHECK((spec.layers == 3 && spec.increasing));
  CHECK(timm_rand_augment_text(spec) == "rand-m9-n3-mstd0.5-inc1");
  REQUIRE_FALSE(read_timm_rand_augment("rand-m7-mstd0.5-inc1", spec));
  CHECK((spec.magnitude == 7 && spec.increasing));
  // Above 100 the magnitude is uniform in [0, m]; m defaults to 10; a section without digits is skipped.
  REQUIRE_FALSE(read_timm_rand_augment("rand-mstd101-mmax20-x", spec));
  CHECK((std::isinf(spec.magnitude_std) && spec.magnitude == 10 && spec.magnitude_max == 20));
  TimmRandAugmentSpec again;
  REQUIRE_FALSE(read_timm_rand_augment(timm_rand_augment_text(spec), again));
  CHECK((std::isinf(again.magnitude_std) && again.magnitude_max == 20));
  CHECK(read_timm_rand_augment("rand-m9-w0", spec).value_or("").find("weighted") != std::string::npos);
  CHECK(read_timm_rand_augment("rand-m9.5", spec).has_value());
  CHECK(read_timm_rand_augment("rand-q3", spec).has_value());
  CHECK(read_timm_rand_augment("original-mstd0.5", spec).has_value());
  CHECK(is_timm_rand_augment("rand-m9"));
  CHECK_FALSE(is_timm_rand_augment("randaugment"));
}

TEST_CASE("timm's level-to-argument rules give the reference's arguments for every op", "[data][timm]") {
  std::ifstream levels(fixture().file("levels.txt"));
  const cv::Size size(100, 60);
  int cases = 0;
  for (std::string line; std::getline(levels, line);) {
    std::istringstream fields(line);
    std::string list, name, argument;
    double level = 0;
    int negate = 0;
    fields >> list >> name >> level >> negate >> argument;
    INFO(line);
    const TimmOp op = timm_op_named(name);
    const ImageOpDraw draw = timm_op_at(op, level, negate == 1, list == "increasing", size);
    const double expected = argument == "none" ? 0.0 : as_magnitude(op, std::stod(argument), size);
    CHECK(draw.magnitude == Approx(expected).margin(1e-12));
    ++cases;
  }
  CHECK(cases == 360);
}

TEST_CASE("SolarizeAdd, Posterize, Solarize and Invert equal PIL's as timm applies them", "[data][timm]") {
  const c10::impl::GenericDict outputs = read_archive(fixture().file("ops.pt")).toGenericDict();
  const cv::Mat input = mat_of(outputs.at("input").toTensor());
  const std::map<std::string, ImageOp> ops = {{"solarize_add", ImageOp::solarize_add},
                                              {"posterize", ImageOp::posterize},
                                              {"solarize", ImageOp::solarize},
                                              {"invert", ImageOp::invert}};
  int compared = 0;
  for (const auto& entry : outputs) {
    const std::string key = entry.key().toStringRef();
    if (key == "input") continue;
    INFO(key);
    const size_t dot = key.find('.');
    const cv::Mat ours = apply_image_op(input, ops.at(key.substr(0, dot)), std::stod(key.substr(dot + 1)));
    CHECK(cv::norm(ours, mat_of(entry.value().toTensor()), cv::NORM_INF) == 0);
    ++compared;
  }
  CHECK(compared == 11);
}

TEST_CASE("timm's RandAugment draws n ops of 15 with replacement, each at odds 0.5, at the noisy magnitude",
          "[data][timm]") {
  TimmRandAugmentSpec spec;
  spec.magnitude = 9;
  spec.layers = 2;
  const cv::Size size(40, 40);
  std::map<ImageOp, int> counts;
  int applied = 0;
  std::set<double> rotations;
  for (uint64_t image = 0; image < 3000; ++image) {
    SplitMix64 rng(derive_seed(9, RngStream::auto_augment, {image}));
    const std::vector<ImageOpDraw> draws = draw_timm_rand_augment(spec, size, rng);
    REQUIRE(draws.size() <= 2);
    applied += int(draws.size());
    for (const ImageOpDraw& draw : draws) {
      ++counts[draw.op];
      if (draw.op == ImageOp::rotate) CHECK(std::abs(draw.magnitude) == Approx(27.0));
    }
  }
  CHECK(applied == Approx(3000).epsilon(0.05));  // 6,000 chosen, half applied
  CHECK(counts.size() == 15);
  CHECK(counts.count(ImageOp::identity) == 0);
  // With noise, the rotation's strength varies around 27 degrees and stays within 30.
  spec.magnitude_std = 0.5;
  for (uint64_t image = 0; image < 600; ++image) {
    SplitMix64 rng(derive_seed(10, RngStream::auto_augment, {image}));
    for (const ImageOpDraw& draw : draw_timm_rand_augment(spec, size, rng)) {
      if (draw.op == ImageOp::rotate) rotations.insert(std::abs(draw.magnitude));
    }
  }
  REQUIRE(rotations.size() > 10);
  CHECK(*rotations.rbegin() <= 30.0);
  CHECK(*rotations.begin() < 27.0);
  // auto_augment's timm policy is this draw.
  AutoAugment augment;
  augment.policy = AutoAugmentPolicy::timm_rand;
  augment.timm = spec;
  SplitMix64 a(3), b(3);
  const std::vector<ImageOpDraw> through_policy = draw_auto_augment(augment, size, a);
  const std::vector<ImageOpDraw> direct = draw_timm_rand_augment(spec, size, b);
  REQUIRE(through_policy.size() == direct.size());
  for (size_t i = 0; i < direct.size(); ++i) CHECK(through_policy[i].magnitude == direct[i].magnitude);
}
