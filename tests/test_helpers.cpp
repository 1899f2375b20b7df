#include "test_helpers.h"

#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace trainer::testing {

TempDir::TempDir(const std::string& tag) {
  std::string pattern = (std::filesystem::temp_directory_path() / ("trainer-test-" + tag + "-XXXXXX")).string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

CapturedLog::CapturedLog() : previous_(spdlog::default_logger()) {
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("captured", std::make_shared<spdlog::sinks::ostream_sink_mt>(stream_)));
}

CapturedLog::~CapturedLog() { spdlog::set_default_logger(previous_); }

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path);
  out << text;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed for: " + command);
  std::array<char, 4096> chunk{};
  size_t read = 0;
  while ((read = fread(chunk.data(), 1, chunk.size(), pipe)) > 0) result.output.append(chunk.data(), read);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

CommandResult run_trainer(const std::string& arguments) {
  return run_command(std::string(TRAINER_BINARY) + " " + arguments);
}

void write_two_class_images(const std::filesystem::path& root, const TwoClassImages& spec) {
  cv::RNG rng(static_cast<uint64_t>(spec.seed));
  for (const char* split : {"train", "val"}) {
    for (int label = 0; label < 2; ++label) {
      const auto folder = root / split / (label ? spec.bright : spec.dark);
      std::filesystem::create_directories(folder);
      const int count = std::string(split) == "train" ? spec.train_per_class : spec.val_per_class;
      for (int i = 0; i < count; ++i) {
        cv::Mat image(spec.side, spec.side, CV_8UC3);
        rng.fill(image, cv::RNG::UNIFORM, label ? 150 : 0, label ? 255 : 100);
        cv::imwrite((folder / (std::to_string(i) + ".png")).string(), image);
      }
    }
  }
}

void run_python(const std::string& script, const std::string& arguments) {
  const CommandResult result =
      run_command("/usr/bin/python3 '" TRAINER_SOURCE_DIR "/scripts/python/" + script + "' " + arguments);
  INFO(script << " " << arguments << "\n" << result.output);
  REQUIRE(result.exit_code == 0);
}

PythonOutput::PythonOutput(const std::string& script, const std::string& arguments) {
  run_python(script, quoted(dir_.file("")) + (arguments.empty() ? "" : " " + arguments));
}

int64_t parameter_count(const torch::nn::Module& module) {
  int64_t count = 0;
  for (const torch::Tensor& parameter : module.parameters()) count += parameter.numel();
  return count;
}

}  // namespace trainer::testing
