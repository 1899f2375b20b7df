// The text and binary files of a dataset, the first byte choosing the reader: an Ultralytics
// data.yaml, a YOLO label file (the second byte gives the class count), an EasyOCR labels.csv,
// and IDX image and label files (plain or gzip).
#include "data/classify/fashion_mnist.h"
#include "data/detect/detect_dataset_config.h"
#include "data/detect/yolo_labels.h"
#include "data/ocr/ocr_labels.h"
#include "support/fuzz_target.h"

using namespace trainer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const std::string_view rest = fuzz::bytes_of(data + 2, size - 2);
  switch (data[0] % 5) {
    case 0: {
      // The folders a data.yaml usually names exist, so its reading goes past the root check.
      fuzz::scratch_file("images/train/.keep", "");
      fuzz::scratch_file("images/val/.keep", "");
      const std::string path = fuzz::scratch_file("data.yaml", fuzz::bytes_of(data + 1, size - 1));
      fuzz::read_or_refuse([&] { read_detect_data_config(path); });
      break;
    }
    case 1: {
      const std::string path = fuzz::scratch_file("labels/train/image.txt", rest);
      fuzz::read_or_refuse([&] { parse_label_file(path, 1 + data[1]); });
      break;
    }
    case 2: {
      const std::string path = fuzz::scratch_file("labels.csv", fuzz::bytes_of(data + 1, size - 1));
      fuzz::read_or_refuse([&] { read_ocr_labels(path); });
      break;
    }
    case 3: {
      const std::string path = fuzz::scratch_file("train-images-idx3-ubyte", fuzz::bytes_of(data + 1, size - 1));
      fuzz::read_or_refuse([&] { read_idx_images(path); });
      break;
    }
    case 4: {
      const std::string path = fuzz::scratch_file("train-labels-idx1-ubyte", fuzz::bytes_of(data + 1, size - 1));
      fuzz::read_or_refuse([&] { read_idx_labels(path); });
      break;
    }
  }
  return 0;
}
