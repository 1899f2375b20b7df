// EasyOCR's data format: labels.csv parsing edge cases, filtering as EasyOCR filters, errors that
// name file and line, and the collate step's resize, padding and target encoding.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>

#include "data/normalized_input.h"
#include "data/ocr/charset.h"
#include "data/ocr/ocr_dataset.h"
#include "data/ocr/ocr_labels.h"
#include "data/ocr/text_line_collate.h"
#include "data/read_image.h"
#include "test_helpers.h"
#include "util/error.h"
#include "util/utf8.h"

using namespace trainer;
using trainer::testing::TempDir;
using trainer::testing::write_text;

namespace {

// A grey image whose column x has the value x * 10 (so resizing and padding are observable).
void write_ramp(const std::filesystem::path& path, int width, int height) {
  cv::Mat image(height, width, CV_8U);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) image.at<uint8_t>(y, x) = static_cast<uint8_t>(std::min(255, x * 10));
  std::filesystem::create_directories(path.parent_path());
  REQUIRE(cv::imwrite(path.string(), image));
}

// folder/labels.csv from "filename,words" lines, with an image of width x height for each filename.
void write_folder(const std::filesystem::path& folder, const std::vector<std::string>& lines, int width = 64,
                  int height = 32) {
  std::string csv = "filename,words\n";
  for (const auto& line : lines) {
    csv += line + "\n";
    write_ramp(folder / line.substr(0, line.find(',')), width, height);
  }
  write_text(folder / "labels.csv", csv);
}

Charset digits_and_lower() { return Charset(U"0123456789abcdefghijklmnopqrstuvwxyz, ", "test"); }

}  // namespace

TEST_CASE("labels.csv splits on the first comma only and keeps the rest verbatim", "[ocr][data]") {
  TempDir dir("ocr-labels");
  write_text(dir / "labels.csv", "\xEF\xBB\xBF" "filename,words\r\na.png,hello, world\r\n\r\nb.png,\r\nsub/c.png,\"q\",x\n");
  const auto lines = read_ocr_labels(dir / "labels.csv");
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].filename == "a.png");
  CHECK(lines[0].words == U"hello, world");
  CHECK(lines[0].line == 2);
  CHECK(lines[1].words.empty());  // an empty label is a label (EasyOCR keeps it)
  CHECK(lines[1].line == 4);      // the blank line 3 is skipped but counted
  CHECK(lines[2].filename == "sub/c.png");
  CHECK(lines[2].words == U"\"q\",x");
}

TEST_CASE("malformed labels.csv lines are errors naming file and line", "[ocr][data]") {
  TempDir dir("ocr-labels-bad");
  const auto csv = dir / "labels.csv";
  write_text(csv, "name,text\na.png,1\n");
  CHECK_THROWS_WITH(read_ocr_labels(csv), Catch::Contains("labels.csv:1") && Catch::Contains("filename,words"));
  write_text(csv, "filename,words\na.png,1\nb.png 2\n");
  CHECK_THROWS_WITH(read_ocr_labels(csv), Catch::Contains("labels.csv:3") && Catch::Contains("no comma"));
  write_text(csv, "filename,words\n,12\n");
  CHECK_THROWS_WITH(read_ocr_labels(csv), Catch::Contains("labels.csv:2") && Catch::Contains("filename is empty"));
  write_text(csv, "filename,words\na.png,ok\nb.png,\xC3\n");
  CHECK_THROWS_WITH(read_ocr_labels(csv), Catch::Contains("labels.csv:3") && Catch::Contains("UTF-8"));
  write_text(csv, "");
  CHECK_THROWS_WITH(read_ocr_labels(csv), Catch::Contains("empty file"));
  CHECK_THROWS_WITH(read_ocr_labels(dir / "missing.csv"), Catch::Contains("missing.csv"));
}

TEST_CASE("filtering drops too-long labels and unknown characters as EasyOCR, and reports them", "[ocr][data]") {
  TempDir dir("ocr-filter");
  write_folder(dir.path(), {"a.png,AB12", "b.png,ab€", "c.png,abcdefghi", "d.png,x, y"});
  const Charset charset = digits_and_lower();
  OcrDataOptions options;
  options.img_h = 32;
  options.batch_max_length = 8;

  const OcrDataset filtered(dir.path(), charset, options);
  REQUIRE(filtered.size() == 2);
  CHECK(filtered.label(0) == U"ab12");  // lower-cased: sensitive is off
  CHECK(filtered.label(1) == U"x, y");
  CHECK(filtered.filter_counts().lines == 4);
  CHECK(filtered.filter_counts().too_long == 1);
  CHECK(filtered.filter_counts().unknown == 1);

  options.sensitive = true;  // 'A', 'B' are then unknown
  CHECK(OcrDataset(dir.path(), charset, options).size() == 1);

  options.sensitive = false;
  options.data_filtering_off = true;  // keep all: unknown characters removed, long labels cut
  const OcrDataset kept(dir.path(), charset, options);
  REQUIRE(kept.size() == 4);
  CHECK(kept.label(1) == U"ab");
  CHECK(kept.label(2) == U"abcdefgh");
  CHECK(kept.filter_counts().affected == 2);
}

TEST_CASE("a missing image names labels.csv and its line", "[ocr][data]") {
  TempDir dir("ocr-missing");
  write_folder(dir.path(), {"a.png,12", "b.png,34"});
  write_text(dir / "labels.csv", "filename,words\na.png,12\nb.png,34\ngone.png,56\n");
  CHECK_THROWS_WITH(OcrDataset(dir.path(), digits_and_lower(), {}),
                    Catch::Contains("labels.csv:4") && Catch::Contains("gone.png"));
}

TEST_CASE("select_data picks folders and their subfolders, unknown names are listed", "[ocr][data]") {
  TempDir dir("ocr-select");
  write_folder(dir / "en" / "a", {"1.png,1"});
  write_folder(dir / "en" / "b", {"1.png,2", "2.png,3"});
  write_folder(dir / "digits", {"1.png,4"});
  CHECK(ocr_label_folders(dir.path()) == std::vector<std::string>{"digits", "en/a", "en/b"});
  OcrDataOptions options;
  options.img_h = 32;
  options.select_data = {"en"};
  const OcrDataset en(dir.path(), digits_and_lower(), options);
  CHECK(en.size() == 3);
  CHECK(en.group_names() == std::vector<std::string>{"en"});
  options.select_data = {"digits", "en/b"};
  const OcrDataset two(dir.path(), digits_and_lower(), options);
  CHECK(two.size() == 3);
  CHECK(two.group(0) == 0);
  CHECK(two.group(2) == 1);
  options.select_data = {"fr"};
  CHECK_THROWS_WITH(OcrDataset(dir.path(), digits_and_lower(), options),
                    Catch::Contains("'fr'") && Catch::Contains("digits, en/a, en/b"));
  options.select_data = {};
  CHECK(label_characters(dir.path(), options) == U"1234");
  // An entry naming the root itself selects every folder under it, as EasyOCR's substring match
  // of each folder's path does.
  options.select_data = {dir.path().filename().string()};
  const OcrDataset root(dir.path(), digits_and_lower(), options);
  CHECK(root.size() == 4);
  CHECK(root.group_names() == options.select_data);
  options.select_data = {"en"};  // train_data: <dir>/en, select_data: en
  CHECK(OcrDataset(dir.path() / "en", digits_and_lower(), options).size() == 3);
}

TEST_CASE("image sizes come from PNG and JPEG headers, widths follow EasyOCR's rounding", "[ocr][data]") {
  TempDir dir("ocr-size");
  cv::Mat image(37, 123, CV_8UC3, cv::Scalar(10, 20, 30));
  REQUIRE(cv::imwrite(dir.file("a.png"), image));
  REQUIRE(cv::imwrite(dir.file("a.jpg"), image));
  REQUIRE(cv::imwrite(dir.file("a.bmp"), image));
  for (const char* name : {"a.png", "a.jpg", "a.bmp"}) {
    INFO(name);
    CHECK(image_size(dir.file(name)) == cv::Size(123, 37));
  }
  CHECK_THROWS_WITH(image_size(dir.file("none.png")), Catch::Contains("none.png"));
  CHECK(resized_width(cv::Size(123, 37), 32, 600) == 107);  // ceil(32 * 3.324...) = 107
  CHECK(resized_width(cv::Size(100, 32), 32, 600) == 100);
  CHECK(resized_width(cv::Size(5000, 32), 32, 600) == 600);  // squeezed to imgW
  CHECK(resized_width(cv::Size(1, 100), 32, 600) == 1);
}

TEST_CASE("the collate pads to the bucket by repeating the last column and encodes targets", "[ocr][data]") {
  const Charset charset(U"abc", "test");
  TextLineShape shape;
  shape.img_h = 32;
  shape.img_w = 128;
  shape.bucket_widths = {32, 64, 128};
  shape.max_label_length = 4;
  cv::Mat narrow(32, 20, CV_8U), wide(32, 40, CV_8U);
  for (int x = 0; x < 20; ++x) narrow.col(x).setTo(x * 10);
  wide.setTo(255);
  const std::vector<std::u32string> labels{U"ab", U"cab"};
  const Batch batch = collate_text_lines({narrow, wide}, &labels, charset, shape);
  CHECK(batch.size == 2);
  CHECK(batch.input.sizes() == torch::IntArrayRef({2, 1, 32, 64}));  // 40 px needs the 64 bucket
  REQUIRE(batch.input.dtype() == torch::kUInt8);  // pixels: the task normalises them where the step runs
  const torch::Tensor input = normalized_input(batch.input, {{0.5}, {0.5}});
  const torch::Tensor first = input[0][0];
  CHECK(first[5][0].item<float>() == Approx(-1.0f));                    // 0 -> -1
  CHECK(first[5][19].item<float>() == Approx(190 / 127.5 - 1));         // the last column ...
  CHECK(torch::all(first.narrow(1, 20, 44) == first.narrow(1, 19, 1)).item<bool>());  // ... repeated
  CHECK(torch::all(input[1] == 1.0f).item<bool>());
  CHECK(torch::allclose(input, batch.input.to(torch::kFloat).div(127.5).sub(1.0), 0.0, 1e-6));
  CHECK(torch::equal(batch.target, torch::tensor({1, 2, 0, 0, 3, 1, 2, 0}, torch::kLong).reshape({2, 4})));
  CHECK(torch::equal(batch.target_lengths, torch::tensor({2, 3}, torch::kLong)));

  const Batch unlabeled = collate_text_lines({narrow}, nullptr, charset, shape);
  CHECK(unlabeled.input.sizes() == torch::IntArrayRef({1, 1, 32, 32}));
  CHECK_FALSE(unlabeled.target.defined());
}

TEST_CASE("a charset numbers its characters from 1 and counts repeats as EasyOCR's converter", "[ocr][data]") {
  const Charset charset(decode_utf8("a中b", "test"), "test");
  CHECK(charset.classes() == 4);
  CHECK(charset.class_of(U'中') == 2);
  CHECK(charset.character(3) == U'b');
  CHECK_FALSE(charset.contains(U'c'));
  // CTCLabelConverter(' a b '): ['[CTCblank]', ' ', 'a', ' ', 'b', ' '] and dict[' '] == 5.
  const Charset repeated(U" a b ", "key charset");
  CHECK(repeated.classes() == 6);
  CHECK(repeated.class_of(U' ') == 5);
  CHECK(repeated.class_of(U'a') == 2);
  CHECK(repeated.character(1) == U' ');
  CHECK(repeated.character(3) == U' ');
  CHECK_THROWS_WITH(Charset(U"", "key charset"), Catch::Contains("empty"));
  CHECK(lower_case(decode_utf8("ÀBÇ Σ1", "t")) == decode_utf8("àbç σ1", "t"));
}
