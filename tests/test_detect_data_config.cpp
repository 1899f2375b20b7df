// Ultralytics data.yaml files: path resolution, the three source forms, both spellings of names,
// and errors that name the file, line and key.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "data/detect/detect_dataset_config.h"
#include "data/image_files.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;
using Catch::Matchers::Contains;

namespace {

void touch_images(const std::filesystem::path& folder, const std::vector<std::string>& names) {
  for (const auto& name : names) write_text(folder / name, "not decoded here");
}

}  // namespace

TEST_CASE("data.yaml resolves path from its own folder and reads names as a mapping", "[detect-data]") {
  TempDir dir;
  touch_images(dir / "sets/coco/images/train", {"a.jpg"});
  touch_images(dir / "sets/coco/images/val", {"b.jpg"});
  write_text(dir / "config/data.yaml",
             "path: ../sets/coco\ntrain: images/train\nval: images/val\nnames:\n  1: bicycle\n  0: person\n"
             "download: https://example.com/ignored.zip\n");
  const DetectDataConfig config = read_detect_data_config(dir.file("config/data.yaml"));
  CHECK(config.root == dir / "sets/coco");
  CHECK(config.train == std::vector<std::string>{(dir / "sets/coco/images/train").string()});
  CHECK(config.val == std::vector<std::string>{(dir / "sets/coco/images/val").string()});
  CHECK(config.test.empty());
  CHECK(config.names == std::vector<std::string>{"person", "bicycle"});
}

TEST_CASE("data.yaml without path uses its folder, sources may be lists of folders and .txt files", "[detect-data]") {
  TempDir dir;
  touch_images(dir / "images/a", {"1.png", "2.JPG", "notes.txt"});
  touch_images(dir / "images/a/nested", {"3.bmp"});
  touch_images(dir / "extra", {"4.jpeg"});
  write_text(dir / "lists/val.txt",
             "./../extra/4.jpeg\n\n" + (dir / "images/a/1.png").string() + "\n../images/a/1.png\n");
  write_text(dir / "data.yaml",
             "train: [images/a, lists/val.txt]\nval: lists/val.txt\ntest: images/a\n"
             "nc: 2\nnames: [cat, dog]\n");
  const DetectDataConfig config = read_detect_data_config(dir.file("data.yaml"));
  CHECK(config.root == dir.path());
  CHECK(config.train.size() == 2);
  CHECK(config.names == std::vector<std::string>{"cat", "dog"});
  const std::vector<std::string> train = list_images(config.train);
  CHECK(train == std::vector<std::string>{(dir / "extra/4.jpeg").string(), (dir / "images/a/1.png").string(),
                                          (dir / "images/a/2.JPG").string(), (dir / "images/a/nested/3.bmp").string()});
  CHECK(list_images(config.val).size() == 2);
}

TEST_CASE("data.yaml is resolved as Ultralytics' check_det_dataset resolves it", "[detect-data]") {
  TempDir dir;
  // A Roboflow export: the file beside train/ and valid/ names them ../train/images, and its test/
  // is missing; Ultralytics retries a ../ entry without it and needs only train and val.
  touch_images(dir / "export/train/images", {"a.jpg"});
  touch_images(dir / "export/valid/images", {"b.jpg"});
  write_text(dir / "export/data.yaml",
             "train: ../train/images\nval: ../valid/images\ntest: ../test/images\n\nnc: 2\nnames: ['bolt', 'nut']\n\n"
             "roboflow:\n  workspace: w\n  version: 3\n");
  CapturedLog log;
  const DetectDataConfig exported = read_detect_data_config(dir.file("export/data.yaml"));
  CHECK(exported.train == std::vector<std::string>{(dir / "export/train/images").string()});
  CHECK(exported.val == std::vector<std::string>{(dir / "export/valid/images").string()});
  CHECK(exported.test.empty());
  CHECK_THAT(log.text(), Contains("data.yaml:3:7") && Contains("test split is not needed for training"));
  CHECK(exported.names == std::vector<std::string>{"bolt", "nut"});
  // A list's items are not retried, as in Ultralytics.
  write_text(dir / "export/listed.yaml", "train: [../train/images]\nval: ../valid/images\nnames: [bolt]\n");
  CHECK_THROWS_WITH(read_detect_data_config(dir.file("export/listed.yaml")), Contains("listed.yaml:1:9"));
  // `validation:` is the val split where there is no `val:`; nc alone names the classes class_0 …
  write_text(dir / "export/validation.yaml", "train: train/images\nvalidation: valid/images\nnc: 3\n");
  const DetectDataConfig renamed = read_detect_data_config(dir.file("export/validation.yaml"));
  CHECK(renamed.val == std::vector<std::string>{(dir / "export/valid/images").string()});
  CHECK(renamed.names == std::vector<std::string>{"class_0", "class_1", "class_2"});
  // Names as a mapping whose indices are written as strings.
  write_text(dir / "export/quoted.yaml", "train: train/images\nval: valid/images\nnames: {'0': bolt, '1': nut}\n");
  CHECK(read_detect_data_config(dir.file("export/quoted.yaml")).names == std::vector<std::string>{"bolt", "nut"});
}

TEST_CASE("data.yaml errors name the file, the line and the key", "[detect-data]") {
  TempDir dir;
  touch_images(dir / "images", {"a.jpg"});
  const auto read = [&](const std::string& text) {
    write_text(dir / "data.yaml", text);
    return read_detect_data_config(dir.file("data.yaml"));
  };
  const std::string file = dir.file("data.yaml");
  CHECK_THROWS_WITH(read("train: images\nval: images\nnc: 3\nnames: [a, b]\n"),
                    Contains(file + ":3:") && Contains("'nc' is 3 but 'names' lists 2"));
  CHECK_THROWS_WITH(read("train: images\nnames: [a]\n"), Contains(file) && Contains("'val' is missing"));
  CHECK_THROWS_WITH(read("train: ''\nval: images\nnames: [a]\n"), Contains("'train' is missing or empty"));
  CHECK(read("train: images\nval: images\ntest: ''\nnames: [a]\n").test.empty());
  CHECK_THROWS_WITH(read("train: images\nval: missing\nnames: [a]\n"),
                    Contains(file + ":2:") && Contains("'val'") && Contains("missing does not exist"));
  CHECK_THROWS_WITH(read("train: images\nval: images\nnames: {0: a, 2: c}\n"),
                    Contains(file + ":3:") && Contains("'names'") && Contains("1 is missing"));
  CHECK_THROWS_WITH(read("train: images\nval: images\n"), Contains("'names'") && Contains("missing"));
  CHECK_THROWS_WITH(read("train: images\nval: images\nnames: [a\n"), Contains(file) && Contains("invalid YAML"));
  CHECK_THROWS_WITH(read_detect_data_config(dir.file("absent.yaml")), Contains("data file not found"));
  // nc alone names the classes the way Ultralytics does.
  CHECK(read("train: images\nval: images\nnc: 2\n").names == std::vector<std::string>{"class_0", "class_1"});
}

TEST_CASE("list_images fails clearly when a source holds no image", "[detect-data]") {
  TempDir dir;
  touch_images(dir / "empty", {"readme.md"});
  CHECK_THROWS_WITH(list_images({dir.file("empty")}), Contains("no images") && Contains(dir.file("empty")));
  CHECK_THROWS_WITH(list_images({dir.file("nowhere")}), Contains("no such image folder or list file"));
}

TEST_CASE("a relative path is tried from the working directory first, as Ultralytics does", "[detect-data]") {
  TempDir dir;
  touch_images(dir / "work/coco8/images/train", {"a.jpg"});
  touch_images(dir / "work/coco8/images/val", {"b.jpg"});
  write_text(dir / "sets/coco8.yaml",
             "path: coco8\ntrain: images/train\nval: images/val\nnames: [thing]\n"
             "download: https://example.com/coco8.zip\n");
  const std::filesystem::path previous = std::filesystem::current_path();
  std::filesystem::current_path(dir / "work");
  DetectDataConfig config;
  std::string from_elsewhere;
  try {
    config = read_detect_data_config(dir.file("sets/coco8.yaml"));
    std::filesystem::current_path(dir.path());
    read_detect_data_config(dir.file("sets/coco8.yaml"));
  } catch (const UserError& error) {
    from_elsewhere = error.what();
  }
  std::filesystem::current_path(previous);
  CHECK(config.root == dir / "work/coco8");
  CHECK(config.val == std::vector<std::string>{(dir / "work/coco8/images/val").string()});
  // Elsewhere, neither the working directory nor the file's folder holds it: nothing is downloaded.
  CHECK_THAT(from_elsewhere, Contains("coco8.yaml:1:7") && Contains("nor is coco8 from the working directory") &&
                                 Contains("`download:` is not run here") &&
                                 Contains("put the data under " + (dir / "sets/coco8").string()));
}

TEST_CASE("a relative path not in the working directory is looked for in datasets_dir, then beside the file",
          "[detect-data]") {
  TempDir dir;
  touch_images(dir / "store/coco8/images/train", {"a.jpg"});
  touch_images(dir / "store/coco8/images/val", {"b.jpg"});
  touch_images(dir / "beside/coco8/images/train", {"c.jpg"});
  touch_images(dir / "beside/coco8/images/val", {"d.jpg"});
  const std::string yaml = "path: coco8\ntrain: images/train\nval: images/val\nnames: [thing]\n";
  write_text(dir / "beside/coco8.yaml", yaml);
  write_text(dir / "sets/coco8.yaml", yaml);
  write_text(dir / "config/trainer/settings.yaml", "datasets_dir: " + dir.file("store") + "\n");
  const char* previous_config = std::getenv("XDG_CONFIG_HOME");
  const std::string saved_config = previous_config ? previous_config : "";
  setenv("XDG_CONFIG_HOME", dir.file("config").c_str(), 1);
  const std::filesystem::path previous = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  DetectDataConfig stored_first, stored, beside;
  std::string missing;
  try {
    // Ultralytics' order: datasets_dir before the file's folder.
    stored_first = read_detect_data_config(dir.file("beside/coco8.yaml"));
    stored = read_detect_data_config(dir.file("sets/coco8.yaml"));
    std::filesystem::remove_all(dir / "store");
    beside = read_detect_data_config(dir.file("beside/coco8.yaml"));
    read_detect_data_config(dir.file("sets/coco8.yaml"));
  } catch (const UserError& error) {
    missing = error.what();
  }
  std::filesystem::current_path(previous);
  if (previous_config) {
    setenv("XDG_CONFIG_HOME", saved_config.c_str(), 1);
  } else {
    unsetenv("XDG_CONFIG_HOME");
  }
  CHECK(stored_first.root == dir / "store/coco8");
  CHECK(beside.root == dir / "beside/coco8");
  CHECK(stored.root == dir / "store/coco8");
  CHECK(stored.val == std::vector<std::string>{(dir / "store/coco8/images/val").string()});
  CHECK_THAT(missing, Contains("nor under datasets_dir " + dir.file("store")));
}

TEST_CASE("predict's sources take files, folders and patterns, a URL is refused", "[detect-data]") {
  TempDir dir;
  touch_images(dir / "photos", {"a.jpg", "b.png", "c.jpg"});
  touch_images(dir / "more", {"d.jpg"});
  CHECK(image_paths({dir.file("photos/*.jpg"), dir.file("more")}) ==
        std::vector<std::string>{dir.file("photos/a.jpg"), dir.file("photos/c.jpg"), dir.file("more/d.jpg")});
  CHECK_THROWS_WITH(image_paths({dir.file("photos/*.gif")}), Contains("no image file matches"));
  CHECK_THROWS_WITH(image_paths({"https://ultralytics.com/images/bus.jpg"}),
                    Contains("is a URL") && Contains("no network access"));
}
