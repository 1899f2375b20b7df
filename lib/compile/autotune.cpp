#include "compile/autotune.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/version.h>

#include <fstream>
#include <sstream>

#include "compile/shape_registry.h"
#include "config/user_settings.h"
#include "io/json_reader.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/fnv1a.h"
#include "util/memory.h"

namespace trainer {
namespace {

// Updates timed per candidate and round after its warm-up update: enough to see past timer
// noise, few enough that choosing costs seconds, not minutes (R30: each probe is logged).
constexpr int64_t kTimedUpdates = 3;

bool member_flag(const Json& object, const char* name) {
  const auto member = object.find(name);
  if (member == object.end() || !member->is_boolean()) throw JsonError(std::string("no boolean '") + name + "'");
  return member->get<bool>();
}

}  // namespace

std::string autotune_key(const Task& task, const Settings& settings, const TrainingPlan& plan,
                         const ParameterCounts& parameters, c10::IntArrayRef input_shape) {
  const std::string device = device_name(plan.device) +
                             (plan.device.is_cpu() ? fmt::format(" x{} threads", plan.threads) : std::string());
  // Trainable parameters too: a frozen backbone changes what the backward pass costs.
  return fmt::format(
      "task={} model={} classes={} parameters={} trainable={} input={} accumulate={} amp={} device={} libtorch={}",
      task.name(), settings.run.model, task.classes(), parameters.total, parameters.trainable, shape_text(input_shape),
      plan.accumulate, amp_text(plan), device, TORCH_VERSION);
}

std::filesystem::path compile_cache_dir(const Settings& settings) {
  if (!settings.execution.compile_cache_dir.empty()) return settings.execution.compile_cache_dir;
  const std::string& project = settings.output.project;
  return std::filesystem::path(project.empty() ? load_user_settings().runs_dir : project) /
         "compile-cache";
}

std::filesystem::path AutotuneCache::file_for(const std::string& key) const {
  return folder_ / fmt::format("autotune-{:016x}.json", fnv1a(key));
}

std::optional<ExecutionConfig> AutotuneCache::find(const std::string& key) const {
  const std::filesystem::path path = file_for(key);
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  try {
    const Json json = parse_json(text.str());
    if (!json.is_object()) throw JsonError("not a JSON object");
    const auto stored_key = json.find("key");
    // A hash collision or a hand-edited file: measure again rather than trust it.
    if (stored_key == json.end() || !stored_key->is_string() || stored_key->get<std::string>() != key) {
      return std::nullopt;
    }
    const auto decision = json.find("decision");
    if (decision == json.end() || !decision->is_object()) throw JsonError("no 'decision'");
    ExecutionConfig config;
    config.channels_last = member_flag(*decision, "channels_last");
    config.graphs = member_flag(*decision, "graphs");
    config.cudnn_benchmark = member_flag(*decision, "cudnn_benchmark");
    config.tf32 = member_flag(*decision, "tf32");
    return config;
  } catch (const JsonError& error) {
    spdlog::warn("ignoring the unreadable autotune decision {} ({}); measuring again", path.string(), error.what());
    return std::nullopt;
  }
}

void AutotuneCache::store(const std::string& key, const ExecutionConfig& decision,
                          const std::vector<ProbeMeasurement>& measurements) const {
  Json measured = Json::array();
  for (const ProbeMeasurement& m : measurements) {
    measured.push_back({{"config", m.config.describe()},
                        {"first_update_seconds", m.first_update_seconds},
                        {"seconds_per_update", m.seconds_per_update},
                        {"peak_memory_mb", m.peak_memory_mb}});
  }
  const Json json = {{"key", key},
                     {"decision",
                      {{"channels_last", decision.channels_last},
                       {"graphs", decision.graphs},
                       {"cudnn_benchmark", decision.cudnn_benchmark},
                       {"tf32", decision.tf32}}},
                     {"measured", std::move(measured)}};
  const std::filesystem::path path = file_for(key);
  std::error_code error;
  std::filesystem::create_directories(folder_, error);
  if (error) throw UserError("cannot create compile_cache_dir " + folder_.string() + ": " + error.message());
  write_file_atomically(path, json.dump() + "\n");
}

ExecutionConfig autotune_execution(Task& task, const Settings& settings, const TrainingPlan& plan,
                                   const std::vector<ExecutionConfig>& candidates, Collective& collective) {
  TORCH_CHECK(!candidates.empty(), "max-autotune needs candidates");
  if (candidates.size() == 1) return candidates.front();
  const std::vector<Batch> batches = probe_batches(task, settings, plan, plan.accumulate * (kTimedUpdates + 1));
  const std::string key =
      autotune_key(task, settings, plan, count_parameters(task.model()), batches.front().input.sizes());
  const AutotuneCache cache(compile_cache_dir(settings));

  // Rank 0's cache decides for every rank: -1 = measure, else the candidate's index.
  double cached_index = -1;
  if (collective.layout().is_main()) {
    if (const auto cached = cache.find(key)) {
      for (size_t i = 0; i < candidates.size(); ++i) {
        if (candidates[i] == *cached) cached_index = static_cast<double>(i);
      }
    }
  }
  cached_index = collective.all_reduce({collective.layout().is_main() ? cached_index : -1e18}, Reduction::max)[0];
  if (cached_index >= 0) {
    const ExecutionConfig& decision = candidates[static_cast<size_t>(cached_index)];
    spdlog::info("max-autotune: reusing the decision in {}: {}", cache.file_for(key).string(), decision.describe());
    return decision;
  }

  spdlog::info("max-autotune: measuring {} candidates over the first updates", candidates.size());
  const std::vector<ProbeMeasurement> measurements =
      probe_in_turns(task, settings, plan, candidates, batches, kTimedUpdates);
  const double tolerance = same_numbers_tolerance(plan.amp_dtype.has_value());
  size_t fastest = 0;
  for (size_t i = 1; i < candidates.size(); ++i) {
    if (!computes_alike(measurements[i], measurements.front(), tolerance)) {
      spdlog::warn("max-autotune: leaving out {}: its first update gives loss {:.6g} and gradient norm {:.6g} "
                   "where {} gives {:.6g} and {:.6g}, more than rounding explains (LibTorch {}; "
                   "docs/training.md, \"Known problem\")",
                   candidates[i].describe(), measurements[i].first_update_loss,
                   measurements[i].first_update_grad_norm, candidates.front().describe(),
                   measurements.front().first_update_loss, measurements.front().first_update_grad_norm, TORCH_VERSION);
      continue;
    }
    if (clearly_faster(measurements[i].seconds_per_update, measurements[fastest].seconds_per_update)) fastest = i;
  }
  const double chosen = collective.all_reduce(
      {collective.layout().is_main() ? static_cast<double>(fastest) : -1e18}, Reduction::max)[0];
  const ExecutionConfig& decision = candidates[static_cast<size_t>(chosen)];
  if (collective.layout().is_main()) {
    cache.store(key, decision, measurements);
    spdlog::info("max-autotune: chose {}; stored in {}", decision.describe(), cache.file_for(key).string());
  }
  return decision;
}

}  // namespace trainer
