// Run folders as Ultralytics lays them out (get_save_dir and increment_path): <project>/<name> when
// project= is given, <runs_dir>/<task>/<name> when not; a new numbered folder unless exist_ok. The
// names of the files in it are spelled here once.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>

namespace trainer {

// The files of one run folder. An empty root is a run that writes no files (smoke runs, tests,
// every rank but 0): then every path is empty too.
struct RunFolder {
  std::filesystem::path root;

  bool writes() const { return !root.empty(); }
  std::filesystem::path weights() const { return in("weights"); }
  std::filesystem::path last() const { return in("weights/last.pt"); }  // resumable, every epoch
  std::filesystem::path best() const { return in("weights/best.pt"); }
  std::filesystem::path epoch(int64_t epoch) const { return in("weights/epoch" + std::to_string(epoch) + ".pt"); }
  // keep_best's (timm's --checkpoint-hist) checkpoint of an epoch.
  std::filesystem::path kept(int64_t epoch) const {
    return in("weights/checkpoint-" + std::to_string(epoch) + ".pt");
  }
  std::filesystem::path args() const { return in("args.yaml"); }
  std::filesystem::path results_csv() const { return in("results.csv"); }
  std::filesystem::path results_png() const { return in("results.png"); }

  // The run folder a weights/last.pt (or any checkpoint in weights/) belongs to.
  static RunFolder of_checkpoint(const std::filesystem::path& checkpoint);

 private:
  std::filesystem::path in(const std::string& name) const { return root.empty() ? root : root / name; }
};

// Creates and returns parent/name, or parent/name2, name3, … when it exists and !exist_ok.
std::filesystem::path make_numbered_folder(const std::filesystem::path& parent, const std::string& name,
                                           bool exist_ok);

// The folder a task's run folders (and its val/ and predict/ folders) go in: the project itself
// when one is given (project=P name=N is P/N), else the user settings' runs_dir/<task>
// (runs/detect/N).
std::filesystem::path runs_parent(const std::string& project, const std::string& task);

// Creates parent/name (or name2, name3, … when taken and !exist_ok) with its weights/ folder.
RunFolder make_run_folder(const std::filesystem::path& parent, const std::string& name,
                          bool exist_ok);

}  // namespace trainer
