#include "small_commands.h"

#include <ATen/Parallel.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/version.h>
#include <opencv2/core/version.hpp>
#include <opencv2/imgcodecs.hpp>

#include <cstdio>
#include <filesystem>
#include <thread>

#include "config/key_docs.h"
#include "config/user_settings.h"
#include "util/error.h"
#include "util/file_write.h"
#include "util/memory.h"
#include "util/onednn_check.h"

#ifndef TRAINER_VERSION
#error "TRAINER_VERSION comes from CMake's project() version"
#endif

namespace trainer::app {
namespace {

constexpr const char* kCopyFile = "default_copy.yaml";

// One line of `checks`; a failed check that a run needs makes the command fail.
struct CheckLines {
  bool failed = false;
  void line(const std::string& name, const std::string& value) {
    std::printf("  %-22s %s\n", name.c_str(), value.c_str());
  }
  void check(const std::string& name, bool passed, const std::string& value) {
    line(name, (passed ? "" : "FAILED: ") + value);
    failed = failed || !passed;
  }
};

std::string gigabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f GB", bytes / 1e9);
  return text;
}

void check_libraries(CheckLines& lines) {
  lines.line("trainer", trainer_version());
  lines.line("LibTorch", TORCH_VERSION);
  const torch::Tensor product = torch::ones({2, 2}).matmul(torch::ones({2, 2}));
  lines.check("tensors", product.sum().item<float>() == 8.0f, "a matrix product computes");
  lines.line("OpenCV", CV_VERSION);
  std::vector<uchar> png;
  const cv::Mat image(4, 4, CV_8UC3, cv::Scalar(10, 20, 30));
  const bool encoded = cv::imencode(".png", image, png);
  const cv::Mat decoded = encoded ? cv::imdecode(png, cv::IMREAD_COLOR) : cv::Mat();
  lines.check("image codecs", !decoded.empty() && cv::norm(decoded, image) == 0.0, "PNG encodes and decodes");
}

void check_devices(CheckLines& lines) {
  lines.line("threads", std::to_string(at::get_num_threads()) + " intra-op of " +
                            std::to_string(std::thread::hardware_concurrency()) + " cores");
  const bool agree = onednn_convolution_gradients_agree();
  lines.line("oneDNN check", agree ? std::string("passed (convolutions run on ") + cpu_convolution_kernels() + ")"
                                   : "failed: convolutions run on ATen's kernels (docs/training.md)");
#ifdef TRAINER_CUDA
  const bool cuda = torch::cuda::is_available();
  lines.check("CUDA", cuda,
              cuda ? std::to_string(torch::cuda::device_count()) + " device(s)" : "no CUDA device visible");
  if (at::detail::getCUDAHooks().hasCuDNN())
    lines.line("cuDNN", std::to_string(at::detail::getCUDAHooks().versionCuDNN()));
  for (int64_t index = 0; cuda && index < static_cast<int64_t>(torch::cuda::device_count()); ++index) {
    const c10::Device device(c10::kCUDA, static_cast<c10::DeviceIndex>(index));
    lines.line("cuda:" + std::to_string(index), device_name(device) + ", " + gigabytes(total_memory_mb(device) * 1e6));
  }
#else
  lines.line("CUDA", "not in this build (CPU only)");
#endif
}

void check_space(CheckLines& lines) {
  const int64_t memory = available_host_memory_bytes();
  lines.line("memory available", memory < 0 ? std::string("unknown") : gigabytes(static_cast<double>(memory)));
  std::error_code error;
  const std::filesystem::space_info disk = std::filesystem::space(".", error);
  lines.check("disk free here", !error && disk.available > (1u << 30),
              error ? error.message() : gigabytes(static_cast<double>(disk.available)) + " (1 GB needed)");
  const std::filesystem::path settings = user_settings_file();
  lines.line("user settings",
             settings.string() + (std::filesystem::exists(settings, error) ? "" : " (none: defaults)"));
}

}  // namespace

const char* trainer_version() { return TRAINER_VERSION; }

int run_version() {
  std::printf("%s\n", trainer_version());
  return 0;
}

int run_checks() {
  CheckLines lines;
  std::printf("trainer checks\n");
  check_libraries(lines);
  check_devices(lines);
  check_space(lines);
  std::printf("%s\n", lines.failed ? "checks FAILED" : "checks passed");
  return lines.failed ? 1 : 0;
}

int run_copy_cfg() {
  std::error_code error;
  if (std::filesystem::exists(kCopyFile, error)) {
    throw UserError(std::string(kCopyFile) + " exists here; move it away first (copy-cfg never overwrites a recipe)");
  }
  write_file(kCopyFile, default_recipe_yaml());
  std::printf("wrote %s\ntrain with it: trainer train cfg=%s\n", (std::filesystem::current_path() / kCopyFile).c_str(),
              kCopyFile);
  return 0;
}

int run_cfg() {
  std::printf("%s", default_recipe_yaml().c_str());
  return 0;
}

int run_settings(const std::vector<std::string>& arguments) {
  if (arguments.size() == 1 && arguments.front() == "reset") {
    reset_user_settings();
  } else if (!arguments.empty()) {
    update_user_settings(arguments);
  }
  std::printf("# %s\n", user_settings_file().c_str());
  for (const auto& [name, value] : setting_rows(load_user_settings()))
    std::printf("%s: %s\n", name.c_str(), value.c_str());
  return 0;
}

}  // namespace trainer::app
