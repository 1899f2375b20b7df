// Files made to hurt the reader rather than to be read: each is refused with a UserError that
// names the file, within a second and without taking memory for what it claims (issue 34's
// hostile inputs; docs/reliability.md lists them). The crashes the fuzzers find are covered by
// the corpora the fuzz-replay:* tests replay.
#include <catch2/catch.hpp>

#include <caffe2/serialize/inline_container.h>
#include <sys/resource.h>
#include <opencv2/imgcodecs.hpp>

#include <chrono>
#include <fstream>

#include "config/recipe.h"
#include "data/detect/detect_dataset_config.h"
#include "data/ocr/ocr_labels.h"
#include "data/read_image.h"
#include "families/recipes.h"
#include "io/checkpoint.h"
#include "io/pretrained.h"
#include "io/tensor_archive.h"
#include "io/torch_pickle.h"
#include "tasks/task_factory.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using Catch::Matchers::Contains;
using trainer::testing::TempDir;

namespace {

int64_t peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

// `read` must throw a UserError whose message holds every one of `expected`, in under a second,
// with the process's peak memory grown by less than 200 MB.
template <typename Read>
void refused_quickly(Read read, const std::vector<std::string>& expected) {
  const int64_t rss_before = peak_rss_mb();
  const auto start = std::chrono::steady_clock::now();
  std::string message;
  try {
    read();
  } catch (const UserError& error) {
    message = error.what();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(message);
  CHECK_FALSE(message.empty());
  for (const std::string& part : expected) CHECK_THAT(message, Contains(part));
  CHECK(seconds < 1.0);
  CHECK(peak_rss_mb() - rss_before < 200);
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

std::string big_endian(uint32_t value, int count) {
  std::string bytes;
  for (int i = count - 1; i >= 0; --i) bytes.push_back(char((value >> (8 * i)) & 0xFF));
  return bytes;
}

// A PNG signature and IHDR chunk claiming width x height RGB pixels, then a few bytes of nothing.
std::string png_header(uint32_t width, uint32_t height) {
  return std::string("\x89PNG\r\n\x1a\n", 8) + big_endian(13, 4) + "IHDR" + big_endian(width, 4) +
         big_endian(height, 4) + std::string("\x08\x02\x00\x00\x00", 5) + big_endian(0, 4) + std::string(64, '\0');
}

// SOI, then a baseline start-of-frame claiming width x height, three components.
std::string jpeg_header(uint32_t width, uint32_t height) {
  return std::string("\xFF\xD8\xFF\xC0", 4) + big_endian(17, 2) + "\x08" + big_endian(height, 2) +
         big_endian(width, 2) + std::string("\x03\x01\x11\x00\x02\x11\x01\x03\x11\x01", 10) + std::string(64, '\0');
}

const int64_t kDefaultPixels = DataSettings{}.max_image_pixels;

// Restores the process-wide limit the test changed.
struct PixelLimit {
  explicit PixelLimit(int64_t pixels) { set_max_image_pixels(pixels); }
  ~PixelLimit() { set_max_image_pixels(kDefaultPixels); }
};

}  // namespace

TEST_CASE("an image header claiming 100000 x 100000 pixels is refused before decoding", "[hostile]") {
  TempDir dir;
  write_bytes(dir.file("bomb.png"), png_header(100000, 100000));
  write_bytes(dir.file("bomb.jpg"), jpeg_header(65000, 65000));
  // Below OpenCV's own limit (2^30 pixels), which would allocate 1.2 GB before finding no data.
  write_bytes(dir.file("large.png"), png_header(20000, 20000));
  for (const std::string name : {"bomb.png", "bomb.jpg", "large.png"}) {
    const std::string path = dir.file(name);
    refused_quickly([&] { read_image(path, 3); }, {path, "max_image_pixels=178956970", "decompression bomb"});
    refused_quickly([&] { image_size(path); }, {path, "max_image_pixels"});
    CHECK(check_image(path).channels == 0);  // a dataset scan counts it unreadable
  }
}

TEST_CASE("max_image_pixels refuses from one pixel over the limit, in PNG, JPEG and BMP", "[hostile]") {
  TempDir dir;
  const cv::Mat image(7, 12, CV_8UC3, cv::Scalar(10, 20, 30));
  for (const std::string name : {"photo.png", "photo.jpg", "photo.bmp"}) cv::imwrite(dir.file(name), image);
  REQUIRE(read_image_header(dir.file("photo.bmp")));
  CHECK(read_image_header(dir.file("photo.bmp"))->size == cv::Size(12, 7));
  {
    PixelLimit limit(84);
    for (const std::string name : {"photo.png", "photo.jpg", "photo.bmp"}) {
      CHECK(read_image(dir.file(name), 3).size() == cv::Size(12, 7));
    }
  }
  PixelLimit limit(83);
  for (const std::string name : {"photo.png", "photo.jpg", "photo.bmp"}) {
    CHECK_THROWS_WITH(read_image(dir.file(name), 1),
                      Contains(dir.file(name)) && Contains("12x7 pixels") && Contains("max_image_pixels=83"));
    CHECK(check_image(dir.file(name)).channels == 0);
  }
}

TEST_CASE("the recipe's max_image_pixels holds every dataset a task opens", "[hostile]") {
  TempDir dir("pixel-key");
  testing::write_two_class_images(dir / "data");  // 16 x 16 = 256 pixels each
  CHECK(kDefaultPixels == 178956970);
  const auto settings = [&](int64_t limit) {
    return load_settings(std::nullopt, {"data=" + (dir / "data").string(), "model=resnet18", "imgsz=16", "workers=0",
                                        "device=cpu", "max_image_pixels=" + std::to_string(limit)});
  };
  CHECK_THROWS_WITH(settings(0), Contains("max_image_pixels"));
  const PixelLimit restored(kDefaultPixels);
  // Each image over the limit is unreadable to the scan, so the split has none left.
  CHECK_THROWS_AS(make_task(settings(255)), UserError);
  CHECK(max_image_pixels() == 255);
  CHECK(make_task(settings(256)) != nullptr);  // the scan cache of the refused run is not taken for this one
}

TEST_CASE("a labels.csv line of 10 MB is refused naming the file and line", "[hostile]") {
  TempDir dir;
  write_bytes(dir.file("labels.csv"),
              "filename,words\nword_1.png,fine\nword_2.png," + std::string(10 << 20, 'x') + "\n");
  refused_quickly([&] { read_ocr_labels(dir / "labels.csv"); },
                  {dir.file("labels.csv") + ":3", "a line of over 65536 bytes"});
  // A header line that long is cut in the message, not repeated whole.
  write_bytes(dir.file("labels.csv"), std::string(60000, 'y') + "\nword_1.png,fine\n");
  try {
    read_ocr_labels(dir / "labels.csv");
    FAIL("the header was accepted");
  } catch (const UserError& error) {
    CHECK(std::string(error.what()).size() < 300);
  }
}

namespace {

// The billion laughs: nine levels of nine aliases, 9^9 strings if expanded.
std::string alias_bomb(const std::string& target_key) {
  std::string yaml = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (char level = 'b'; level <= 'i'; ++level) {
    const std::string below(1, char(level - 1));
    yaml += std::string(1, level) + ": &" + level + " [";
    for (int i = 0; i < 9; ++i) yaml += (i ? ", *" : "*") + below;
    yaml += "]\n";
  }
  return yaml + target_key + ": *i\n";
}

}  // namespace

TEST_CASE("a YAML alias bomb is refused without being expanded, as a recipe and as a data.yaml", "[hostile]") {
  TempDir dir;
  testing::write_text(dir / "recipe.yaml", alias_bomb("epochs"));
  refused_quickly([&] { load_settings(dir.file("recipe.yaml"), {}); },
                  {dir.file("recipe.yaml"), "key 'epochs' expects a single value"});
  std::filesystem::create_directories(dir / "images");
  testing::write_text(dir / "data.yaml", "train: images\nval: images\n" + alias_bomb("names"));
  refused_quickly([&] { read_detect_data_config(dir.file("data.yaml")); },
                  {dir.file("data.yaml"), "a class name must be a string"});
}

TEST_CASE("a data.yaml whose nc claims 900 million classes is refused, not given a name each", "[hostile]") {
  // Found by the dataset_text fuzzer (tests/fuzz/corpus/dataset_text/nc_900_million.yaml).
  TempDir dir;
  std::filesystem::create_directories(dir / "images");
  testing::write_text(dir / "data.yaml", "train: images\nval: images\nnc: 900000000\n");
  refused_quickly([&] { read_detect_data_config(dir.file("data.yaml")); },
                  {dir.file("data.yaml") + ":3", "key 'nc' expects a class count from 1 to 100000"});
  testing::write_text(dir / "data.yaml", "train: images\nval: images\nnc: 3\n");
  CHECK(read_detect_data_config(dir.file("data.yaml")).names.size() == 3);
}

namespace {

// Pickle protocol 2 of a float tensor of `numel` elements on the storage '0' that claims as
// many: _rebuild_tensor_v2(persistent ('storage', FloatStorage, '0', 'cpu', numel), 0, (numel,),
// (1,), False, OrderedDict()).
std::string tensor_pickle(uint64_t numel) {
  std::string count = "\x8a\x08";  // LONG1 of 8 bytes, little-endian
  for (int i = 0; i < 8; ++i) count.push_back(char((numel >> (8 * i)) & 0xFF));
  const auto unicode = [](const std::string& text) { return "X" + std::string{char(text.size()), 0, 0, 0} + text; };
  return std::string("\x80\x02", 2) + "ctorch._utils\n_rebuild_tensor_v2\n(" + "(" + unicode("storage") +
         "ctorch\nFloatStorage\n" + unicode("0") + unicode("cpu") + count + "tQ" + std::string("K\x00", 2) + "(" +
         count + "t(K\x01t\x89" + "ccollections\nOrderedDict\n)R" + "tR.";
}

}  // namespace

TEST_CASE("a pickle whose storage claims terabytes is refused without allocating them", "[hostile]") {
  TempDir dir;
  const uint64_t terabytes = uint64_t(1) << 40;  // elements of 4 bytes: 4 TiB
  {
    std::ofstream out(dir.file("zip.pt"), std::ios::binary);
    caffe2::serialize::PyTorchStreamWriter writer(
        [&](const void* data, size_t size) { return out.write(static_cast<const char*>(data), size) ? size : 0; });
    const std::string pickle = tensor_pickle(terabytes);
    writer.writeRecord("data.pkl", pickle.data(), pickle.size());
    writer.writeRecord("data/0", "\0\0\0\0\0\0\0\0", 8);
    writer.writeEndOfFile();
  }
  refused_quickly([&] { read_archive(dir.file("zip.pt")); },
                  {dir.file("zip.pt"), "the storage data/0 is shorter than its tensors need"});
  refused_quickly([&] { read_pretrained(dir.file("zip.pt")); }, {dir.file("zip.pt")});
  // The pre-1.6 stream: magic number, protocol 1001, system info, the value, its storage keys.
  const std::string legacy = std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.", 15) +
                             std::string("\x80\x02M\xe9\x03.", 6) + std::string("\x80\x02}.", 4) +
                             tensor_pickle(terabytes) +
                             std::string(
                                 "\x80\x02]X\x01\x00\x00\x00"
                                 "0a.",
                                 11) +
                             std::string(16, '\0');
  write_bytes(dir.file("legacy.pt"), legacy);
  refused_quickly([&] { load_checkpoint(dir.file("legacy.pt")); },
                  {dir.file("legacy.pt"), "a storage larger than the file"});
}

namespace {

// The little-endian number of `count` bytes at `at`, as zip headers store their fields.
uint32_t little_endian_at(const std::string& bytes, size_t at, int count) {
  uint32_t value = 0;
  for (int i = count - 1; i >= 0; --i) value = value << 8 | uint8_t(bytes[at + i]);
  return value;
}

// The offset of the central directory header of the entry whose name ends in `name`.
size_t directory_entry(const std::string& zip, const std::string& name) {
  for (size_t at = zip.find("PK\x01\x02"); at != std::string::npos; at = zip.find("PK\x01\x02", at + 4)) {
    const size_t name_size = little_endian_at(zip, at + 28, 2);
    const std::string entry = zip.substr(at + 46, name_size);
    if (entry.size() >= name.size() && entry.compare(entry.size() - name.size(), name.size(), name) == 0) return at;
  }
  FAIL("no zip entry " << name);
  return 0;
}

void patch_u32(std::string& bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes[at + i] = char((value >> (8 * i)) & 0xFF);
}

}  // namespace

TEST_CASE("a zip with overlapping, looping or oversized entries is refused before extracting", "[hostile]") {
  TempDir dir;
  c10::impl::GenericDict weights(c10::StringType::get(), c10::TensorType::get());
  weights.insert("w", torch::ones({4, 4}));
  write_archive(dir.file("good.pt"), weights);
  const std::string good = bytes_of(dir.file("good.pt"));
  REQUIRE(read_archive(dir.file("good.pt")).isGenericDict());
  const size_t pickle = directory_entry(good, "data.pkl"), storage = directory_entry(good, "data/0");
  const auto offset_of = [&](size_t entry) { return little_endian_at(good, entry + 42, 4); };

  std::string overlapping = good;  // the storage's entry pointed at the pickle's bytes
  patch_u32(overlapping, storage + 42, offset_of(pickle));
  write_bytes(dir.file("overlapping.pt"), overlapping);
  refused_quickly([&] { read_archive(dir.file("overlapping.pt")); }, {dir.file("overlapping.pt"), "overlap"});

  std::string looping = good;  // an entry whose data would be the central directory itself
  patch_u32(looping, storage + 42, uint32_t(good.find("PK\x01\x02")));
  write_bytes(dir.file("looping.pt"), looping);
  refused_quickly([&] { read_archive(dir.file("looping.pt")); },
                  {dir.file("looping.pt"), "outside the archive's data"});

  std::string oversized = good;  // a stored record claiming 4 GB
  patch_u32(oversized, storage + 20, 0xFFFFFFF0u);
  patch_u32(oversized, storage + 24, 0xFFFFFFF0u);
  write_bytes(dir.file("oversized.pt"), oversized);
  refused_quickly([&] { read_trained(dir.file("oversized.pt")); }, {dir.file("oversized.pt"), "reaches past"});

  std::string counted = good;  // end records counting more entries than the directory holds
  const size_t end = good.rfind("PK\x05\x06"), zip64_end = good.rfind("PK\x06\x06");
  for (size_t at = end + 8; at < end + 12; ++at) counted[at] = char(0xFF);
  if (zip64_end != std::string::npos) {  // LibTorch writes one: then its counts are the ones read
    for (size_t at = zip64_end + 24; at < zip64_end + 40; ++at) counted[at] = (at - zip64_end) % 8 < 4 ? char(0xFF) : 0;
  }
  write_bytes(dir.file("counted.pt"), counted);
  refused_quickly([&] { read_archive(dir.file("counted.pt")); }, {dir.file("counted.pt"), "central directory"});
}

TEST_CASE("a byte changed inside a torch.save entry fails its CRC-32 check, naming the file and entry", "[hostile]") {
  TempDir dir;
  c10::impl::GenericDict weights(c10::StringType::get(), c10::TensorType::get());
  weights.insert("w", torch::arange(16, torch::kFloat).reshape({4, 4}));
  write_archive(dir.file("good.pt"), weights);
  const std::string good = bytes_of(dir.file("good.pt"));
  // Where an entry's bytes start: after its local header, whose name and extra field lengths
  // differ from the central directory's (LibTorch pads the local extra field to align data).
  const auto data_of = [&](const std::string& name) {
    const size_t local = little_endian_at(good, directory_entry(good, name) + 42, 4);
    return local + 30 + little_endian_at(good, local + 26, 2) + little_endian_at(good, local + 28, 2);
  };
  const std::string name = GENERATE("data/0", "data.pkl");
  INFO(name);
  std::string flipped = good;
  flipped[data_of(name) + 5] ^= 0x10;
  write_bytes(dir.file("flipped.pt"), flipped);
  refused_quickly([&] { read_archive(dir.file("flipped.pt")); },
                  {dir.file("flipped.pt"), "entry '" + name + "' fails its CRC-32 check"});
  refused_quickly([&] { read_pretrained(dir.file("flipped.pt")); }, {dir.file("flipped.pt"), "CRC-32"});
  // The same bytes put back load as written.
  flipped[data_of(name) + 5] ^= 0x10;
  write_bytes(dir.file("flipped.pt"), flipped);
  CHECK(torch::equal(read_archive(dir.file("flipped.pt")).toGenericDict().at("w").toTensor(),
                     torch::arange(16).reshape({4, 4}).to(torch::kFloat)));
}

TEST_CASE("a .pt whose pickle calls os.system is refused by name and nothing runs", "[hostile]") {
  // tests/test_ultralytics_checkpoint.cpp ("... is refused by name") holds the files Python writes
  // with os.system, eval, subprocess.Popen and getattr through every reader; here the global alone,
  // hand-pickled, through resume='s reader and pretrained='s.
  TempDir dir;
  const std::string marker = dir.file("ran");
  const std::string call = std::string("\x80\x02") + "cposix\nsystem\nX" +
                           std::string{char(("touch " + marker).size()), 0, 0, 0} + "touch " + marker + "\x85R.";
  write_bytes(dir.file("evil.pt"), std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.", 15) +
                                       std::string("\x80\x02M\xe9\x03.", 6) + std::string("\x80\x02}.", 4) + call);
  refused_quickly([&] { load_checkpoint(dir.file("evil.pt")); }, {dir.file("evil.pt"), "posix.system"});
  refused_quickly([&] { read_pretrained(dir.file("evil.pt")); }, {dir.file("evil.pt"), "posix.system"});
  CHECK_FALSE(std::filesystem::exists(marker));
}
