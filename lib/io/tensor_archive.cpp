#include "io/tensor_archive.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/export.h>
#include <torch/csrc/jit/serialization/pickler.h>

#include "io/torch_pickle.h"
#include "util/error.h"
#include "util/file_write.h"

namespace trainer {

namespace {

// The pickler writes typed lists (List[int], List[Tensor], ...) through torch.jit._pickle globals
// that weights_only=True refuses; as lists of Any they become plain Python lists.
c10::IValue with_plain_lists(const c10::IValue& value) {
  if (value.isList()) {
    c10::impl::GenericList list(c10::AnyType::get());
    for (const c10::IValue& element : value.toListRef()) list.push_back(with_plain_lists(element));
    return list;
  }
  if (value.isGenericDict()) {
    const c10::impl::GenericDict dict = value.toGenericDict();
    c10::impl::GenericDict plain(dict.keyType(), c10::AnyType::get());
    for (const auto& entry : dict) plain.insert(entry.key(), with_plain_lists(entry.value()));
    return plain;
  }
  if (value.isTuple()) {
    std::vector<c10::IValue> elements;
    for (const c10::IValue& element : value.toTupleRef().elements()) {
      elements.push_back(with_plain_lists(element));
    }
    return c10::ivalue::Tuple::create(std::move(elements));
  }
  return value;
}

}  // namespace

void write_archive(const std::string& path, const c10::IValue& value) {
  std::vector<char> bytes;
  int64_t next_tensor = 0;
  torch::jit::Pickler pickler(
      [&](const char* data, size_t size) { bytes.insert(bytes.end(), data, data + size); },
      /*tensor_table=*/nullptr, /*type_renamer=*/nullptr, /*memoized_class_types=*/nullptr,
      // Storages are named 0, 1, ... in the order writeArchiveAndTensors writes data/0, data/1.
      /*get_tensor_id=*/[&](const at::Tensor&) { return std::to_string(next_tensor++); },
      // Type tags reference torch.jit globals that weights_only=True refuses.
      /*tag_aggregates=*/false);
  pickler.protocol();
  pickler.pushIValue(with_plain_lists(value));
  pickler.stop();
  // LibTorch's writer does not survive a failed write: its destructor finishes the archive, throws
  // again and terminates the process. A CheckedFile tells it every write went out and reports the
  // first failure at close().
  CheckedFile file(path);
  try {
    caffe2::serialize::PyTorchStreamWriter writer(
        [&](const void* data, size_t size) { return file.write(data, size); });
    torch::jit::writeArchiveAndTensors("data", bytes.data(), bytes.size(), pickler.tensorData(),
                                       writer);
    writer.writeEndOfFile();
  } catch (const c10::Error& error) {
    throw UserError("cannot write '" + path + "': " + error.what_without_backtrace());
  }
  file.close();
}

c10::IValue read_archive(const std::string& path) {
  // Our files and Python's go through one reader; LibTorch's own cannot read Python's
  // OrderedDicts and one-entry containers.
  return read_torch_pickle(path);
}

}  // namespace trainer
