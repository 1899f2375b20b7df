#include "run/results_csv.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "util/atomic_file.h"
#include "util/text.h"

namespace trainer {

namespace {

std::vector<std::string> split_cells(const std::string& text) {
  std::vector<std::string> out(1);
  for (char c : text) {
    if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

}  // namespace

ResultsTable read_results(const std::filesystem::path& path) {
  ResultsTable table;
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return table;
  table.header = split_cells(line);
  while (std::getline(in, line)) {
    std::vector<double> row;
    for (const auto& cell : split_cells(line)) {
      row.push_back(cell.empty() ? std::nan("") : std::strtod(cell.c_str(), nullptr));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

ResultsCsv::ResultsCsv(std::filesystem::path path, std::optional<ResumedRows> resumed)
    : path_(std::move(path)), resumed_(resumed) {}

std::vector<std::string> ResultsCsv::columns(const std::vector<std::string>& loss_names,
                                             const std::vector<std::string>& metric_names) {
  std::vector<std::string> header{"epoch"};
  for (const auto& name : loss_names) header.push_back("train/" + name);
  header.insert(header.end(), metric_names.begin(), metric_names.end());
  for (const char* name : {"lr", "grad_norm", "skipped_updates", "seconds", "images_per_second", "peak_memory_mb",
                           "input_shapes", "graph_captures", "updates"}) {
    header.emplace_back(name);
  }
  return header;
}

std::vector<std::string> ResultsCsv::kept_rows(const std::vector<std::string>& header) const {
  std::ifstream in(path_);
  std::string line;
  if (!resumed_ || !std::getline(in, line)) return {};
  const std::vector<std::string> saved_header = split_cells(line);
  const auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(saved_header.begin(), saved_header.end(), name) - saved_header.begin());
  };
  const bool by_updates = column("updates") < saved_header.size();
  const size_t position = by_updates ? column("updates") : column("epoch");
  const int64_t limit = by_updates ? resumed_->updates : resumed_->epochs;
  std::vector<std::string> kept;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split_cells(line);
    if (position >= cells.size() || std::strtoll(cells[position].c_str(), nullptr, 10) > limit) continue;
    std::vector<std::string> row;
    for (const auto& name : header) row.push_back(column(name) < cells.size() ? cells[column(name)] : "");
    kept.push_back(join(row, ","));
  }
  return kept;
}

void ResultsCsv::on_start(const TrainingPlan&, const std::vector<std::string>& loss_names,
                          const std::vector<std::string>& metric_names) {
  metric_names_ = metric_names;
  const std::vector<std::string> header = columns(loss_names, metric_names);
  text_ = join(header, ",") + "\n";
  for (const auto& line : kept_rows(header)) text_ += line + "\n";
  // A resumed run's rows survive a failed rewrite (a full disk) as they were.
  write_file_atomically(path_, text_);
}

void ResultsCsv::on_epoch_end(const EpochRecord& record) {
  std::vector<std::string> row{std::to_string(record.epoch)};
  for (double loss : record.losses) row.push_back(fmt::format("{:.6g}", loss));
  for (const auto& name : metric_names_) {
    std::string cell;  // empty when the row was not validated
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
  row.push_back(std::to_string(record.updates));
  // The whole file again, atomically: an append cut short (a full disk, a kill) would leave half a row.
  write_file_atomically(path_, text_ + join(row, ",") + "\n");
  text_ += join(row, ",") + "\n";
}

}  // namespace trainer
