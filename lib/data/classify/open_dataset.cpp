#include "data/classify/open_dataset.h"

#include <filesystem>

#include "data/classify/fashion_mnist.h"
#include "data/classify/image_folder.h"
#include "util/error.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDebianFashionMnist = "/usr/share/datasets/fashion-mnist";
constexpr const char* kExpected =
    "expected 'fashion-mnist', a directory of IDX files (train-images-idx3-ubyte[.gz], "
    "train-labels-idx1-ubyte[.gz], t10k-images-idx3-ubyte[.gz], t10k-labels-idx1-ubyte[.gz]) or an "
    "ImageFolder root with train/<class>/ and val/<class>/ (or timm's validation/<class>/) subfolders";

bool is_folder(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

}  // namespace

std::unique_ptr<ImageDataset> open_classify_dataset(const std::string& data, Split split,
                                                    double max_bad_fraction) {
  if (data == "fashion-mnist") {
    if (!holds_idx_files(kDebianFashionMnist)) {
      throw UserError(std::string("data=fashion-mnist reads ") + kDebianFashionMnist +
                      ", which is missing: install the Debian package dataset-fashion-mnist, or set "
                      "data to a directory holding the IDX files");
    }
    return std::make_unique<FashionMnist>(kDebianFashionMnist, split);
  }
  if (!is_folder(data)) throw UserError("data=" + data + " is not a directory; " + kExpected);
  if (holds_idx_files(data)) return std::make_unique<FashionMnist>(data, split);
  if (is_folder(image_folder_split(data, Split::train)) && is_folder(image_folder_split(data, Split::val))) {
    return std::make_unique<ImageFolder>(data, split, max_bad_fraction);
  }
  throw UserError("data=" + data + " holds neither IDX files nor train/ and val/ (or validation/) folders; " +
                  kExpected);
}

}  // namespace trainer
