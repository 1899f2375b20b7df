// A small synthetic detection dataset in the Ultralytics layout, for demos and end-to-end tests
// without downloads: filled shapes (one class per shape) of random colour, size, angle and place
// composited onto random crops of real photographs, with boxes that are exact by construction.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct SynthDetectOptions {
  std::string root;                      ///< output folder; must not exist or be empty
  int64_t train = 400;                   ///< training images, >= 1
  int64_t val = 100;                     ///< validation images, >= 1
  int64_t imgsz = 320;                   ///< long side of every image in pixels, >= 32
  int64_t max_objects = 8;               ///< objects per image drawn from 1..max_objects, >= 1
  double background_fraction = 0.05;     ///< share of images without objects, [0, 1]
  uint64_t seed = 0;                     ///< the same seed writes the same files
  std::vector<std::string> backgrounds;  ///< photographs to crop; empty = Debian opencv-doc's sample photos
};

// The class names, by class index: circle, square, triangle, cross, ring.
const std::vector<std::string>& synth_detect_classes();

// Writes root/images/{train,val}/NNNNN.{jpg,png}, root/labels/{train,val}/NNNNN.txt and
// root/data.yaml (without `path`, so Ultralytics and trainer both take its folder as the root).
// Objects are drawn on top of each other only while every earlier one keeps at least 70 % of its
// pixels in view, and each box encloses exactly the pixels of its object left in view. UserError
// when root holds files, or no background photograph can be read (naming the opencv-doc package
// when the defaults are missing).
void write_synth_detect(const SynthDetectOptions& options);

}  // namespace trainer
