#include "run/progress.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace trainer {
namespace {

std::string clock_text(double seconds) {
  const auto total = static_cast<int64_t>(seconds + 0.5);
  if (total >= 3600) return fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
  return fmt::format("{:02}:{:02}", total / 60, total % 60);
}

}  // namespace

ConsoleProgress::Style ConsoleProgress::detect_style(bool quiet) {
  if (quiet) return Style::quiet;
  return ::isatty(STDOUT_FILENO) ? Style::bar : Style::lines;
}

ConsoleProgress::ConsoleProgress(Style style, double line_interval_seconds)
    : style_(style), line_interval_seconds_(line_interval_seconds) {}

void ConsoleProgress::on_start(const TrainingPlan& plan, const std::vector<std::string>& loss_names,
                               const std::vector<std::string>& metric_names) {
  loss_names_ = loss_names;
  last_line_ = std::chrono::steady_clock::now();
  if (style_ == Style::quiet) return;
  const std::string ranks = plan.world_size > 1 ? " x " + std::to_string(plan.world_size) + " ranks" : "";
  const std::string length = plan.length_in_updates ? fmt::format(" = {} updates (updates=)", plan.total_updates) : "";
  const std::string validation =
      plan.val_interval > 0 ? fmt::format(", validating every {} updates", plan.val_interval) : "";
  std::printf("training: %lld epochs x %lld updates%s (batch %lld x accumulate %lld%s = %lld)%s, %s, amp %s\n",
              static_cast<long long>(plan.epochs), static_cast<long long>(plan.updates_per_epoch), length.c_str(),
              static_cast<long long>(plan.micro_batch), static_cast<long long>(plan.accumulate), ranks.c_str(),
              static_cast<long long>(plan.effective_batch), validation.c_str(), plan.device.str().c_str(),
              amp_text(plan).c_str());
  std::fflush(stdout);
}

std::string ConsoleProgress::status_line(const ProgressInfo& info) const {
  std::string losses;
  for (size_t i = 0; i < info.losses.size() && i < loss_names_.size(); ++i) {
    losses += fmt::format(" {} {:.4f}", loss_names_[i], info.losses[i]);
  }
  return fmt::format("epoch {}/{} update {}/{}{} lr {:.3g} |g| {:.3g} {:.2f} it/s {:.0f} img/s {:.0f} MB {} <{}",
                     info.epoch, info.epochs, info.update, info.updates_per_epoch, losses, info.lr,
                     info.grad_norm, info.updates_per_second, info.images_per_second, info.memory_mb,
                     clock_text(info.elapsed_seconds), clock_text(info.eta_seconds));
}

void ConsoleProgress::on_progress(const ProgressInfo& info) {
  if (style_ == Style::quiet) return;
  if (style_ == Style::bar) {
    constexpr int kWidth = 20;
    const int filled = static_cast<int>(kWidth * info.update / std::max<int64_t>(info.updates_per_epoch, 1));
    const std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '.');
    std::printf("\r\033[K[%s] %s", bar.c_str(), status_line(info).c_str());
    bar_open_ = true;
    std::fflush(stdout);
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  const bool epoch_done = info.update == info.updates_per_epoch;
  if (!epoch_done && std::chrono::duration<double>(now - last_line_).count() < line_interval_seconds_) return;
  last_line_ = now;
  std::printf("%s\n", status_line(info).c_str());
  std::fflush(stdout);
}

void ConsoleProgress::on_validation_start(int64_t epoch) {
  if (style_ == Style::quiet) return;
  if (bar_open_) std::printf("\n");
  bar_open_ = false;
  std::printf("validating epoch %lld ...\n", static_cast<long long>(epoch));
  std::fflush(stdout);
}

void ConsoleProgress::on_epoch_end(const EpochRecord& record) {
  if (style_ == Style::quiet) return;
  if (bar_open_) std::printf("\n");
  bar_open_ = false;
  std::string line =
      fmt::format("epoch {}, update {}: trained {} at {:.0f} img/s, peak {:.0f} MB", record.epoch, record.updates,
                  clock_text(record.seconds), record.images_per_second, record.peak_memory_mb);
  for (const auto& [name, value] : record.metrics) line += fmt::format(", {} {:.4f}", name, value);
  if (record.skipped_updates) line += fmt::format(", {} updates skipped (inf/NaN)", record.skipped_updates);
  std::printf("%s%s\n", line.c_str(), record.best ? " (best)" : "");
  std::fflush(stdout);
}

}  // namespace trainer
