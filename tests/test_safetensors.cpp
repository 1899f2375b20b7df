// safetensors files must round-trip every dtype we store, agree byte for byte with a reading of
// the format written independently in Python, and refuse damaged files with the file named.
#include <catch2/catch.hpp>

#include <fstream>

#include "io/json_reader.h"
#include "io/pretrained.h"
#include "io/safetensors.h"
#include "io/tensor_archive.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::quoted;
using trainer::testing::TempDir;

namespace {

using Named = std::vector<std::pair<std::string, torch::Tensor>>;

Named every_dtype() {
  torch::manual_seed(1);
  const torch::Tensor f32 = torch::randn({3, 4});
  return {
      {"f64", torch::randn({2, 3}, torch::kDouble)},
      {"f32_transposed", f32.t()},  // not contiguous: written as its logical layout
      {"f16", torch::randn({5}).to(torch::kHalf)},
      {"bf16", torch::randn({2, 2}).to(torch::kBFloat16)},
      {"i64", torch::tensor({int64_t{1} << 40, -(int64_t{1} << 62), int64_t{0}}, torch::kLong)},
      {"i32", torch::tensor({-7, 2147483647}, torch::kInt)},
      {"i16", torch::tensor({-300, 300}, torch::kShort)},
      {"i8", torch::tensor({-128, 127, 0}, torch::kChar)},
      {"u8", torch::tensor({0, 128, 255}, torch::kByte)},
      {"bool", torch::tensor({true, false, true})},
      {"scalar", torch::scalar_tensor(2.5, torch::kFloat)},
      {"empty", torch::empty({0, 3}, torch::kFloat)},
      {"empty_i64", torch::empty({0}, torch::kLong)},
  };
}

void check_same(const Named& actual, const Named& expected) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO(expected[i].first);
    CHECK(actual[i].first == expected[i].first);
    CHECK(actual[i].second.scalar_type() == expected[i].second.scalar_type());
    CHECK(actual[i].second.sizes() == expected[i].second.sizes());
    CHECK(torch::equal(actual[i].second, expected[i].second));
  }
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A file with the given header text and `data_size` zero bytes of data.
std::string raw_file(const std::string& header, size_t data_size, uint64_t header_length) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[size_t(i)] = char((header_length >> (8 * i)) & 0xFF);
  return bytes + header + std::string(data_size, '\0');
}
std::string raw_file(const std::string& header, size_t data_size) {
  return raw_file(header, data_size, header.size());
}

// The UserError message of reading `path`, or "" when it reads.
std::string read_error(const std::string& path) {
  try {
    read_safetensors(path);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("JSON from strangers keeps member order and 64-bit integers, and refuses ambiguity", "[io]") {
  const Json value = parse_json(R"( {"a": [1, -2.5e3, true, false, null], "b\u00e4\ud83d\ude00": "x\"\\\n", "c": {}} )");
  REQUIRE(value.is_object());
  REQUIRE(value.size() == 3);
  CHECK(value.begin().key() == "a");
  CHECK(value["a"].size() == 5);
  CHECK(value["a"][1].get<double>() == -2500.0);
  CHECK(value["b\xC3\xA4\xF0\x9F\x98\x80"].get<std::string>() == "x\"\\\n");
  CHECK(value.dump() == "{\"a\":[1,-2500.0,true,false,null],\"b\xC3\xA4\xF0\x9F\x98\x80\":\"x\\\"\\\\\\n\",\"c\":{}}");
  CHECK(parse_json("18446744073709551615").is_number_unsigned());
  CHECK(parse_json("18446744073709551615").get<uint64_t>() == UINT64_MAX);
  CHECK_FALSE(parse_json("18446744073709551616").is_number_unsigned());
  CHECK_FALSE(parse_json("-1").is_number_unsigned());
  CHECK_FALSE(parse_json("1.0").is_number_unsigned());
  for (const char* bad : {"", "{", "{\"a\" 1}", "[1,]", "{\"a\":1,\"a\":2}", "{\"x\":{\"a\":1,\"a\":1}}", "01",
                          "\"\\ud800\"", "tru", "[1] x", "\"a\nb\""}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_json(bad), JsonError);
  }
  CHECK_THAT(
      []() -> std::string {
        try {
          parse_json("{\"a\":1,\"b\":2,\"a\":3}");
        } catch (const JsonError& error) {
          return error.what();
        }
        return "";
      }(),
      Catch::Contains("duplicate key \"a\""));
}

TEST_CASE("safetensors round trip of every dtype, a 0-dim and an empty tensor", "[io]") {
  TempDir dir("safetensors");
  const Named tensors = every_dtype();
  const std::map<std::string, std::string> metadata{{"format", "pt"}, {"note", "quote \" and ü"}};
  write_safetensors(dir.file("all.safetensors"), tensors, metadata);
  check_same(read_safetensors(dir.file("all.safetensors")), tensors);
  CHECK(read_safetensors_metadata(dir.file("all.safetensors")) == metadata);
  CHECK(looks_like_safetensors(dir.file("all.safetensors")));

  // The layout itself: an 8-byte-aligned header and the data packed right after it.
  const std::string bytes = read_bytes(dir.file("all.safetensors"));
  uint64_t header_length = 0;
  for (int i = 7; i >= 0; --i) header_length = (header_length << 8) | static_cast<unsigned char>(bytes[size_t(i)]);
  CHECK((8 + header_length) % 8 == 0);
  int64_t data_bytes = 0;
  for (const auto& [name, tensor] : tensors) data_bytes += int64_t(tensor.nbytes());
  CHECK(int64_t(bytes.size()) == int64_t(8 + header_length) + data_bytes);

  write_safetensors(dir.file("none.safetensors"), {});
  CHECK(read_safetensors(dir.file("none.safetensors")).empty());
  CHECK(read_safetensors_metadata(dir.file("none.safetensors")).empty());
}

TEST_CASE("Python parses our safetensors file by hand and sees the same values", "[io]") {
  TempDir dir("safetensors-py");
  const Named tensors = every_dtype();
  write_safetensors(dir.file("ours.safetensors"), tensors, {{"task", "classify"}, {"epoch", "3"}});
  c10::impl::GenericDict reference(c10::StringType::get(), c10::TensorType::get());
  for (const auto& [name, tensor] : tensors) reference.insert(name, tensor.contiguous());
  write_archive(dir.file("reference.pt"), c10::IValue(reference));
  trainer::testing::run_python("safetensors_fixture.py", "check " + quoted(dir.file("ours.safetensors")) + " " +
                                                             quoted(dir.file("reference.pt")) + " " +
                                                             quoted(R"({"task": "classify", "epoch": "3"})"));
}

TEST_CASE("a safetensors file written by hand in Python reads here", "[io]") {
  TempDir dir("safetensors-py");
  trainer::testing::run_python("safetensors_fixture.py", "write " + quoted(dir.file("python.safetensors")));
  const Named tensors = read_safetensors(dir.file("python.safetensors"));
  std::map<std::string, torch::Tensor> by_name(tensors.begin(), tensors.end());
  REQUIRE(tensors.size() == 13);
  CHECK(tensors.front().first == "f64");  // the header's order, though the data runs backwards
  const auto expect = [&](const std::string& name, const torch::Tensor& expected) {
    INFO(name);
    REQUIRE(by_name.count(name) == 1);
    CHECK(by_name[name].scalar_type() == expected.scalar_type());
    CHECK(by_name[name].sizes() == expected.sizes());
    CHECK(torch::equal(by_name[name], expected));
  };
  expect("f64", torch::tensor({1.5, -2.25, 1e300}, torch::kDouble));
  expect("f32", torch::tensor({1.5f, -2.25f, 3.0f, std::numeric_limits<float>::infinity()}).reshape({2, 2}));
  expect("f16", torch::tensor({0.5, -1.0, 65504.0}).to(torch::kHalf));
  expect("bf16", torch::tensor({1.5, -3.0}).to(torch::kBFloat16));
  expect("i64", torch::tensor({int64_t{1} << 40, -(int64_t{1} << 62)}, torch::kLong));
  expect("i32", torch::tensor({-7, 2147483647}, torch::kInt).reshape({1, 2}));
  expect("i16", torch::tensor({-300, 300}, torch::kShort));
  expect("i8", torch::tensor({-128, 127}, torch::kChar));
  expect("u8", torch::tensor({0, 128, 255}, torch::kByte));
  expect("bool", torch::tensor({true, false, true}));
  expect("scalar", torch::scalar_tensor(7.0, torch::kFloat));
  expect("empty", torch::empty({0, 3}, torch::kFloat));
  expect("gewicht.\xC3\xA4", torch::tensor({5}, torch::kChar));
  CHECK(read_safetensors_metadata(dir.file("python.safetensors")) ==
        std::map<std::string, std::string>{{"source", "python"}, {"note", "hand-written"}});
}

TEST_CASE("damaged safetensors files give a UserError naming the file and the tensor", "[io]") {
  TempDir dir("safetensors-bad");
  const auto expect_error = [&](const std::string& name, const std::string& bytes,
                                const std::vector<std::string>& fragments) {
    const std::string path = dir.file(name);
    write_bytes(path, bytes);
    const std::string message = read_error(path);
    INFO(name << ": " << message);
    CHECK_THAT(message, Catch::Contains(path));
    for (const auto& fragment : fragments) CHECK_THAT(message, Catch::Contains(fragment));
  };
  const std::string f32 = R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})";

  expect_error("short.safetensors", "abc", {"8-byte"});
  expect_error("length.safetensors", raw_file(f32, 8, 1000), {"header length 1000"});
  expect_error("json.safetensors", raw_file(R"({"w": {"dtype": "F32", )", 8), {"corrupt safetensors header"});
  expect_error("array.safetensors", raw_file("[1, 2]", 0), {"not a JSON object"});
  expect_error("utf8.safetensors", raw_file("{\"\xFF\": 1}", 0), {"not UTF-8"});
  expect_error("dtype.safetensors", raw_file(R"({"w": {"dtype": "F8_E4M3", "shape": [2], "data_offsets": [0, 2]}})", 2),
               {"'w'", "F8_E4M3"});
  expect_error("reversed.safetensors", raw_file(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}})", 8),
               {"'w'", "end before they begin"});
  expect_error("range.safetensors", raw_file(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 16]}})", 8),
               {"'w'", "past the end"});
  expect_error("size.safetensors", raw_file(R"({"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 8]}})", 8),
               {"'w'", "need 24"});
  expect_error("overlap.safetensors",
               raw_file(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                            "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})", 12),
               {"'b' overlaps tensor 'a'"});
  expect_error("shape.safetensors", raw_file(R"({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", 8),
               {"'w'", "shape"});
  expect_error("huge.safetensors",
               raw_file(R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 8]}})", 8),
               {"'w'", "more than 2^64"});
  expect_error("metadata.safetensors", raw_file(R"({"__metadata__": {"epoch": 3}})", 0), {"epoch", "not a string"});
  expect_error("bool.safetensors", raw_file(R"({"b": {"dtype": "BOOL", "shape": [1], "data_offsets": [0, 1]}})", 0) + "\x07",
               {"'b'", "0 or 1"});

  // A good file cut short: the last tensor's data runs past the end.
  write_safetensors(dir.file("good.safetensors"), every_dtype());
  const std::string good = read_bytes(dir.file("good.safetensors"));
  expect_error("truncated.safetensors", good.substr(0, good.size() - 4), {"'scalar'", "truncated"});
  expect_error("truncated_header.safetensors", good.substr(0, 40), {"header length"});

  CHECK_THAT(read_error(dir.file("missing.safetensors")), Catch::Contains(dir.file("missing.safetensors")));
  CHECK_FALSE(looks_like_safetensors(dir.file("json.safetensors") + ".none"));
}

TEST_CASE("safetensors writes are atomic and fail cleanly", "[io]") {
  TempDir dir("safetensors-write");
  const Named tensors{{"w", torch::ones({2})}};

  const std::string missing = (dir / "no-such-folder" / "w.safetensors").string();
  try {
    write_safetensors(missing, tensors);
    FAIL("wrote into a missing folder");
  } catch (const UserError& error) {
    CHECK_THAT(error.what(), Catch::Contains(missing));
  }
  CHECK_FALSE(std::filesystem::exists(dir / "no-such-folder"));

  // A failed write leaves the previous file as it was, and no temporary file behind.
  const std::string path = dir.file("w.safetensors");
  write_safetensors(path, tensors);
  const std::string before = read_bytes(path);
  CHECK_THROWS_WITH(write_safetensors(path, {{"a", torch::zeros({1})}, {"a", torch::zeros({1})}}),
                    Catch::Contains(path) && Catch::Contains("'a' appears twice"));
  CHECK_THROWS_WITH(write_safetensors(path, {{"z", torch::zeros({1}, torch::kComplexFloat)}}),
                    Catch::Contains(path) && Catch::Contains("'z'"));
  CHECK(read_bytes(path) == before);

  // A rename onto a non-empty folder fails after the data is written: the temporary goes.
  std::filesystem::create_directories(dir / "occupied" / "inside");
  CHECK_THROWS_WITH(write_safetensors(dir.file("occupied"), tensors), Catch::Contains(dir.file("occupied")));
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    INFO(entry.path());
    CHECK(entry.path().filename().string().find(".tmp") == std::string::npos);
    ++files;
  }
  CHECK(files == 2);  // w.safetensors and occupied/
}

TEST_CASE("pretrained= reads safetensors by extension and by content", "[io]") {
  TempDir dir("safetensors-pretrained");
  torch::nn::Linear source(3, 2), target(3, 2);
  write_safetensors(dir.file("linear.safetensors"), {{"weight", source->weight}, {"bias", source->bias}});
  load_pretrained(*target, dir.file("linear.safetensors"));
  CHECK(torch::equal(target->weight, source->weight));
  CHECK(torch::equal(target->bias, source->bias));

  // The same bytes under a name that says nothing, as in a hub download cache.
  torch::nn::Linear other(3, 2);
  std::filesystem::copy_file(dir / "linear.safetensors", dir / "model.bin");
  load_pretrained(*other, dir.file("model.bin"));
  CHECK(torch::equal(other->weight, source->weight));

  // A torch.save archive is never mistaken for one.
  c10::impl::GenericDict dict(c10::StringType::get(), c10::TensorType::get());
  dict.insert("weight", source->weight.detach());
  dict.insert("bias", source->bias.detach());
  write_archive(dir.file("linear.pt"), c10::IValue(dict));
  CHECK_FALSE(looks_like_safetensors(dir.file("linear.pt")));
  torch::nn::Linear from_pt(3, 2);
  load_pretrained(*from_pt, dir.file("linear.pt"));
  CHECK(torch::equal(from_pt->weight, source->weight));
}
