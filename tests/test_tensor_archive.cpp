// Our archives must open in Python with weights_only=True (PyTorch >= 2.6's default), Python's
// plain-dict files must open here, and every failure must name the file and what to do.
#include <catch2/catch.hpp>

#include <fstream>

#include "io/tensor_archive.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::TempDir;

namespace {

// One-entry containers are there because Python writes them with opcodes (SETITEM, APPEND) that
// LibTorch 1.13's own reader lacks. Python 1.13's weights_only unpickler has no BINFLOAT (2.0
// added it), so what it is to read must hold no doubles.
c10::IValue sample_value(bool with_double = true) {
  const torch::Tensor weight = torch::arange(12, torch::kFloat).reshape({3, 4});
  c10::impl::GenericDict model(c10::StringType::get(), c10::AnyType::get());
  model.insert("weight", weight);
  model.insert("weight_t", weight.t());  // a strided view sharing weight's storage
  model.insert("steps", torch::tensor({7, 8}, torch::kLong));
  c10::impl::GenericDict value(c10::StringType::get(), c10::AnyType::get());
  value.insert("model", model);
  value.insert("epoch", int64_t{42});
  if (with_double) value.insert("lr", 0.125);
  value.insert("name", std::string("run-3"));
  value.insert("shape", c10::List<int64_t>({2, 3}));  // a typed list, written as a plain one
  value.insert("pair", c10::ivalue::Tuple::create({c10::IValue(true), c10::IValue("x")}));
  c10::impl::GenericDict one(c10::StringType::get(), c10::AnyType::get());
  one.insert("only", c10::List<int64_t>({5}));
  value.insert("one", one);
  return value;
}

void check_same(const c10::IValue& actual, const c10::IValue& expected, const std::string& where) {
  INFO(where);
  if (expected.isGenericDict()) {
    REQUIRE(actual.isGenericDict());
    const c10::impl::GenericDict actual_dict = actual.toGenericDict();
    CHECK(actual_dict.size() == expected.toGenericDict().size());
    for (const auto& entry : expected.toGenericDict()) {
      const std::string& key = entry.key().toStringRef();
      REQUIRE(actual_dict.contains(key));
      check_same(actual_dict.at(key), entry.value(), where + "." + key);
    }
  } else if (expected.isTensor()) {
    REQUIRE(actual.isTensor());
    CHECK(actual.toTensor().dtype() == expected.toTensor().dtype());
    CHECK(actual.toTensor().strides() == expected.toTensor().strides());
    CHECK(torch::equal(actual.toTensor(), expected.toTensor()));
  } else if (expected.isList()) {
    REQUIRE(actual.isList());
    const auto actual_list = actual.toListRef();
    const auto expected_list = expected.toListRef();
    REQUIRE(actual_list.size() == expected_list.size());
    for (size_t i = 0; i < expected_list.size(); ++i) {
      check_same(actual_list[i], expected_list[i], where + "[" + std::to_string(i) + "]");
    }
  } else {
    CHECK(actual.tagKind() == expected.tagKind());
    CHECK(actual == expected);
  }
}

}  // namespace

TEST_CASE("archives round-trip nested dicts of tensors, ints, doubles, strings and lists", "[io]") {
  const TempDir dir;
  write_archive(dir.file("sample.pt"), sample_value());
  const c10::IValue value = read_archive(dir.file("sample.pt"));
  check_same(value, sample_value(), "sample");
  // One storage is written for the weight and its view, and read back shared.
  const c10::impl::GenericDict model = value.toGenericDict().at("model").toGenericDict();
  CHECK(model.at("weight_t").toTensor().data_ptr() == model.at("weight").toTensor().data_ptr());
}

TEST_CASE("python loads our archives with weights_only=True and sees the same values", "[io]") {
  const TempDir dir;
  write_archive(dir.file("ours.pt"), sample_value(/*with_double=*/false));
  // Python loads with weights_only=True and saves what it saw as a plain torch.save file.
  testing::run_python("archive_fixture.py", "echo " + testing::quoted(dir.file("ours.pt")) + " " +
                                                testing::quoted(dir.file("echo.pt")));
  const c10::IValue echoed = read_archive(dir.file("echo.pt"));
  check_same(echoed, sample_value(/*with_double=*/false), "echo");
  // Python's file keeps the view on the weight's storage too.
  const c10::impl::GenericDict model = echoed.toGenericDict().at("model").toGenericDict();
  CHECK(model.at("weight_t").toTensor().is_alias_of(model.at("weight").toTensor()));
}

TEST_CASE("reading a missing or corrupt archive throws UserError naming the file", "[io]") {
  const TempDir dir;
  CHECK_THROWS_WITH(read_archive(dir.file("absent.pt")), Catch::Contains(dir.file("absent.pt")));

  std::ofstream(dir.file("text.pt")) << "not a zip file";
  CHECK_THROWS_AS(read_archive(dir.file("text.pt")), UserError);
  CHECK_THROWS_WITH(read_archive(dir.file("text.pt")), Catch::Contains(dir.file("text.pt")));

  write_archive(dir.file("whole.pt"), sample_value());
  std::ifstream whole(dir.file("whole.pt"), std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(whole), std::istreambuf_iterator<char>()};
  std::ofstream(dir.file("truncated.pt"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  CHECK_THROWS_AS(read_archive(dir.file("truncated.pt")), UserError);
  CHECK_THROWS_WITH(read_archive(dir.file("truncated.pt")),
                    Catch::Contains(dir.file("truncated.pt")));
}

TEST_CASE("python's OrderedDicts and one-entry containers read", "[io]") {
  const TempDir dir;
  testing::run_python("archive_fixture.py", "layouts " + testing::quoted(dir.file("")));
  c10::impl::GenericDict weights(c10::StringType::get(), c10::AnyType::get());
  weights.insert("weight", torch::ones({2, 3}));
  weights.insert("bias", torch::zeros({2}));
  check_same(read_archive(dir.file("ordered.pt")), weights, "ordered");
  // Insertion order is the OrderedDict's, as load_state_dict's reports list it.
  CHECK(read_archive(dir.file("ordered.pt")).toGenericDict().begin()->key().toStringRef() == "weight");

  c10::impl::GenericDict nested(c10::StringType::get(), c10::AnyType::get());
  nested.insert("model", weights);
  nested.insert("epoch", int64_t{3});
  check_same(read_archive(dir.file("nested.pt")), nested, "nested");

  c10::impl::GenericDict model(c10::StringType::get(), c10::AnyType::get());
  model.insert("weight", torch::ones({2, 3}));
  model.insert("shape", c10::List<int64_t>({2}));
  c10::impl::GenericDict single(c10::StringType::get(), c10::AnyType::get());
  single.insert("model", model);
  check_same(read_archive(dir.file("single.pt")), single, "single");
}

TEST_CASE("writing into a missing folder throws UserError naming the file", "[io]") {
  const TempDir dir;
  const std::string path = dir.file("no/such/folder/out.pt");
  CHECK_THROWS_AS(write_archive(path, sample_value()), UserError);
  CHECK_THROWS_WITH(write_archive(path, sample_value()), Catch::Contains(path));
}
