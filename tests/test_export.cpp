// trainer export end to end: a tiny trained run exports .pt and .safetensors weights that
// torchvision loads strictly and that reproduce `trainer predict`, and that pretrained= takes.
#include <catch2/catch.hpp>

#include <regex>

#include "io/checkpoint.h"
#include "io/safetensors.h"
#include "test_helpers.h"

using namespace trainer::testing;

namespace {

// "name probability" pairs from one line of `trainer predict` output.
std::map<std::string, double> probabilities_of(const std::string& line) {
  std::map<std::string, double> out;
  const std::regex pair(R"(([a-z]+) ([0-9.]+))");
  const std::string tail = line.substr(line.find(": ") + 2);
  for (std::sregex_iterator it(tail.begin(), tail.end(), pair), end; it != end; ++it) {
    out[(*it)[1]] = std::stod((*it)[2]);
  }
  return out;
}

}  // namespace

TEST_CASE("export writes weights torchvision loads strictly and pretrained= takes", "[cli][e2e]") {
  TempDir dir("cli-export");
  write_two_class_images(dir / "data", {8, 8, 16, 5});
  const auto project = dir / "runs";
  const CommandResult train = run_trainer("train data=" + (dir / "data").string() +
                                          " model=resnet18 epochs=1 batch=4 imgsz=16 workers=1 project=" +
                                          project.string() + " name=tiny");
  INFO(train.output);
  REQUIRE(train.exit_code == 0);
  const auto weights = project / "tiny" / "weights";
  const std::string checkpoint = (weights / "last.pt").string();

  const auto run_export = [&](const std::string& arguments) {
    const CommandResult result = run_trainer("export --weights " + checkpoint + " " + arguments);
    INFO(arguments << "\n" << result.output);
    CHECK(result.exit_code == 0);
    CHECK_THAT(result.output, Catch::Contains("exported 122 tensors (EMA weights, epoch 1"));
    return result;
  };
  run_export("--format pt -o " + (dir / "full.pt").string());
  run_export("");  // safetensors, next to the checkpoint
  run_export("--half --format pt");  // .pt next to a .pt checkpoint: last.weights.pt, not last.pt
  run_export("--half -o " + (dir / "half.safetensors").string());
  const CommandResult model = run_trainer("export --model-weights --weights " + checkpoint + " -o " +
                                          (dir / "model.safetensors").string());
  CHECK_THAT(model.output, Catch::Contains("(model weights"));
  for (const auto& file : {weights / "last.safetensors", weights / "last.weights.pt", dir / "model.safetensors"}) {
    INFO(file);
    CHECK(std::filesystem::exists(file));
  }

  const std::string image = (dir / "data" / "val" / "bright" / "0.png").string();
  const CommandResult predict = run_trainer("predict --weights " + checkpoint + " --digits 7 --top 2 --source " + image);
  INFO(predict.output);
  REQUIRE(predict.exit_code == 0);
  const std::string line = first_line_with(predict.output, image + ": ");
  REQUIRE_FALSE(line.empty());
  const std::map<std::string, double> expected = probabilities_of(line);
  REQUIRE(expected.size() == 2);

  // Python loads the .pt with weights_only=True into torchvision's ResNet18 strictly; its softmax in
  // eval mode is the class order of the folder names (bright, dark).
  const CommandResult python = run_command(
      "/usr/bin/python3 '" TRAINER_SOURCE_DIR "/scripts/python/safetensors_fixture.py' export " +
      quoted((dir / "full.pt").string()) + " " + quoted((weights / "last.safetensors").string()) + " " +
      quoted((weights / "last.weights.pt").string()) + " " + quoted((dir / "half.safetensors").string()) + " " +
      quoted(image));
  INFO(python.output);
  REQUIRE(python.exit_code == 0);
  std::smatch match;
  REQUIRE(std::regex_search(python.output, match, std::regex(R"(probabilities ([0-9.]+) ([0-9.]+))")));
  CHECK(std::abs(std::stod(match[1]) - expected.at("bright")) < 1e-4);
  CHECK(std::abs(std::stod(match[2]) - expected.at("dark")) < 1e-4);

  for (const auto& file : {weights / "last.safetensors", dir / "half.safetensors"}) {
    const CommandResult again = run_trainer("train data=" + (dir / "data").string() +
                                            " model=resnet18 epochs=1 batch=4 imgsz=16 workers=1 val=false project=" +
                                            project.string() + " name=again pretrained=" + file.string());
    INFO(again.output);
    CHECK(again.exit_code == 0);
    CHECK_THAT(again.output, Catch::Contains("pretrained: loaded 122 tensors from " + file.string()));
  }
}

TEST_CASE("export refuses bad arguments and names the file", "[cli]") {
  TempDir dir("cli-export-errors");
  const CommandResult missing = run_trainer("export --weights " + (dir / "missing.pt").string());
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains("missing.pt"));

  const CommandResult format = run_trainer("export --weights x.pt --format tflite");
  CHECK(format.exit_code == 2);
  CHECK_THAT(format.output, Catch::Contains("tflite"));

  // A checkpoint without EMA: its model weights are exported, integer tensors stay integers.
  trainer::Checkpoint checkpoint;
  checkpoint.task = "classify";
  checkpoint.epoch = 4;
  checkpoint.model = {{"w", torch::ones({2, 2})}, {"steps", torch::tensor({3}, torch::kLong)}};
  const std::string path = (dir / "plain.pt").string();
  trainer::save_checkpoint(path, checkpoint);
  const CommandResult half = run_trainer("export --half -w " + path);
  INFO(half.output);
  CHECK(half.exit_code == 0);
  CHECK_THAT(half.output, Catch::Contains("exported 2 tensors (model weights, epoch 4, fp16)"));
  const auto tensors = trainer::read_safetensors((dir / "plain.safetensors").string());
  REQUIRE(tensors.size() == 2);
  CHECK(tensors[0].second.scalar_type() == torch::kHalf);
  CHECK(tensors[1].second.scalar_type() == torch::kLong);
  const auto metadata = trainer::read_safetensors_metadata((dir / "plain.safetensors").string());
  CHECK(metadata.at("epoch") == "4");
  CHECK(metadata.at("weights") == "model");
  CHECK(metadata.at("source") == path);

  const CommandResult itself = run_trainer("export -w " + path + " -o " + path);
  CHECK(itself.exit_code == 2);
  CHECK_THAT(itself.output, Catch::Contains("is the checkpoint itself"));
  const CommandResult conflict = run_trainer("export -w " + path + " --format pt -o " + (dir / "x.safetensors").string());
  CHECK(conflict.exit_code == 2);
  CHECK_THAT(conflict.output, Catch::Contains("x.safetensors"));
  const std::string nowhere = (dir / "no-such-folder" / "w.safetensors").string();
  const CommandResult folder = run_trainer("export -w " + path + " -o " + nowhere);
  CHECK(folder.exit_code == 2);
  CHECK_THAT(folder.output, Catch::Contains(nowhere));
  const std::string nowhere_pt = (dir / "no-such-folder" / "w.pt").string();
  const CommandResult folder_pt = run_trainer("export -w " + path + " -o " + nowhere_pt);
  CHECK(folder_pt.exit_code == 2);
  CHECK_THAT(folder_pt.output, Catch::Contains(nowhere_pt));
}
