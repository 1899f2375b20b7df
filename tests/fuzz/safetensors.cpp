// Safetensors files: the header length, the header JSON (dtypes, shapes, offsets, metadata) and
// the tensor bytes, through both readers and the content sniffing pretrained= does.
#include "io/safetensors.h"
#include "support/fuzz_target.h"

using namespace trainer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::scratch_file("model.safetensors", fuzz::bytes_of(data, size));
  looks_like_safetensors(path);
  fuzz::read_or_refuse([&] { read_safetensors(path); });
  fuzz::read_or_refuse([&] { read_safetensors_metadata(path); });
  return 0;
}
