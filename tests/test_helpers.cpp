#include "test_helpers.h"

#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <numeric>
#include <chrono>
#include <csignal>
#include <thread>
#include <cstdio>
#include <fstream>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "data/sampler.h"
#include "io/tensor_archive.h"
#include "io/pretrained.h"

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

FileSizeLimit::FileSizeLimit(uint64_t bytes) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_FSIZE, &limit) != 0) throw std::runtime_error("getrlimit(RLIMIT_FSIZE) failed");
  previous_soft_limit_ = limit.rlim_cur;
  limit.rlim_cur = bytes;
  if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) throw std::runtime_error("setrlimit(RLIMIT_FSIZE) failed");
  previous_handler_ = std::signal(SIGXFSZ, SIG_IGN);
}

FileSizeLimit::~FileSizeLimit() {
  rlimit limit{};
  ::getrlimit(RLIMIT_FSIZE, &limit);
  limit.rlim_cur = previous_soft_limit_;
  ::setrlimit(RLIMIT_FSIZE, &limit);
  std::signal(SIGXFSZ, previous_handler_);
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

BackgroundCommand::BackgroundCommand(const std::string& command) {
  const std::string shell_command = "exec " + command + " > '" + (log_.path() / "output").string() + "' 2>&1";
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed for: " + command);
  if (pid_ == 0) {
    execl("/bin/sh", "sh", "-c", shell_command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
}

BackgroundCommand::~BackgroundCommand() {
  if (exit_code_) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

std::optional<int> BackgroundCommand::wait_for(double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!exit_code_) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    } else if (std::chrono::steady_clock::now() >= deadline) {
      break;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  return exit_code_;
}

int free_port() {
  const int socket_fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (socket_fd < 0 || bind(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      getsockname(socket_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error("cannot find a free port");
  }
  close(socket_fd);
  return ntohs(address.sin_port);
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

double max_relative_difference(const NamedTensors& a, const NamedTensors& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    INFO(a[i].first);
    REQUIRE(a[i].first == b[i].first);
    if (!a[i].second.is_floating_point()) continue;
    const double scale = std::max(a[i].second.abs().max().item<double>(), 1e-12);
    worst = std::max(worst, (a[i].second - b[i].second).abs().max().item<double>() / scale);
  }
  return worst;
}

std::vector<torch::Tensor> tensor_list(const c10::IValue& list) {
  std::vector<torch::Tensor> tensors;
  for (const c10::IValue& tensor : list.toListRef()) tensors.push_back(tensor.toTensor());
  return tensors;
}

int64_t parameter_count(const torch::nn::Module& module) {
  int64_t count = 0;
  for (const torch::Tensor& parameter : module.parameters()) count += parameter.numel();
  return count;
}

void check_reference_outputs(torch::nn::Module& model,
                             const std::function<std::vector<torch::Tensor>(const torch::Tensor&)>& forward,
                             const std::string& weights, const std::string& reference) {
  load_pretrained(model, weights);
  model.eval();
  const c10::impl::GenericDict file = read_archive(reference).toGenericDict();
  const c10::List<c10::IValue> expected = file.at("outputs").toList();
  torch::NoGradGuard no_grad;
  const std::vector<torch::Tensor> outputs = forward(file.at("input").toTensor());
  REQUIRE(outputs.size() == expected.size());
  for (size_t level = 0; level < outputs.size(); ++level) {
    INFO("level " << level);
    const torch::Tensor want = expected.get(level).toTensor();
    REQUIRE(outputs[level].sizes() == want.sizes());
    CHECK(torch::allclose(outputs[level], want, 1e-4, 1e-4));
  }
}

std::vector<std::vector<size_t>> batches_of(size_t samples, int64_t batch) {
  std::vector<size_t> order(samples);
  std::iota(order.begin(), order.end(), size_t{0});
  return make_batches(order, batch, false);
}

PixelDifference pixel_difference(const cv::Mat& image, const cv::Mat& expected) {
  REQUIRE(image.size() == expected.size());
  REQUIRE(image.type() == expected.type());
  cv::Mat difference;
  cv::absdiff(image, expected, difference);
  PixelDifference result;
  cv::minMaxLoc(difference.reshape(1), nullptr, &result.largest);
  result.values = cv::countNonZero(difference.reshape(1));
  return result;
}

size_t count_lines(const std::string& text, const std::string& needle) {
  size_t count = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) count += line.find(needle) != std::string::npos;
  return count;
}

std::string first_line_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) return line;
  }
  return "";
}

std::vector<std::vector<int64_t>> read_confusion_counts(const std::filesystem::path& path) {
  std::vector<std::vector<int64_t>> rows;
  std::istringstream in(read_text(path));
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    std::istringstream cells(line);
    std::string cell;
    std::getline(cells, cell, ',');  // the row's name
    rows.emplace_back();
    while (std::getline(cells, cell, ',')) rows.back().push_back(std::stoll(cell));
  }
  return rows;
}

std::vector<std::filesystem::path> library_and_app_sources() {
  const std::filesystem::path root = TRAINER_SOURCE_DIR;
  std::vector<std::filesystem::path> sources;
  for (const char* top : {"lib", "apps"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / top)) {
      const std::string extension = entry.path().extension().string();
      if (extension == ".h" || extension == ".cpp") sources.push_back(std::filesystem::relative(entry.path(), root));
    }
  }
  return sources;
}

}  // namespace trainer::testing
