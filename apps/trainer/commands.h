// One function per subcommand; main() only parses the command line and maps errors to exit codes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/dialect.h"
#include "config/settings.h"
#include "data/synth/synth_detect.h"
#include "data/synth/synth_digits.h"
#include "data/synth/synth_printed.h"
#include "export_arguments.h"
#include "io/export_weights.h"

namespace trainer::app {

struct CommonOptions {
  std::optional<std::string> config;
  std::vector<std::string> overrides;
  Dialect dialect = Dialect::ultralytics;  // of the command's keys (config/command_arguments.h)
  bool quiet = false;
};

int run_train(const CommonOptions& options);
int run_val(const CommonOptions& options, const std::string& weights);
int run_predict(const CommonOptions& options, const std::string& weights, const std::vector<std::string>& sources,
                int64_t top_k, int digits);
// probe_updates > 0: also compare the compile modes (`probe_modes`, all when empty) over that many
// timed updates each.
int run_plan(const CommonOptions& options, int64_t probe_updates, const std::vector<CompileMode>& probe_modes);
int run_smoke(const CommonOptions& options);
int run_keys(const CommonOptions& options);
// docs/recipe-keys.md, or with tool timm, ultralytics or easyocr: docs/timm.md, docs/ultralytics.md or docs/easyocr.md.
int run_keys_markdown(const std::string& tool);
int run_export(const ExportRequest& request);
int run_data_digits(const SynthDigitsOptions& options);
int run_data_printed(const SynthPrintedOptions& options);
// force: replace what an earlier run wrote to options.root.
int run_data_synth_detect(const SynthDetectOptions& options, bool force);

}  // namespace trainer::app
