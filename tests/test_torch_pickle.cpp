// Files Python's torch.save writes must read here as Python reads them (values, dtypes, strides,
// shared storages), without running any of the Python code a pickle can name.
#include <catch2/catch.hpp>

#include <torch/csrc/jit/serialization/pickle.h>

#include <fstream>

#include "io/state_dict.h"
#include "io/tensor_archive.h"
#include "io/torch_pickle.h"
#include "models/resnet.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::TempDir;

namespace {

std::string python_file(const std::string& name) {
  static const testing::PythonOutput files("torch_pickle_fixture.py", "--resnet");
  return files.file(name);
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// The resnet reference as LibTorch 1.13's own reader sees it: an oracle independent of ours.
c10::impl::GenericDict libtorch_reference() {
  const std::string bytes = read_bytes(python_file("resnet18_ref.pt"));
  return torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end())).toGenericDict();
}

void check_tensor(const c10::impl::GenericDict& dict, const std::string& key,
                  const torch::Tensor& expected) {
  INFO(key);
  REQUIRE(dict.contains(key));
  REQUIRE(dict.at(key).isTensor());
  const torch::Tensor actual = dict.at(key).toTensor();
  CHECK(actual.dtype() == expected.dtype());
  CHECK(actual.sizes() == expected.sizes());
  CHECK(actual.strides() == expected.strides());
  CHECK(torch::equal(actual, expected));
}

void check_tensors(const std::string& name) {
  INFO(name);
  const c10::IValue value = read_torch_pickle(python_file(name));
  REQUIRE(value.isGenericDict());
  const c10::impl::GenericDict dict = value.toGenericDict();
  CHECK(dict.size() == 14);
  check_tensor(dict, "half", (torch::arange(6, torch::kFloat) / 4).reshape({2, 3}).to(torch::kHalf));
  check_tensor(dict, "bf16", torch::tensor({1.5, -2.25, 3.0}).to(torch::kBFloat16));
  check_tensor(dict, "long", torch::tensor({int64_t{-3}, int64_t{1} << 40}));
  check_tensor(dict, "int32", torch::tensor({7, -8}, torch::kInt));
  check_tensor(dict, "int8", torch::tensor({-5, 6}, torch::kChar));
  check_tensor(dict, "uint8", torch::tensor({200, 3}, torch::kByte));
  check_tensor(dict, "bool", torch::tensor({true, false, true}));
  check_tensor(dict, "double", torch::tensor({0.1, 1e300}, torch::kDouble));
  const torch::Tensor base = torch::arange(12, torch::kFloat).reshape({3, 4});
  check_tensor(dict, "base", base);
  check_tensor(dict, "transposed", base.t());  // strides (1, 4)
  check_tensor(dict, "window", base.slice(0, 1).slice(1, 1, 3));
  check_tensor(dict, "scalar", torch::tensor(2.5));
  check_tensor(dict, "empty", torch::zeros({0, 3}));
  check_tensor(dict, "param", torch::ones({2}));
  CHECK(dict.at("param").toTensor().requires_grad());
  CHECK_FALSE(dict.at("base").toTensor().requires_grad());

  // Views keep sharing the storage they were saved from, at their offset.
  const torch::Tensor loaded_base = dict.at("base").toTensor();
  const torch::Tensor window = dict.at("window").toTensor();
  CHECK(dict.at("transposed").toTensor().is_alias_of(loaded_base));
  CHECK(window.is_alias_of(loaded_base));
  CHECK(window.storage_offset() == 5);
  loaded_base.fill_(-1);
  CHECK(torch::all(window == -1).item<bool>());
}

}  // namespace

TEST_CASE("torchvision's OrderedDict state dict reads with torchvision's values and logits",
          "[io]") {
  const c10::impl::GenericDict reference = libtorch_reference();
  const c10::impl::GenericDict expected = reference.at("state_dict").toGenericDict();
  const c10::IValue value = read_archive(python_file("resnet18_sd.pt"));
  REQUIRE(value.isGenericDict());
  const c10::impl::GenericDict loaded = value.toGenericDict();
  // Same keys in the same (OrderedDict) order, bit-identical tensors.
  REQUIRE(loaded.size() == expected.size());
  auto expected_entry = expected.begin();
  for (const auto& entry : loaded) {
    INFO(entry.key().toStringRef());
    CHECK(entry.key() == expected_entry->key());
    check_tensor(loaded, entry.key().toStringRef(), expected_entry->value().toTensor());
    ++expected_entry;
  }

  ResNet model = make_resnet("resnet18", 3, 1000, NormKind::batch);
  const LoadReport report = load_state_dict(*model, tensor_map(value), /*strict=*/true);
  CHECK(report.loaded.size() == loaded.size());
  model->eval();
  torch::NoGradGuard no_grad;
  CHECK(torch::allclose(model->forward(reference.at("input").toTensor()),
                        reference.at("logits").toTensor(), 0.0, 1e-4));
}

TEST_CASE("a DataParallel state dict loads by its module. keys", "[io]") {
  const auto weights = tensor_map(read_archive(python_file("resnet18_dp.pt")));
  REQUIRE(weights.count("module.conv1.weight") == 1);
  ResNet model = make_resnet("resnet18", 3, 1000, NormKind::batch);
  const LoadReport report = load_state_dict(*model, weights, /*strict=*/true);
  CHECK(report.loaded.size() == weights.size());
  const auto expected = libtorch_reference().at("state_dict").toGenericDict();
  CHECK(torch::equal(model->fc->weight, expected.at("fc.weight").toTensor()));
  CHECK(torch::equal(model->layer4->named_buffers()["1.bn2.running_var"],
                     expected.at("layer4.1.bn2.running_var").toTensor()));
}

TEST_CASE("tensors of every dtype and views read with their values, strides and sharing",
          "[io]") {
  check_tensors("tensors.pt");  // pickle protocol 2, torch.save's default
  check_tensors("tensors_p4.pt");  // FRAME, STACK_GLOBAL, MEMOIZE, SHORT_BINUNICODE
  check_tensors("tensors_p5.pt");
  check_tensors("tensors_legacy.pt");  // the pre-1.6 stream format
}

TEST_CASE("python scalars and containers read as IValues, one-entry ones included", "[io]") {
  const c10::IValue value = read_torch_pickle(python_file("values.pt"));
  REQUIRE(value.isGenericDict());
  const c10::impl::GenericDict dict = value.toGenericDict();
  CHECK(dict.size() == 16);
  CHECK(dict.at("int").toInt() == -7);
  CHECK(dict.at("big").toInt() == int64_t{1} << 40);
  CHECK(dict.at("most_negative").toInt() == std::numeric_limits<int64_t>::min());
  CHECK(dict.at("float").toDouble() == 0.1);
  CHECK(dict.at("text").toStringRef() == "\xc3\xbcn\xc3\xaf");  // "ünï" in UTF-8
  CHECK(dict.at("none").isNone());
  CHECK(dict.at("true").toBool());
  CHECK_FALSE(dict.at("false").toBool());
  REQUIRE(dict.at("list1").isList());
  REQUIRE(dict.at("list1").toListRef().size() == 1);
  CHECK(dict.at("list1").toListRef()[0].toInt() == 1);
  const auto tuple = dict.at("tuple").toTuple();
  REQUIRE(tuple->elements().size() == 3);
  CHECK(tuple->elements()[0].toInt() == 1);
  CHECK(tuple->elements()[1].toStringRef() == "a");
  CHECK(tuple->elements()[2].isNone());
  const c10::impl::GenericDict int_keys = dict.at("int_keys").toGenericDict();
  CHECK(*int_keys.keyType() == *c10::IntType::get());
  CHECK(int_keys.at(int64_t{0}).toStringRef() == "a");
  CHECK(int_keys.at(int64_t{5}).toStringRef() == "b");
  CHECK(dict.at("one").toGenericDict().at("only").toInt() == 1);
  CHECK(dict.at("bytes").toStringRef() == "a\xff" "b");  // protocol 2: _codecs.encode
  CHECK(dict.at("no_bytes").toStringRef().empty());
  CHECK(dict.at("empty_ordered").toGenericDict().empty());
  REQUIRE(dict.at("nested").toListRef().size() == 1);
  CHECK(dict.at("nested").toListRef()[0].toListRef().empty());
}

TEST_CASE("a pickled nn.Module is refused with its class named, nothing run", "[io]") {
  const std::string path = python_file("module.pt");
  CHECK_THROWS_AS(read_torch_pickle(path), UserError);
  CHECK_THROWS_WITH(read_archive(path), Catch::Contains(path) &&
                                            Catch::Contains("torch.nn.modules.linear.Linear") &&
                                            Catch::Contains("state_dict()"));
}

TEST_CASE("truncated or corrupt torch.save files throw UserError naming the file", "[io]") {
  const TempDir dir;
  const std::string whole = read_bytes(python_file("tensors.pt"));
  const std::string corrupt = "is not a readable torch.save file";
  struct Broken {
    std::string name, bytes, message;
  };
  std::vector<Broken> broken = {{"truncated.pt", whole.substr(0, whole.size() / 2), corrupt},
                                {"no_end.pt", whole.substr(0, whole.size() - 10), corrupt},
                                {"empty.pt", "", corrupt},
                                {"text.pt", "not a torch file", corrupt}};
  // A flipped byte inside the stored (uncompressed) pickle. LibTorch's zip reader checks no
  // CRCs; ours stops it before the unpickler sees the misspelt function.
  std::string flipped = whole;
  const size_t global = flipped.find("_rebuild_tensor_v2");
  REQUIRE(global != std::string::npos);
  flipped[global + 1] = 'X';
  broken.push_back({"flipped.pt", flipped, "entry 'data.pkl' fails its CRC-32 check"});
  const std::string legacy = read_bytes(python_file("tensors_legacy.pt"));
  broken.push_back({"legacy_truncated.pt", legacy.substr(0, legacy.size() - 3), corrupt});
  for (const Broken& file : broken) {
    INFO(file.name);
    const std::string path = dir.file(file.name);
    write_bytes(path, file.bytes);
    CHECK_THROWS_AS(read_torch_pickle(path), UserError);
    CHECK_THROWS_WITH(read_torch_pickle(path),
                      Catch::Contains(path) && Catch::Contains(file.message));
  }
  for (const std::string name : {"missing_storage.pt", "bad_pickle.pt"}) {
    INFO(name);
    CHECK_THROWS_AS(read_torch_pickle(python_file(name)), UserError);
    CHECK_THROWS_WITH(read_torch_pickle(python_file(name)),
                      Catch::Contains(python_file(name)) && Catch::Contains(corrupt));
  }
  CHECK_THROWS_WITH(read_torch_pickle(python_file("missing_storage.pt")),
                    Catch::Contains("data/0"));
}
