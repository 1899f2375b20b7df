// timm's RandAugment strings (train.py's --aa rand-m9-mstd0.5, rand-m9-n3-mstd0.5-inc1, …) read
// as timm's rand_augment_transform reads them and written back in that form for args.yaml.
#pragma once
#include <optional>
#include <string>

#include "config/setting_types.h"

namespace trainer {

// Whether `text` is a RandAugment string of timm's (its first section is `rand`).
bool is_timm_rand_augment(const std::string& text);

// Reads `text` into `spec`: sections after `rand`, split by '-', each a name and the number from
// its first digit: m (int magnitude, default 10), n (int layers, default 2), mstd (float noise;
// above 100 means uniform in [0, m]), mmax (int clip bound, default 10), inc (timm takes any
// value, inc0 included, as its increasing ops: Python's bool of a non-empty string). A section
// without a digit is skipped, as timm skips it. Returns the problem when timm would refuse the
// string or it asks for what is not offered (w, op-choice weights), else nullopt.
std::optional<std::string> read_timm_rand_augment(const std::string& text, TimmRandAugmentSpec& spec);

// `spec` as timm's string: rand-m9-n2[-mstd0.5][-mmax20][-inc1].
std::string timm_rand_augment_text(const TimmRandAugmentSpec& spec);

}  // namespace trainer
