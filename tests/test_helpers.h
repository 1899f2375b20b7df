// Shared test fixtures: temporary folders and running the real binary.
#pragma once
#include <opencv2/core.hpp>
#include <spdlog/logger.h>
#include <ATen/core/ivalue.h>
#include <torch/nn/module.h>

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "io/checkpoint.h"

// Whether this process's heap is glibc's own, which keep_freed_host_memory() tunes:
// AddressSanitizer (scripts/test-sanitizers) replaces it.
#if defined(__SANITIZE_ADDRESS__)
#define TRAINER_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRAINER_TEST_ASAN 1
#endif
#endif
#if defined(__GLIBC__) && !defined(TRAINER_TEST_ASAN)
#define TRAINER_TEST_GLIBC_HEAP 1
#else
#define TRAINER_TEST_GLIBC_HEAP 0
#endif

namespace trainer::testing {

// A fresh, empty folder under the system temp dir, removed with its contents when the object dies.
class TempDir {
 public:
  explicit TempDir(const std::string& tag = "tmp");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

void write_text(const std::filesystem::path& path, const std::string& text);
std::string read_text(const std::filesystem::path& path);

// Routes spdlog's default logger into a string for the object's lifetime.
class CapturedLog {
 public:
  CapturedLog();
  ~CapturedLog();
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;
  std::string text() const { return stream_.str(); }

 private:
  std::ostringstream stream_;
  std::shared_ptr<spdlog::logger> previous_;
};

// A full disk for the object's lifetime: the process can write at most `bytes` into any file,
// and writes past that fail (EFBIG, with SIGXFSZ ignored) as they would with ENOSPC.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(uint64_t bytes);
  ~FileSizeLimit();
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  uint64_t previous_soft_limit_;
  void (*previous_handler_)(int);
};

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
// Runs a shell command line, capturing its output.
CommandResult run_command(const std::string& command);
// Runs the trainer binary built with the tests.
CommandResult run_trainer(const std::string& arguments);

// A shell command running in the background, its stdout and stderr going to a file; killed
// (SIGKILL) if still running when the object dies.
class BackgroundCommand {
 public:
  explicit BackgroundCommand(const std::string& command);
  ~BackgroundCommand();
  BackgroundCommand(const BackgroundCommand&) = delete;
  BackgroundCommand& operator=(const BackgroundCommand&) = delete;
  pid_t pid() const { return pid_; }
  // The exit code (128 + signal when killed by one), or nullopt when it runs on after `seconds`.
  std::optional<int> wait_for(double seconds);
  std::string output() const { return read_text(log_.path() / "output"); }

 private:
  TempDir log_{"background"};
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

// A TCP port of the loopback address that was free a moment ago.
int free_port();

// A two-class ImageFolder (root/{train,val}/{names}/i.png) of random colour squares: class 0
// dark, class 1 bright, so a ResNet separates them in a few updates.
struct TwoClassImages {
  int train_per_class = 12;
  int val_per_class = 6;
  int side = 16;
  int seed = 3;
  std::string dark = "dark";
  std::string bright = "bright";
};
void write_two_class_images(const std::filesystem::path& root, const TwoClassImages& spec = {});

// Tests that compare against PyTorch run scripts/python/<script> with the system interpreter
// (torch 1.13, torchvision 0.14); fails the test unless it exits 0.
void run_python(const std::string& script, const std::string& arguments);
inline std::string quoted(const std::string& text) { return "'" + text + "'"; }

// A temporary folder filled by `scripts/python/<script> OUTDIR [arguments]`. Tests keep one per run
// in a function-local static: the interpreter and torch take seconds to start.
class PythonOutput {
 public:
  explicit PythonOutput(const std::string& script, const std::string& arguments = "");
  std::string file(const std::string& name) const { return dir_.file(name); }

 private:
  TempDir dir_{"python"};
};

// The largest difference of two state dicts' floating tensors, each relative to the largest
// magnitude in its tensor (integer buffers such as num_batches_tracked are skipped).
double max_relative_difference(const NamedTensors& a, const NamedTensors& b);

// Elements of all parameters, frozen ones included (as Python's sum(p.numel() for p in m.parameters())).
int64_t parameter_count(const torch::nn::Module& module);

// The tensors of a pickled Python list (a fixture's "levels", "grads" …).
std::vector<torch::Tensor> tensor_list(const c10::IValue& list);

// Loads `weights` (a Python state dict) into `model`, runs it in eval mode on the "input" of the
// `reference` file and checks each of its "outputs" (per-level maps) within 1e-4.
void check_reference_outputs(torch::nn::Module& model,
                             const std::function<std::vector<torch::Tensor>(const torch::Tensor&)>& forward,
                             const std::string& weights, const std::string& reference);

// Samples 0..samples-1 in order, cut into batches of `batch` (the last one short).
std::vector<std::vector<size_t>> batches_of(size_t samples, int64_t batch);

// How an image differs from the one expected (same size and type, else the test stops): the
// values that differ and the largest difference, for tests that compare with a reference pixel
// for pixel.
struct PixelDifference {
  int values = 0;
  double largest = 0;
};
PixelDifference pixel_difference(const cv::Mat& image, const cv::Mat& expected);

// How many lines of `text` contain `needle`.
size_t count_lines(const std::string& text, const std::string& needle);
// The first line of `text` that contains `needle`, or "" (a command's output mixes its results with
// log lines).
std::string first_line_with(const std::string& text, const std::string& needle);

// The counts of a confusion_matrix.csv ([predicted][true]), without its names; class names in
// the tests hold no comma.
std::vector<std::vector<int64_t>> read_confusion_counts(const std::filesystem::path& path);

// Every .h and .cpp under the source tree's lib/ and apps/, relative to the tree (what the layer
// and function-length checks read).
std::vector<std::filesystem::path> library_and_app_sources();

}  // namespace trainer::testing
