// The detection label cache (labels.cache beside a split's labels) and the scan cache file layer
// under it. A cache is checksummed, so with an even first byte the rest of the input is given a
// valid checksum (write_cache_file with an empty header), letting the fuzzer reach the records;
// with an odd one the bytes are the file as found. The expected keys are fixed: the seed corpus
// holds caches written for them.
#include "data/detect/label_cache.h"
#include "support/fuzz_target.h"

using namespace trainer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view rest = fuzz::bytes_of(data + 1, size - 1);
  const std::string path = fuzz::scratch_file("labels/train.cache", data[0] % 2 == 0 ? "" : rest);
  if (data[0] % 2 == 0) write_cache_file(path, "", std::string(rest));
  static const std::vector<LabelCacheKey> keys = {{"images/train/a.jpg", {1234, 1000000001}, {56, 1000000002}},
                                                  {"images/train/b.png", {789, 1000000003}, {-1, 0}}};
  read_label_cache(path, keys, 3);
  read_label_cache(path, {keys.front()}, 80);
  return 0;
}
