#include "run/results_csv.h"

#include <cmath>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "util/atomic_file.h"
#include "util/text.h"

namespace trainer {

ResultsTable read_results(const std::filesystem::path& path) {
  ResultsTable table;
  std::ifstream in(path);
  std::string line;
  const auto cells = [](const std::string& text) {
    std::vector<std::string> out(1);
    for (char c : text) {
      if (c == ',') {
        out.emplace_back();
      } else {
        out.back() += c;
      }
    }
    return out;
  };
  if (!std::getline(in, line)) return table;
  table.header = cells(line);
  while (std::getline(in, line)) {
    std::vector<double> row;
    for (const auto& cell : cells(line)) {
      row.push_back(cell.empty() ? std::nan("") : std::strtod(cell.c_str(), nullptr));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

ResultsCsv::ResultsCsv(std::filesystem::path path, int64_t keep_epochs)
    : path_(std::move(path)), keep_epochs_(keep_epochs) {}

std::vector<std::string> ResultsCsv::columns(const std::vector<std::string>& loss_names,
                                             const std::vector<std::string>& metric_names) {
  std::vector<std::string> header{"epoch"};
  for (const auto& name : loss_names) header.push_back("train/" + name);
  header.insert(header.end(), metric_names.begin(), metric_names.end());
  for (const char* name : {"lr", "grad_norm", "skipped_updates", "seconds", "images_per_second", "peak_memory_mb",
                           "input_shapes", "graph_captures"}) {
    header.emplace_back(name);
  }
  return header;
}

void ResultsCsv::on_start(const TrainingPlan&, const std::vector<std::string>& loss_names,
                          const std::vector<std::string>& metric_names) {
  metric_names_ = metric_names;
  std::vector<std::string> kept;
  if (keep_epochs_ >= 0) {
    std::ifstream in(path_);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      if (std::strtoll(line.c_str(), nullptr, 10) <= keep_epochs_) kept.push_back(line);
    }
  }
  text_ = join(columns(loss_names, metric_names), ",") + "\n";
  for (const auto& line : kept) text_ += line + "\n";
  // A resumed run's rows survive a failed rewrite (a full disk) as they were.
  write_file_atomically(path_, text_);
}

void ResultsCsv::on_epoch_end(const EpochRecord& record) {
  std::vector<std::string> row{std::to_string(record.epoch)};
  for (double loss : record.losses) row.push_back(fmt::format("{:.6g}", loss));
  for (const auto& name : metric_names_) {
    std::string cell;  // empty when the epoch was not validated
    for (const auto& [metric, value] : record.metrics) {
      if (metric == name) cell = fmt::format("{:.6g}", value);
    }
    row.push_back(cell);
  }
  row.push_back(fmt::format("{:.6g}", record.lr));
  row.push_back(fmt::format("{:.6g}", record.grad_norm));
  row.push_back(std::to_string(record.skipped_updates));
  row.push_back(fmt::format("{:.3f}", record.seconds));
  row.push_back(fmt::format("{:.1f}", record.images_per_second));
  row.push_back(fmt::format("{:.1f}", record.peak_memory_mb));
  row.push_back(std::to_string(record.input_shapes));
  row.push_back(std::to_string(record.graph_captures));
  // The whole file again, atomically: an append cut short (a full disk, a kill) would leave half a row.
  write_file_atomically(path_, text_ + join(row, ",") + "\n");
  text_ += join(row, ",") + "\n";
}

}  // namespace trainer
