// torch.save files through every entry point that opens one: pretrained= (state dicts, nested
// Python checkpoints, pickled whole models such as Ultralytics' .pt, read inertly), val/predict's
// read_trained (our checkpoints or Ultralytics'), and resume='s load_checkpoint (the restricted
// reader that refuses every Python object). Covers the zip container (LibTorch's reader), the
// legacy pre-1.6 stream and the unpickler.
#include "io/checkpoint.h"
#include "io/pretrained.h"
#include "support/fuzz_target.h"

using namespace trainer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::scratch_file("weights.pt", fuzz::bytes_of(data, size));
  fuzz::read_or_refuse([&] { read_pretrained(path); });
  fuzz::read_or_refuse([&] { read_trained(path); });
  fuzz::read_or_refuse([&] { load_checkpoint(path); });
  return 0;
}
