#include "io/tensor_archive.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/export.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/csrc/jit/serialization/pickler.h>

#include <fstream>
#include <iterator>

#include "util/error.h"

namespace trainer {

namespace {

std::string ordered_dict_message(const std::string& path) {
  return "'" + path + "' holds a Python OrderedDict (what torch.save(model.state_dict()) " +
         "writes), which LibTorch 1.13 cannot read; re-save it as a plain dict: " +
         "torch.save(dict(torch.load(path)), path)";
}

// LibTorch 1.13's unpickler fails on some Python pickles in ways whose messages do not say what
// the user can do; name the cause and the workaround instead.
std::string explain_unpickling_error(const std::string& path, const std::string& message) {
  // It unpickles collections.OrderedDict as None and then asserts when filling it.
  if (message.find("Expected GenericDict but got None") != std::string::npos) {
    return ordered_dict_message(path);
  }
  // Python writes SETITEM (0x73) / APPEND (0x61) instead of SETITEMS / APPENDS for one item.
  if (message.find("Unknown opcode for unpickling at 0x73") != std::string::npos ||
      message.find("Unknown opcode for unpickling at 0x61") != std::string::npos) {
    return "'" + path + "' holds a one-entry dict or one-element list written by Python, which " +
           "LibTorch 1.13 cannot read; give it a second entry or save it from this program";
  }
  return "'" + path + "' is not a PyTorch archive that can be read: " + message;
}

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
  try {
    caffe2::serialize::PyTorchStreamWriter writer(path);
    torch::jit::writeArchiveAndTensors("data", bytes.data(), bytes.size(), pickler.tensorData(),
                                       writer);
    writer.writeEndOfFile();
  } catch (const c10::Error& error) {
    throw UserError("cannot write '" + path + "': " + error.what_without_backtrace());
  }
}

c10::IValue read_archive(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw UserError("cannot open '" + path + "'");
  const std::vector<char> bytes{std::istreambuf_iterator<char>(file),
                                std::istreambuf_iterator<char>()};
  c10::IValue value;
  try {
    value = torch::pickle_load(bytes);
  } catch (const c10::Error& error) {
    throw UserError(explain_unpickling_error(path, error.what_without_backtrace()));
  }
  // An empty OrderedDict unpickles as None without an error; nothing we write is None.
  if (value.isNone()) throw UserError(ordered_dict_message(path));
  return value;
}

}  // namespace trainer
