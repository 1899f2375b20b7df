#include "io/torch_pickle.h"

#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/custom_class.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "io/zip_layout.h"
#include "util/error.h"

namespace trainer {

namespace {

[[noreturn]] void corrupt(const std::string& path, const std::string& what) {
  throw UserError("'" + path + "' is not a readable torch.save file: " + what);
}

[[noreturn]] void unsupported(const std::string& path, const std::string& what) {
  throw UserError("'" + path + "' holds " + what + ", which this program cannot read");
}

// Python's class names for typed storages. UntypedStorage (PyTorch 2.x, raw storages) is bytes.
const std::map<std::string, at::ScalarType>& storage_types() {
  static const std::map<std::string, at::ScalarType> types = {
      {"FloatStorage", at::kFloat},     {"DoubleStorage", at::kDouble},
      {"HalfStorage", at::kHalf},       {"BFloat16Storage", at::kBFloat16},
      {"LongStorage", at::kLong},       {"IntStorage", at::kInt},
      {"ShortStorage", at::kShort},     {"CharStorage", at::kChar},
      {"ByteStorage", at::kByte},       {"BoolStorage", at::kBool},
      {"ComplexFloatStorage", at::kComplexFloat},
      {"ComplexDoubleStorage", at::kComplexDouble},
      {"UntypedStorage", at::kByte}};
  return types;
}

// What a GLOBAL opcode names, once it passed the allow-list. It lives on the stack as an IValue
// capsule, so tuples (the storage persistent id) can hold it like any other value.
struct Global : torch::CustomClassHolder {
  enum class Kind { ordered_dict, rebuild_tensor, rebuild_parameter, storage_type, encode, bytes, set, object };
  Kind kind = Kind::ordered_dict;
  at::ScalarType dtype = at::kFloat;  ///< for storage_type
  std::string name;                   ///< module.name, for messages
};

// What a persistent id resolves to: the bytes of one zip record (or legacy storage), seen as
// `numel` elements of `dtype`. Tensors made from it share `storage`.
struct StorageRef : torch::CustomClassHolder {
  at::Storage storage;
  at::ScalarType dtype = at::kFloat;
  int64_t numel = 0;
};

// Classes whose instances a model checkpoint holds, kept as PickledObjects: Ultralytics' modules
// and the torch.nn layers they are made of, numpy scalars (Ultralytics' best_fitness), the
// namespaces and paths of training arguments. Only names: nothing of them is ever called.
bool is_inert_class(const std::string& module, const std::string& name) {
  static const std::unordered_set<std::string> classes = {"numpy.core.multiarray.scalar",
                                                          "numpy._core.multiarray.scalar",
                                                          "numpy.dtype",
                                                          "types.SimpleNamespace",
                                                          "argparse.Namespace",
                                                          "pathlib.PosixPath",
                                                          "pathlib.WindowsPath",
                                                          "pathlib.Path",
                                                          "torch.Size",
                                                          "torch.device"};
  const auto starts_with = [&](const char* prefix) { return module.rfind(prefix, 0) == 0; };
  return module == "ultralytics" || starts_with("ultralytics.") || starts_with("torch.nn.modules.") ||
         classes.count(module + "." + name) != 0;
}

PickledObject* object_of(const c10::IValue& value) {
  return value.isCapsule() ? dynamic_cast<PickledObject*>(value.toCapsule().get()) : nullptr;
}

// key, dtype, numel -> the storage's bytes (at least numel * itemsize of them).
using StorageLoader = std::function<at::Storage(const std::string&, at::ScalarType, int64_t)>;

// The pickle virtual machine, restricted: it builds containers and scalars itself, resolves
// GLOBALs only against the allow-list, and "calls" only the constructors it re-implements.
class Unpickler {
 public:
  Unpickler(std::string path, const char* data, size_t size, StorageLoader loader, PythonObjects objects)
      : path_(std::move(path)), data_(data), size_(size), loader_(std::move(loader)), objects_(objects) {}

  // Runs up to STOP and returns the pickled value.
  c10::IValue parse();
  // Bytes consumed so far: where the next pickle of a legacy stream starts.
  size_t position() const { return pos_; }

 private:
  [[noreturn]] void fail(const std::string& what) const { corrupt(path_, what); }

  const char* take(size_t n) {
    if (n > size_ - pos_) fail("the pickle is truncated");
    const char* at = data_ + pos_;
    pos_ += n;
    return at;
  }
  template <typename T>
  T read_le() {  // little-endian, like the host (checked by read_torch_pickle)
    T value;
    std::memcpy(&value, take(sizeof(T)), sizeof(T));
    return value;
  }
  std::string read_line() {
    const char* start = data_ + pos_;
    const void* end = std::memchr(start, '\n', size_ - pos_);
    if (end == nullptr) fail("the pickle is truncated");
    const size_t length = static_cast<const char*>(end) - start;
    pos_ += length + 1;
    return std::string(start, length);
  }
  std::string read_string(uint64_t length) {
    if (length > size_ - pos_) fail("the pickle is truncated");
    return std::string(take(length), length);
  }

  c10::IValue pop() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail("pickle stack underflow");
    c10::IValue value = std::move(stack_.back());
    stack_.pop_back();
    return value;
  }
  c10::IValue& top() {
    if (stack_.empty()) fail("pickle stack underflow");
    return stack_.back();
  }
  std::vector<c10::IValue> pop_to_mark() {
    if (marks_.empty()) fail("a pickle MARK is missing");
    const size_t mark = marks_.back();
    marks_.pop_back();
    std::vector<c10::IValue> items(std::make_move_iterator(stack_.begin() + mark),
                                   std::make_move_iterator(stack_.end()));
    stack_.resize(mark);
    return items;
  }
  c10::impl::GenericList top_list() {
    if (!top().isList()) fail("APPEND to something that is not a list");
    return top().toList();
  }
  c10::impl::GenericDict top_dict() {
    if (!top().isGenericDict()) fail("SETITEM on something that is not a dict");
    return top().toGenericDict();
  }
  // parse() hands each opcode to its family; a family returns false for an opcode not its own.
  c10::IValue stop();
  bool stack_opcode(uint8_t opcode);
  bool number_opcode(uint8_t opcode);
  bool string_opcode(uint8_t opcode);
  bool container_opcode(uint8_t opcode);
  bool fill_opcode(uint8_t opcode);
  bool memo_opcode(uint8_t opcode);
  bool object_opcode(uint8_t opcode);
  [[noreturn]] void unknown_opcode(uint8_t opcode) const;
  void set_item(c10::impl::GenericDict& dict, c10::IValue key, c10::IValue value);
  void memo_put(uint64_t index) { memo_[index] = top(); }
  void memo_get(uint64_t index) {
    const auto found = memo_.find(index);
    if (found == memo_.end()) fail("the pickle refers to a memo entry it never stored");
    stack_.push_back(found->second);
  }

  c10::IValue make_global(const std::string& module, const std::string& name) const;
  const Global& global_of(const c10::IValue& value, const char* what) const;
  c10::IValue call(const c10::IValue& callable, const c10::IValue& args);
  c10::IValue persistent_load(const c10::IValue& pid);
  c10::IValue rebuild_tensor(const std::vector<c10::IValue>& args) const;
  c10::IValue latin1_bytes(const std::vector<c10::IValue>& args) const;
  int64_t int_of(const c10::IValue& value, const char* what) const {
    if (!value.isInt()) fail(std::string(what) + " is not an int");
    return value.toInt();
  }
  std::vector<int64_t> ints_of(const c10::IValue& value, const char* what) const {
    if (!value.isTuple()) fail(std::string(what) + " is not a tuple");
    std::vector<int64_t> ints;
    for (const c10::IValue& element : value.toTupleRef().elements()) {
      ints.push_back(int_of(element, what));
    }
    return ints;
  }

  const std::string path_;
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
  StorageLoader loader_;
  PythonObjects objects_;
  std::vector<c10::IValue> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, c10::IValue> memo_;
};

void Unpickler::set_item(c10::impl::GenericDict& dict, c10::IValue key, c10::IValue value) {
  if (!key.isString() && !key.isInt()) {
    unsupported(path_, "a dict with a " + key.tagKind() + " key (only string and int keys are read)");
  }
  // Dicts start out string-keyed; the first key decides, and a second kind is refused, since
  // GenericDict carries one key type.
  const c10::TypePtr type = key.isInt() ? c10::TypePtr(c10::IntType::get())
                                        : c10::TypePtr(c10::StringType::get());
  if (dict.empty()) {
    dict.unsafeSetKeyType(type);
  } else if (*dict.keyType() != *type) {
    unsupported(path_, "a dict mixing string and int keys");
  }
  dict.insert_or_assign(std::move(key), std::move(value));
}

c10::IValue Unpickler::make_global(const std::string& module, const std::string& name) const {
  auto global = c10::make_intrusive<Global>();
  global->name = module + "." + name;
  if (global->name == "collections.OrderedDict") {
    global->kind = Global::Kind::ordered_dict;
  } else if (global->name == "torch._utils._rebuild_tensor_v2") {
    global->kind = Global::Kind::rebuild_tensor;
  } else if (global->name == "torch._utils._rebuild_parameter" ||
             global->name == "torch._utils._rebuild_parameter_with_state") {
    global->kind = Global::Kind::rebuild_parameter;
  } else if (module == "torch" && storage_types().count(name) != 0) {
    global->kind = Global::Kind::storage_type;
    global->dtype = storage_types().at(name);
  } else if (global->name == "_codecs.encode") {
    // Protocol 2 writes bytes as _codecs.encode(text, "latin1"), empty ones as bytes().
    global->kind = Global::Kind::encode;
  } else if (global->name == "__builtin__.bytes" || global->name == "builtins.bytes") {
    global->kind = Global::Kind::bytes;
  } else if ((name == "set" || name == "frozenset") && (module == "__builtin__" || module == "builtins")) {
    global->kind = Global::Kind::set;  // protocol 2 writes set(list); sets are lists here
  } else if (module.rfind("__torch__", 0) == 0) {
    throw UserError("'" + path_ + "' is a TorchScript module (it names " + global->name +
                    "), not a torch.save file of weights; in Python, save its weights with " +
                    "torch.save(torch.jit.load(path).state_dict(), new_path)");
  } else if (objects_ == PythonObjects::inert && is_inert_class(module, name)) {
    global->kind = Global::Kind::object;
  } else if (objects_ == PythonObjects::inert) {
    throw UserError("'" + path_ + "' reaches for " + global->name +
                    ", which no model checkpoint needs (it could run code); refused, nothing in the file was run");
  } else {
    // Unpickling it would import and run that Python code; only the weights are wanted.
    throw UserError("'" + path_ + "' holds a pickled Python object " + global->name +
                    ", which is not loaded because that would run Python code; re-save only " +
                    "the weights in Python, e.g. torch.save(model.state_dict(), path)");
  }
  return c10::IValue::make_capsule(std::move(global));
}

const Global& Unpickler::global_of(const c10::IValue& value, const char* what) const {
  const Global* global =
      value.isCapsule() ? dynamic_cast<const Global*>(value.toCapsule().get()) : nullptr;
  if (global == nullptr) fail(std::string(what) + " is not a known class or function");
  return *global;
}

c10::IValue Unpickler::call(const c10::IValue& callable, const c10::IValue& args) {
  const Global& global = global_of(callable, "what the pickle calls");
  if (!args.isTuple()) fail("the arguments of " + global.name + " are not a tuple");
  const std::vector<c10::IValue>& elements = args.toTupleRef().elements().vec();
  switch (global.kind) {
    case Global::Kind::ordered_dict:
      // OrderedDict.__reduce__ passes no arguments; the items follow as SETITEMS.
      if (!elements.empty()) unsupported(path_, "an OrderedDict built from arguments");
      return c10::impl::GenericDict(c10::StringType::get(), c10::AnyType::get());
    case Global::Kind::rebuild_tensor:
      return rebuild_tensor(elements);
    case Global::Kind::rebuild_parameter: {
      // (data, requires_grad, backward_hooks[, state]): a Parameter is its tensor here.
      if (elements.size() < 3 || !elements[0].isTensor() || !elements[1].isBool()) {
        fail("unexpected arguments to " + global.name);
      }
      at::Tensor tensor = elements[0].toTensor();
      if (elements[1].toBool() && (tensor.is_floating_point() || tensor.is_complex())) {
        tensor.requires_grad_(true);
      }
      return tensor;
    }
    case Global::Kind::encode:
      return latin1_bytes(elements);
    case Global::Kind::bytes:
      if (!elements.empty()) fail("bytes() with arguments");
      return std::string();
    case Global::Kind::set: {
      c10::impl::GenericList items(c10::AnyType::get());
      if (elements.size() > 1 || (elements.size() == 1 && !elements[0].isList())) {
        fail("unexpected arguments to " + global.name);
      }
      if (!elements.empty()) {
        for (const c10::IValue& item : elements[0].toListRef()) items.push_back(item);
      }
      return items;
    }
    case Global::Kind::object: {
      // REDUCE and NEWOBJ on a class: recorded, never called.
      auto object = c10::make_intrusive<PickledObject>();
      object->type = global.name;
      object->args = args;
      return c10::IValue::make_capsule(std::move(object));
    }
    case Global::Kind::storage_type:
      break;
  }
  fail("the pickle calls " + global.name + ", which torch.save never does");
}

c10::IValue Unpickler::rebuild_tensor(const std::vector<c10::IValue>& args) const {
  // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
  if (args.size() < 6 || args.size() > 7) fail("_rebuild_tensor_v2 with unexpected arguments");
  const StorageRef* storage =
      args[0].isCapsule() ? dynamic_cast<const StorageRef*>(args[0].toCapsule().get()) : nullptr;
  if (storage == nullptr) fail("a tensor without a storage");
  const int64_t offset = int_of(args[1], "a tensor's storage offset");
  const std::vector<int64_t> sizes = ints_of(args[2], "a tensor's size");
  const std::vector<int64_t> strides = ints_of(args[3], "a tensor's stride");
  if (!args[4].isBool()) fail("a tensor's requires_grad is not a bool");
  // metadata carries Python-side tensor flags (e.g. a conjugate view) we would silently drop.
  if (args.size() == 7 && !args[6].isNone() &&
      !(args[6].isGenericDict() && args[6].toGenericDict().empty())) {
    unsupported(path_, "a tensor with Python-side metadata (e.g. a conjugate view)");
  }
  if (sizes.size() != strides.size()) fail("a tensor's size and stride differ in length");
  // The last element the view reaches must lie inside the storage, or set_ would grow it.
  __int128 extent = 1;
  bool empty = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0 || strides[d] < 0) fail("a tensor with a negative size or stride");
    if (sizes[d] == 0) empty = true;
    extent += static_cast<__int128>(sizes[d] - 1) * strides[d];
  }
  if (offset < 0 || (!empty && offset + extent > storage->numel)) {
    fail("a tensor reaches past the end of its storage");
  }
  at::Tensor tensor = at::empty({0}, at::TensorOptions().dtype(storage->dtype));
  tensor.set_(storage->storage, offset, sizes, strides);
  if (args[4].toBool() && (tensor.is_floating_point() || tensor.is_complex())) {
    tensor.requires_grad_(true);
  }
  return tensor;
}

c10::IValue Unpickler::latin1_bytes(const std::vector<c10::IValue>& args) const {
  if (args.size() != 2 || !args[0].isString() || !args[1].isString() ||
      args[1].toStringRef() != "latin1") {
    fail("_codecs.encode with arguments other than (text, 'latin1')");
  }
  // The text is UTF-8 of code points below 256, one per byte.
  const std::string& text = args[0].toStringRef();
  std::string bytes;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto lead = static_cast<uint8_t>(text[i]);
    if (lead < 0x80) {
      bytes.push_back(static_cast<char>(lead));
    } else if ((lead & 0xfe) == 0xc2 && i + 1 < text.size() &&
               (static_cast<uint8_t>(text[i + 1]) & 0xc0) == 0x80) {
      bytes.push_back(static_cast<char>(((lead & 0x03) << 6) |
                                        (static_cast<uint8_t>(text[++i]) & 0x3f)));
    } else {
      fail("_codecs.encode of text that is not latin1");
    }
  }
  return bytes;
}

c10::IValue Unpickler::persistent_load(const c10::IValue& pid) {
  // ('storage', torch.FloatStorage, key, location, numel), and legacy files add view_metadata.
  if (!pid.isTuple()) fail("a persistent id that is not a tuple");
  const std::vector<c10::IValue> id = pid.toTupleRef().elements().vec();
  if (id.size() < 5 || id.size() > 6 || !id[0].isString() || id[0].toStringRef() != "storage" ||
      !id[2].isString() || !id[3].isString()) {
    fail("a persistent id that is not a storage");
  }
  const Global& type = global_of(id[1], "a storage's type");
  if (type.kind != Global::Kind::storage_type) fail(type.name + " is not a storage type");
  if (id.size() == 6 && !id[5].isNone()) unsupported(path_, "a legacy storage view");
  const int64_t numel = int_of(id[4], "a storage's size");
  if (numel < 0) fail("a storage of negative size");
  auto storage = c10::make_intrusive<StorageRef>();
  storage->dtype = type.dtype;
  storage->numel = numel;
  // The location (cpu, cuda:0, ...) is ignored: everything is read onto the CPU.
  storage->storage = loader_(id[2].toStringRef(), type.dtype, numel);
  return c10::IValue::make_capsule(std::move(storage));
}

c10::IValue Unpickler::parse() {
  for (;;) {
    const auto opcode = static_cast<uint8_t>(*take(1));
    if (opcode == '.') return stop();  // STOP
    const bool known = stack_opcode(opcode) || number_opcode(opcode) || string_opcode(opcode) ||
                       container_opcode(opcode) || fill_opcode(opcode) || memo_opcode(opcode) ||
                       object_opcode(opcode);
    if (!known) unknown_opcode(opcode);
  }
}

c10::IValue Unpickler::stop() {
  if (stack_.size() != 1 || !marks_.empty()) fail("the pickle ends with a malformed stack");
  c10::IValue value = std::move(stack_.back());
  stack_.clear();
  return value;
}

bool Unpickler::stack_opcode(uint8_t opcode) {
  switch (opcode) {
    case 0x80: {  // PROTO
      const auto protocol = read_le<uint8_t>();
      if (protocol > 5) unsupported(path_, "pickle protocol " + std::to_string(protocol));
      break;
    }
    case 0x95:  // FRAME: a length hint only
      take(8);
      break;
    case '(':  // MARK
      marks_.push_back(stack_.size());
      break;
    case '0':  // POP
      pop();
      break;
    case '1':  // POP_MARK
      pop_to_mark();
      break;
    case '2':  // DUP
      stack_.push_back(top());
      break;
    default:
      return false;
  }
  return true;
}

bool Unpickler::number_opcode(uint8_t opcode) {
  switch (opcode) {
    case 'N':  // NONE
      stack_.emplace_back();
      break;
    case 0x88:  // NEWTRUE
      stack_.emplace_back(true);
      break;
    case 0x89:  // NEWFALSE
      stack_.emplace_back(false);
      break;
    case 'J':  // BININT
      stack_.emplace_back(int64_t{read_le<int32_t>()});
      break;
    case 'K':  // BININT1
      stack_.emplace_back(int64_t{read_le<uint8_t>()});
      break;
    case 'M':  // BININT2
      stack_.emplace_back(int64_t{read_le<uint16_t>()});
      break;
    case 0x8a:    // LONG1
    case 0x8b: {  // LONG4
      const int64_t length =
          opcode == 0x8a ? int64_t{read_le<uint8_t>()} : int64_t{read_le<int32_t>()};
      if (length < 0 || length > 8) unsupported(path_, "an integer wider than 64 bits");
      const auto* bytes = reinterpret_cast<const uint8_t*>(take(length));
      uint64_t value = 0;
      for (int64_t i = 0; i < length; ++i) value |= uint64_t{bytes[i]} << (8 * i);
      // Two's complement of `length` bytes: sign-extend from its top bit.
      if (length > 0 && length < 8 && (bytes[length - 1] & 0x80) != 0) {
        value |= ~uint64_t{0} << (8 * length);
      }
      stack_.emplace_back(static_cast<int64_t>(value));
      break;
    }
    case 'G': {  // BINFLOAT: big-endian, unlike everything else
      const auto* bytes = reinterpret_cast<const uint8_t*>(take(8));
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits = (bits << 8) | bytes[i];
      double value;
      std::memcpy(&value, &bits, sizeof(value));
      stack_.emplace_back(value);
      break;
    }
    default:
      return false;
  }
  return true;
}

bool Unpickler::string_opcode(uint8_t opcode) {
  switch (opcode) {
    case 'X':  // BINUNICODE
    case 'B':  // BINBYTES
    case 'T':  // BINSTRING (Python 2)
      stack_.emplace_back(read_string(read_le<uint32_t>()));
      break;
    case 0x8c:  // SHORT_BINUNICODE
    case 'C':   // SHORT_BINBYTES
    case 'U':   // SHORT_BINSTRING (Python 2)
      stack_.emplace_back(read_string(read_le<uint8_t>()));
      break;
    case 0x8d:  // BINUNICODE8
    case 0x8e:  // BINBYTES8
      stack_.emplace_back(read_string(read_le<uint64_t>()));
      break;
    default:
      return false;
  }
  return true;
}

bool Unpickler::container_opcode(uint8_t opcode) {
  switch (opcode) {
    case '}':  // EMPTY_DICT
      stack_.emplace_back(c10::impl::GenericDict(c10::StringType::get(), c10::AnyType::get()));
      break;
    case ']':  // EMPTY_LIST
      stack_.emplace_back(c10::impl::GenericList(c10::AnyType::get()));
      break;
    case ')':  // EMPTY_TUPLE
      stack_.emplace_back(c10::ivalue::Tuple::create(std::vector<c10::IValue>{}));
      break;
    case 't':  // TUPLE
      stack_.emplace_back(c10::ivalue::Tuple::create(pop_to_mark()));
      break;
    case 0x85:  // TUPLE1
    case 0x86:  // TUPLE2
    case 0x87: {  // TUPLE3
      std::vector<c10::IValue> elements(opcode - 0x84);
      for (auto element = elements.rbegin(); element != elements.rend(); ++element) {
        *element = pop();
      }
      stack_.emplace_back(c10::ivalue::Tuple::create(std::move(elements)));
      break;
    }
    case 'l': {  // LIST
      c10::impl::GenericList list(c10::AnyType::get());
      for (c10::IValue& item : pop_to_mark()) list.push_back(std::move(item));
      stack_.emplace_back(std::move(list));
      break;
    }
    case 'd': {  // DICT
      std::vector<c10::IValue> items = pop_to_mark();
      if (items.size() % 2 != 0) fail("a DICT with an odd number of items");
      c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
      for (size_t i = 0; i < items.size(); i += 2) set_item(dict, items[i], items[i + 1]);
      stack_.emplace_back(std::move(dict));
      break;
    }
    case 0x8f:  // EMPTY_SET
      stack_.emplace_back(c10::impl::GenericList(c10::AnyType::get()));
      break;
    case 0x91: {  // FROZENSET
      c10::impl::GenericList set(c10::AnyType::get());
      for (c10::IValue& item : pop_to_mark()) set.push_back(std::move(item));
      stack_.emplace_back(std::move(set));
      break;
    }
    default:
      return false;
  }
  return true;
}

bool Unpickler::fill_opcode(uint8_t opcode) {
  switch (opcode) {
    case 'a': {  // APPEND (Python writes it for one element; LibTorch 1.13 lacks it)
      c10::IValue item = pop();
      top_list().push_back(std::move(item));
      break;
    }
    case 'e': {  // APPENDS
      std::vector<c10::IValue> items = pop_to_mark();
      c10::impl::GenericList list = top_list();
      for (c10::IValue& item : items) list.push_back(std::move(item));
      break;
    }
    case 's': {  // SETITEM (Python writes it for one entry; LibTorch 1.13 lacks it)
      c10::IValue value = pop();
      c10::IValue key = pop();
      c10::impl::GenericDict dict = top_dict();
      set_item(dict, std::move(key), std::move(value));
      break;
    }
    case 'u': {  // SETITEMS
      std::vector<c10::IValue> items = pop_to_mark();
      if (items.size() % 2 != 0) fail("a SETITEMS with an odd number of items");
      c10::impl::GenericDict dict = top_dict();
      for (size_t i = 0; i < items.size(); i += 2) set_item(dict, items[i], items[i + 1]);
      break;
    }
    case 0x90: {  // ADDITEMS
      std::vector<c10::IValue> items = pop_to_mark();
      if (!top().isList()) fail("ADDITEMS to something that is not a set");
      c10::impl::GenericList set = top().toList();
      for (c10::IValue& item : items) set.push_back(std::move(item));
      break;
    }
    default:
      return false;
  }
  return true;
}

bool Unpickler::memo_opcode(uint8_t opcode) {
  switch (opcode) {
    case 'q':  // BINPUT
      memo_put(read_le<uint8_t>());
      break;
    case 'r':  // LONG_BINPUT
      memo_put(read_le<uint32_t>());
      break;
    case 0x94:  // MEMOIZE
      memo_put(memo_.size());
      break;
    case 'h':  // BINGET
      memo_get(read_le<uint8_t>());
      break;
    case 'j':  // LONG_BINGET
      memo_get(read_le<uint32_t>());
      break;
    default:
      return false;
  }
  return true;
}

bool Unpickler::object_opcode(uint8_t opcode) {
  switch (opcode) {
    case 'c': {  // GLOBAL
      const std::string module = read_line();
      const std::string name = read_line();
      stack_.push_back(make_global(module, name));
      break;
    }
    case 0x93: {  // STACK_GLOBAL
      const c10::IValue name = pop();
      const c10::IValue module = pop();
      if (!name.isString() || !module.isString()) fail("a STACK_GLOBAL without names");
      stack_.push_back(make_global(module.toStringRef(), name.toStringRef()));
      break;
    }
    case 'R':      // REDUCE
    case 0x81: {  // NEWOBJ
      const c10::IValue args = pop();
      const c10::IValue callable = pop();
      stack_.push_back(call(callable, args));
      break;
    }
    case 0x92: {  // NEWOBJ_EX
      const c10::IValue kwargs = pop();
      const c10::IValue args = pop();
      const c10::IValue callable = pop();
      if (!kwargs.isGenericDict() || !kwargs.toGenericDict().empty()) {
        fail("keyword arguments to a constructor");
      }
      stack_.push_back(call(callable, args));
      break;
    }
    case 'b': {  // BUILD
      // An OrderedDict gets state_dict()'s `_metadata` attribute (module versions), which
      // loading weights does not need; a PickledObject keeps its state, unapplied.
      c10::IValue state = pop();
      PickledObject* object = object_of(top());
      if (object != nullptr) {
        object->state = std::move(state);
      } else if (!top().isGenericDict()) {
        fail("BUILD on something other than an OrderedDict or a recorded object");
      }
      break;
    }
    case 'Q': {  // BINPERSID
      const c10::IValue pid = pop();
      stack_.push_back(persistent_load(pid));
      break;
    }
    default:
      return false;
  }
  return true;
}

void Unpickler::unknown_opcode(uint8_t opcode) const {
  char hex[8];
  std::snprintf(hex, sizeof(hex), "0x%02x", opcode);
  unsupported(path_, std::string("pickle opcode ") + hex + " (not one torch.save writes)");
}

// Refuses what escaped into the result without being a value: a storage outside a tensor, a
// class or function reference, and cycles (a list inside itself), which IValue cannot free and
// every recursive consumer would loop on.
void check_tree(const std::string& path, const c10::IValue& value,
                std::unordered_set<const void*>& done, std::unordered_set<const void*>& open,
                int depth) {
  const PickledObject* object = object_of(value);
  if (value.isCapsule() && object == nullptr) {
    unsupported(path, "a bare storage or a Python class reference outside a tensor");
  }
  if (!value.isList() && !value.isGenericDict() && !value.isTuple() && object == nullptr) return;
  const void* node = value.internalToPointer();
  if (done.count(node) != 0) return;
  if (open.count(node) != 0) unsupported(path, "a container that contains itself");
  if (depth > 200) unsupported(path, "containers nested more than 200 deep");
  open.insert(node);
  if (value.isList()) {
    for (const c10::IValue& item : value.toListRef()) check_tree(path, item, done, open, depth + 1);
  } else if (value.isGenericDict()) {
    for (const auto& entry : value.toGenericDict()) {
      check_tree(path, entry.value(), done, open, depth + 1);
    }
  } else if (object != nullptr) {
    check_tree(path, object->args, done, open, depth + 1);
    check_tree(path, object->state, done, open, depth + 1);
  } else {
    for (const c10::IValue& item : value.toTupleRef().elements()) {
      check_tree(path, item, done, open, depth + 1);
    }
  }
  open.erase(node);
  done.insert(node);
}

c10::IValue checked(const std::string& path, c10::IValue value) {
  std::unordered_set<const void*> done, open;
  check_tree(path, value, done, open, 0);
  return value;
}

size_t storage_bytes(const std::string& path, at::ScalarType dtype, int64_t numel) {
  const size_t itemsize = c10::elementSize(dtype);
  if (static_cast<uint64_t>(numel) > std::numeric_limits<size_t>::max() / itemsize) {
    corrupt(path, "a storage too large to exist");
  }
  return static_cast<size_t>(numel) * itemsize;
}

c10::IValue read_zip(const std::string& path, PythonObjects objects) {
  const ZipChecksums checksums = check_zip_layout(path);  // before miniz allocates what the archive claims
  try {
    caffe2::serialize::PyTorchStreamReader reader(path);
    const auto read_record = [&](const std::string& record) {
      auto data_and_size = reader.getRecord(record);
      checksums.verify(record, std::get<0>(data_and_size).get(), std::get<1>(data_and_size));
      return data_and_size;
    };
    if (reader.hasRecord("byteorder")) {
      const auto [order, size] = read_record("byteorder");
      if (std::string(static_cast<const char*>(order.get()), size) != "little") {
        unsupported(path, "big-endian data");
      }
    }
    if (!reader.hasRecord("data.pkl")) corrupt(path, "the archive has no data.pkl");
    const auto [pickle, pickle_size] = read_record("data.pkl");
    std::map<std::string, at::Storage> storages;  // by key, so views share their storage
    const StorageLoader load = [&](const std::string& key, at::ScalarType dtype, int64_t numel) {
      auto found = storages.find(key);
      if (found == storages.end()) {
        const std::string record = "data/" + key;
        if (!reader.hasRecord(record)) corrupt(path, "the archive lacks the storage " + record);
        auto [bytes, size] = read_record(record);
        found = storages
                    .emplace(key, at::Storage(at::Storage::use_byte_size_t(), size,
                                              std::move(bytes), /*allocator=*/nullptr,
                                              /*resizable=*/false))
                    .first;
      }
      if (found->second.nbytes() < storage_bytes(path, dtype, numel)) {
        corrupt(path, "the storage data/" + key + " is shorter than its tensors need");
      }
      return found->second;
    };
    Unpickler unpickler(path, static_cast<const char*>(pickle.get()), pickle_size, load, objects);
    return checked(path, unpickler.parse());
  } catch (const c10::Error& error) {
    // The zip layer (truncated archive, bad CRC, missing version record).
    const std::string message = error.what_without_backtrace();
    corrupt(path, message.substr(0, message.find('\n')));
  }
}

// torch.save with _use_new_zipfile_serialization=False: five pickles in a row (magic number,
// protocol version, system info, the value, its storage keys), then each storage as an int64
// element count and its raw bytes. This prefix is the magic number in protocol 2, the default.
constexpr char kLegacyMagic[] = "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19\x2e";
constexpr size_t kLegacyMagicSize = sizeof(kLegacyMagic) - 1;

c10::IValue read_legacy(const std::string& path, const std::vector<char>& bytes, PythonObjects objects) {
  size_t pos = kLegacyMagicSize;
  const auto next_pickle = [&](const StorageLoader& load) {
    Unpickler unpickler(path, bytes.data() + pos, bytes.size() - pos, load, objects);
    c10::IValue value = unpickler.parse();
    pos += unpickler.position();
    return value;
  };
  const StorageLoader no_storages = [&](const std::string&, at::ScalarType, int64_t) -> at::Storage {
    corrupt(path, "a storage in the legacy header");
  };
  const c10::IValue protocol = next_pickle(no_storages);
  if (!protocol.isInt() || protocol.toInt() != 1001) {
    unsupported(path, "a legacy torch.save protocol other than 1001");
  }
  const c10::IValue sys_info = next_pickle(no_storages);
  if (sys_info.isGenericDict() && sys_info.toGenericDict().contains("little_endian") &&
      !sys_info.toGenericDict().at("little_endian").toBool()) {
    unsupported(path, "big-endian data");
  }
  // Storages follow the pickle, so they are allocated now and filled once their bytes come.
  std::map<std::string, at::Storage> storages;
  std::map<std::string, size_t> itemsizes;  // what the element count before each storage counts
  const StorageLoader load = [&](const std::string& key, at::ScalarType dtype, int64_t numel) {
    const size_t nbytes = storage_bytes(path, dtype, numel);
    auto found = storages.find(key);
    if (found == storages.end()) {
      if (nbytes > bytes.size()) corrupt(path, "a storage larger than the file");
      itemsizes[key] = c10::elementSize(dtype);
      found = storages
                  .emplace(key, at::Storage(at::Storage::use_byte_size_t(), nbytes,
                                            c10::GetCPUAllocator(), /*resizable=*/false))
                  .first;
    }
    if (found->second.nbytes() < nbytes) corrupt(path, "storage " + key + " is too short");
    return found->second;
  };
  const c10::IValue value = checked(path, next_pickle(load));
  const c10::IValue keys = next_pickle(no_storages);
  if (!keys.isList()) corrupt(path, "the legacy storage key list is missing");
  for (const c10::IValue& key : keys.toListRef()) {
    if (!key.isString()) corrupt(path, "a legacy storage key is not a string");
    const auto found = storages.find(key.toStringRef());
    if (found == storages.end()) corrupt(path, "storage " + key.toStringRef() + " is unused");
    int64_t numel = 0;
    if (bytes.size() - pos < sizeof(numel)) corrupt(path, "the file is truncated");
    std::memcpy(&numel, bytes.data() + pos, sizeof(numel));
    pos += sizeof(numel);
    const size_t nbytes = found->second.nbytes();
    if (numel < 0 || static_cast<size_t>(numel) * itemsizes.at(found->first) != nbytes) {
      corrupt(path, "storage " + found->first + " has an unexpected size");
    }
    if (bytes.size() - pos < nbytes) corrupt(path, "the file is truncated");
    // data_ptr().get() is writable in 1.13 and 2.x alike (2.x's data() is const); it is null for
    // an empty storage, which memcpy must not be given even with no bytes to copy.
    if (nbytes > 0) std::memcpy(found->second.data_ptr().get(), bytes.data() + pos, nbytes);
    pos += nbytes;
  }
  if (keys.toListRef().size() != storages.size()) corrupt(path, "storages are missing");
  return value;
}

}  // namespace

const PickledObject* pickled_object(const c10::IValue& value) { return object_of(value); }

c10::IValue read_torch_pickle(const std::string& path, PythonObjects objects) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "storages are read as little-endian");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw UserError("cannot open '" + path + "'");
  char head[4] = {};
  file.read(head, sizeof(head));
  if (file.gcount() >= 2 && head[0] == 'P' && head[1] == 'K') {
    file.close();
    return read_zip(path, objects);
  }
  file.clear();
  file.seekg(0);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(file),
                                std::istreambuf_iterator<char>()};
  if (bytes.size() >= kLegacyMagicSize &&
      std::memcmp(bytes.data(), kLegacyMagic, kLegacyMagicSize) == 0) {
    return read_legacy(path, bytes, objects);
  }
  corrupt(path, "it is neither a torch.save zip archive nor a legacy torch.save file");
}

}  // namespace trainer
