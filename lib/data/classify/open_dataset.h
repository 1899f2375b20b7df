// Turns the recipe's `data` string into a classification source.
#pragma once
#include "data/image_dataset.h"

#include <memory>
#include <string>

namespace trainer {

// "fashion-mnist" opens the Debian dataset-fashion-mnist files; a directory holding IDX files
// opens those; a directory with train/ and val/ opens an ImageFolder (max_bad_fraction applies
// there only). Anything else is a UserError saying what was looked for.
std::unique_ptr<ImageDataset> open_classify_dataset(const std::string& data, Split split,
                                                    double max_bad_fraction);

}  // namespace trainer
