// The classes a classifier's head has outputs for: the data's class folders, or timm's
// --num-classes (num_classes), which may give the head more outputs than the data has classes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainer {

// `data_names` followed by placeholder names (unused_<index>) up to `count` entries; unchanged
// when it already has as many.
std::vector<std::string> with_unused_classes(std::vector<std::string> data_names, size_t count);

// The head's class names for num_classes: the data's without it or at their count; more pads
// with unused ones (a warning says so); fewer is a UserError naming num_classes and both counts.
std::vector<std::string> head_class_names(const std::string& data, const std::vector<std::string>& data_names,
                                          std::optional<int64_t> num_classes);

}  // namespace trainer
