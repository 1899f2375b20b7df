#include "config/recipe_keys.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

[[noreturn]] void fail(const std::string& key, const RecipeValue& value, const std::string& expected) {
  throw UserError(value.where + ": key '" + key + "' expects " + expected + ", got '" +
                  (value.is_null ? std::string("none") : value.text) + "'");
}

std::string show_double(double value) {
  std::ostringstream out;
  out.precision(std::numeric_limits<double>::max_digits10 - 2);
  out << value;
  return out.str();
}

bool is_auto(const RecipeValue& value) { return !value.is_null && to_lower(value.text) == "auto"; }

int64_t parse_int(const std::string& key, const RecipeValue& value, int64_t min, int64_t max) {
  const std::string range = "an integer in [" + std::to_string(min) + ", " +
                            (max == std::numeric_limits<int64_t>::max() ? std::string("inf")
                                                                       : std::to_string(max)) +
                            "]";
  if (value.is_null || value.text.empty()) fail(key, value, range);
  errno = 0;
  char* end = nullptr;
  const long long parsed = std::strtoll(value.text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || parsed < min || parsed > max) fail(key, value, range);
  return parsed;
}

double parse_double(const std::string& key, const RecipeValue& value, double min, double max,
                    bool max_inclusive = true, bool min_inclusive = true) {
  std::ostringstream range;
  range << "a number in " << (min_inclusive ? "[" : "(") << min << ", " << max << (max_inclusive ? "]" : ")");
  if (value.is_null || value.text.empty()) fail(key, value, range.str());
  errno = 0;
  char* end = nullptr;
  const double parsed = std::strtod(value.text.c_str(), &end);
  const bool in_range = (min_inclusive ? parsed >= min : parsed > min) && (max_inclusive ? parsed <= max : parsed < max);
  if (errno != 0 || *end != '\0' || !std::isfinite(parsed) || !in_range) fail(key, value, range.str());
  return parsed;
}

bool parse_bool(const std::string& key, const RecipeValue& value) {
  const std::string lowered = to_lower(value.text);
  if (!value.is_null && lowered == "true") return true;
  if (!value.is_null && lowered == "false") return false;
  fail(key, value, "true or false");
}

template <typename Enum>
Enum parse_enum(const std::string& key, const RecipeValue& value,
                const std::vector<std::pair<std::string, Enum>>& choices) {
  const std::string lowered = value.is_null ? "none" : to_lower(value.text);
  std::vector<std::string> names;
  for (const auto& [name, choice] : choices) {
    if (lowered == name) return choice;
    names.push_back(name);
  }
  fail(key, value, "one of " + join(names, ", "));
}

std::string parse_string(const std::string& key, const RecipeValue& value, bool allow_empty) {
  if (value.is_null || to_lower(value.text) == "none") {
    if (allow_empty) return "";
    fail(key, value, "a non-empty string");
  }
  if (value.text.empty() && !allow_empty) fail(key, value, "a non-empty string");
  return value.text;
}

// Comma-separated items, each trimmed; "none" or an empty value is the empty list.
std::vector<std::string> split_items(const RecipeValue& value) {
  std::vector<std::string> items;
  if (value.is_null || to_lower(value.text) == "none" || value.text.empty()) return items;
  size_t start = 0;
  while (true) {
    const size_t comma = value.text.find(',', start);
    items.push_back(trim(value.text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

template <typename T>
std::string join_items(const std::vector<T>& items) {
  if (items.empty()) return "none";
  std::ostringstream out;
  out.precision(std::numeric_limits<double>::max_digits10 - 2);
  for (size_t i = 0; i < items.size(); ++i) out << (i ? "," : "") << items[i];
  return out.str();
}

// Builders for the common key shapes, so each table row stays one line.
using Assign = std::function<void(Settings&, const RecipeValue&)>;
using Show = std::function<std::string(const Settings&)>;

RecipeKey int_key(std::string name, int64_t Settings::*field, int64_t min,
                  int64_t max = std::numeric_limits<int64_t>::max()) {
  return {name, false,
          [=](Settings& s, const RecipeValue& v) { s.*field = parse_int(name, v, min, max); },
          [=](const Settings& s) { return std::to_string(s.*field); }};
}

RecipeKey optional_int_key(std::string name, std::optional<int64_t> Settings::*field, int64_t min,
                           const std::string& unset_word) {
  return {name, false,
          [=](Settings& s, const RecipeValue& v) {
            const bool unset = unset_word == "auto" ? is_auto(v) : (v.is_null || to_lower(v.text) == "none");
            if (unset) {
              (s.*field).reset();
            } else {
              s.*field = parse_int(name, RecipeValue{v.text, v.is_null, v.where}, min,
                                   std::numeric_limits<int64_t>::max());
            }
          },
          [=](const Settings& s) {
            return (s.*field) ? std::to_string(*(s.*field)) : unset_word;
          }};
}

RecipeKey double_key(std::string name, double Settings::*field, double min, double max,
                     bool max_inclusive = true, bool min_inclusive = true) {
  return {name, false,
          [=](Settings& s, const RecipeValue& v) {
            s.*field = parse_double(name, v, min, max, max_inclusive, min_inclusive);
          },
          [=](const Settings& s) { return show_double(s.*field); }};
}

RecipeKey bool_key(std::string name, bool Settings::*field) {
  return {name, true, [=](Settings& s, const RecipeValue& v) { s.*field = parse_bool(name, v); },
          [=](const Settings& s) { return std::string(s.*field ? "true" : "false"); }};
}

RecipeKey string_key(std::string name, std::string Settings::*field, bool allow_empty) {
  return {name, false,
          [=](Settings& s, const RecipeValue& v) { s.*field = parse_string(name, v, allow_empty); },
          [=](const Settings& s) { return (s.*field).empty() ? std::string("none") : s.*field; }};
}

// bare_means_true: the key also takes true/false (listed in `choices`), so a bare key is allowed.
template <typename Enum>
RecipeKey enum_key(std::string name, Enum Settings::*field,
                   std::vector<std::pair<std::string, Enum>> choices, bool bare_means_true = false) {
  return {name, bare_means_true,
          [=](Settings& s, const RecipeValue& v) { s.*field = parse_enum(name, v, choices); },
          [=](const Settings& s) { return std::string(to_string(s.*field)); }};
}

std::string parse_device(const std::string& key, const RecipeValue& value) {
  const std::string lowered = to_lower(value.text);
  if (!value.is_null && (lowered == "auto" || lowered == "cpu" || lowered == "cuda")) return lowered;
  // Ultralytics' device=0 is the first GPU.
  if (!value.is_null && !lowered.empty() && lowered.find_first_not_of("0123456789") == std::string::npos) {
    return "cuda:" + lowered;
  }
  if (!value.is_null && lowered.rfind("cuda:", 0) == 0 && lowered.size() > 5 &&
      lowered.find_first_not_of("0123456789", 5) == std::string::npos) {
    return lowered;
  }
  if (lowered.find(',') != std::string::npos) {
    fail(key, value, "one device (a machine's GPUs train together with nproc=N device=cuda: rank r on cuda:r)");
  }
  fail(key, value, "auto, cpu, cuda, cuda:N or N");
}

RecipeKey string_list_key(std::string name, std::vector<std::string> Settings::*field) {
  return {name, false,
          [=](Settings& s, const RecipeValue& v) {
            s.*field = split_items(v);
            for (const auto& item : s.*field) {
              if (item.empty()) fail(name, v, "a list of non-empty names");
            }
          },
          [=](const Settings& s) { return join_items(s.*field); }, true};
}

RecipeKey double_list_key(std::string name, std::vector<double> Settings::*field, double min, double max) {
  return {name, false,
          [=](Settings& s, const RecipeValue& v) {
            (s.*field).clear();
            for (const auto& item : split_items(v)) {
              (s.*field).push_back(parse_double(name, RecipeValue{item, false, v.where}, min, max));
            }
          },
          [=](const Settings& s) { return join_items(s.*field); }, true};
}

// One number is a step (widths step, 2·step, … up to imgW); several are the widths themselves.
RecipeKey buckets_key() {
  return {"buckets", false,
          [](Settings& s, const RecipeValue& v) {
            const auto items = split_items(v);
            if (items.empty()) fail("buckets", v, "a width step or a list of widths");
            std::vector<int64_t> widths;
            for (const auto& item : items) {
              widths.push_back(parse_int("buckets", RecipeValue{item, false, v.where}, 8, 100000));
              if (widths.size() > 1 && widths.back() <= widths[widths.size() - 2]) {
                fail("buckets", v, "ascending widths");
              }
            }
            if (widths.size() == 1) {
              s.bucket_step = widths.front();
              s.bucket_widths.clear();
            } else {
              s.bucket_widths = widths;
            }
          },
          [](const Settings& s) {
            return s.bucket_widths.empty() ? std::to_string(s.bucket_step) : join_items(s.bucket_widths);
          },
          true};
}

// One number is a layer count (Ultralytics' freeze=10); otherwise the items are layer names.
RecipeKey freeze_key() {
  return {"freeze", false,
          [](Settings& s, const RecipeValue& v) {
            const auto items = split_items(v);
            s.freeze = {};
            if (items.size() == 1 && !items.front().empty() &&
                items.front().find_first_not_of("+-0123456789") == std::string::npos) {
              s.freeze.first_layers =
                  parse_int("freeze", RecipeValue{items.front(), false, v.where}, 0, std::numeric_limits<int64_t>::max());
              return;
            }
            for (const auto& item : items) {
              if (item.empty() || item.find_first_not_of("0123456789") == std::string::npos) {
                fail("freeze", v, "a number of layers or a list of layer names (model.0, layer1, FeatureExtraction)");
              }
            }
            s.freeze.layers = items;
          },
          [](const Settings& s) {
            return s.freeze.layers.empty() ? std::to_string(s.freeze.first_layers) : join_items(s.freeze.layers);
          },
          true};
}

std::vector<RecipeKey> build_table() {
  std::vector<RecipeKey> keys;
  keys.push_back(enum_key<TaskKind>("task", &Settings::task,
                                    {{"classify", TaskKind::classify}, {"ocr", TaskKind::ocr}, {"detect", TaskKind::detect}}));
  keys.push_back(string_key("model", &Settings::model, false));
  keys.push_back(string_key("data", &Settings::data, false));
  keys.push_back(string_key("pretrained", &Settings::pretrained, true));
  keys.push_back(enum_key<NormKind>("norm", &Settings::norm,
                                    {{"bn", NormKind::batch},
                                     {"gn", NormKind::group},
                                     {"frozen_bn", NormKind::frozen_batch},
                                     {"syncbn", NormKind::sync_batch}}));
  keys.push_back(freeze_key());

  keys.push_back(int_key("epochs", &Settings::epochs, 1));
  keys.push_back(int_key("batch", &Settings::batch, 1));
  keys.push_back(optional_int_key("accumulate", &Settings::accumulate, 1, "auto"));
  keys.push_back(int_key("nbs", &Settings::nbs, 1));
  keys.push_back(optional_int_key("imgsz", &Settings::imgsz, 8, "auto"));
  keys.push_back(double_key("fraction", &Settings::fraction, 0.0, 1.0, true, false));

  keys.push_back(int_key("workers", &Settings::workers, 0, 64));
  keys.push_back(int_key("prefetch", &Settings::prefetch, 1, 1024));
  keys.push_back(double_key("fliplr", &Settings::fliplr, 0.0, 1.0));
  keys.push_back(int_key("crop_pad", &Settings::crop_pad, 0, 1024));
  keys.push_back(double_key("erasing", &Settings::erasing, 0.0, 1.0));
  keys.push_back(enum_key<AutoAugmentPolicy>("auto_augment", &Settings::auto_augment,
                                             {{"none", AutoAugmentPolicy::none},
                                              {"randaugment", AutoAugmentPolicy::randaugment},
                                              {"autoaugment", AutoAugmentPolicy::autoaugment},
                                              {"trivialaugment", AutoAugmentPolicy::trivialaugment},
                                              {"false", AutoAugmentPolicy::none}}));
  keys.push_back(int_key("randaugment_ops", &Settings::randaugment_ops, 1, 14));
  keys.push_back(int_key("randaugment_magnitude", &Settings::randaugment_magnitude, 0, 30));
  keys.push_back(double_key("crop_fraction", &Settings::crop_fraction, 0.0, 1.0, true, false));
  keys.push_back(double_key("mixup_alpha", &Settings::mixup_alpha, 0.0, 100.0));
  keys.push_back(double_key("cutmix_alpha", &Settings::cutmix_alpha, 0.0, 100.0));
  keys.push_back(double_key("mixup_prob", &Settings::mixup_prob, 0.0, 1.0));
  keys.push_back(double_key("mixup_switch_prob", &Settings::mixup_switch_prob, 0.0, 1.0));
  keys.push_back(double_key("max_bad_fraction", &Settings::max_bad_fraction, 0.0, 1.0));
  keys.push_back(enum_key<ImageCacheMode>("cache", &Settings::cache,
                                          {{"false", ImageCacheMode::off},
                                           {"ram", ImageCacheMode::ram},
                                           {"true", ImageCacheMode::ram},
                                           {"none", ImageCacheMode::off}},
                                          true));

  keys.push_back({"device", false,
                  [](Settings& s, const RecipeValue& v) { s.device = parse_device("device", v); },
                  [](const Settings& s) { return s.device; }});
  keys.push_back(int_key("threads", &Settings::threads, 0, 1024));
  keys.push_back(int_key("seed", &Settings::seed, 0));
  keys.push_back(bool_key("deterministic", &Settings::deterministic));

  keys.push_back(int_key("nproc", &Settings::nproc, 0, 1024));
  keys.push_back(int_key("nnodes", &Settings::nnodes, 1, 65536));
  keys.push_back(int_key("node_rank", &Settings::node_rank, 0, 65535));
  keys.push_back(string_key("master_addr", &Settings::master_addr, true));
  keys.push_back(int_key("master_port", &Settings::master_port, 0, 65535));
  keys.push_back(enum_key<DistBackend>("dist_backend", &Settings::dist_backend,
                                       {{"auto", DistBackend::automatic},
                                        {"gloo", DistBackend::gloo},
                                        {"nccl", DistBackend::nccl}}));
  keys.push_back(int_key("dist_timeout", &Settings::dist_timeout, 1, 86400));

  keys.push_back(enum_key<OptimizerKind>("optimizer", &Settings::optimizer,
                                         {{"auto", OptimizerKind::automatic},
                                          {"sgd", OptimizerKind::sgd},
                                          {"adamw", OptimizerKind::adamw}}));
  keys.push_back(double_key("lr0", &Settings::lr0, 1e-12, 10.0));
  keys.push_back(double_key("lrf", &Settings::lrf, 0.0, 1.0));
  keys.push_back(double_key("momentum", &Settings::momentum, 0.0, 1.0, false));
  keys.push_back(double_key("weight_decay", &Settings::weight_decay, 0.0, 1.0));
  keys.push_back({"lr_scale", false,
                  [](Settings& s, const RecipeValue& v) {
                    const std::string lowered = v.is_null ? "none" : to_lower(v.text);
                    if (lowered == "none") {
                      s.lr_scale = LrScaleRule::none;
                    } else if (lowered == "linear") {
                      s.lr_scale = LrScaleRule::linear;
                    } else if (lowered == "sqrt") {
                      s.lr_scale = LrScaleRule::sqrt;
                    } else {
                      char* end = nullptr;
                      const double factor = std::strtod(v.text.c_str(), &end);
                      if (*end != '\0' || !(factor > 0.0) || !std::isfinite(factor)) {
                        fail("lr_scale", v, "none, linear, sqrt or a positive factor per doubling");
                      }
                      s.lr_scale = LrScaleRule::factor;
                      s.lr_scale_factor = factor;
                    }
                  },
                  [](const Settings& s) { return lr_scale_text(s); }});
  keys.push_back(int_key("lr_base_batch", &Settings::lr_base_batch, 1));
  keys.push_back(enum_key<SchedulerKind>("scheduler", &Settings::scheduler,
                                         {{"linear", SchedulerKind::linear},
                                          {"cosine", SchedulerKind::cosine},
                                          {"onecycle", SchedulerKind::onecycle},
                                          {"constant", SchedulerKind::constant}}));
  keys.push_back(double_key("warmup_epochs", &Settings::warmup_epochs, 0.0, 1e6));
  keys.push_back(optional_int_key("warmup_updates", &Settings::warmup_updates, 0, "none"));
  keys.push_back(double_key("warmup_momentum", &Settings::warmup_momentum, 0.0, 1.0, false));
  keys.push_back(double_key("warmup_bias_lr", &Settings::warmup_bias_lr, 0.0, 10.0));
  keys.push_back(double_key("grad_clip", &Settings::grad_clip, 0.0, 1e9));
  keys.push_back(double_key("label_smoothing", &Settings::label_smoothing, 0.0, 1.0, false));
  // true/false are accepted as Ultralytics spells them: amp=true, a bare `amp`, amp=false.
  keys.push_back(enum_key<AmpMode>("amp", &Settings::amp,
                                   {{"auto", AmpMode::automatic},
                                    {"off", AmpMode::off},
                                    {"fp16", AmpMode::fp16},
                                    {"bf16", AmpMode::bf16},
                                    {"true", AmpMode::automatic},
                                    {"false", AmpMode::off}},
                                   true));
  keys.push_back(bool_key("ema", &Settings::ema));
  keys.push_back(double_key("ema_decay", &Settings::ema_decay, 0.0, 1.0, false));
  keys.push_back(double_key("ema_tau", &Settings::ema_tau, 1e-9, 1e12));
  keys.push_back(enum_key<CompileMode>("compile", &Settings::compile,
                                       {{"none", CompileMode::none},
                                        {"default", CompileMode::standard},
                                        {"reduce-overhead", CompileMode::reduce_overhead},
                                        {"max-autotune", CompileMode::max_autotune},
                                        {"true", CompileMode::standard},
                                        {"false", CompileMode::none}},
                                       true));
  keys.push_back(string_key("compile_cache_dir", &Settings::compile_cache_dir, true));
  keys.push_back(int_key("compile_cache_limit", &Settings::compile_cache_limit, 1, 1000000));

  keys.push_back(int_key("imgH", &Settings::img_h, 32, 4096));
  keys.push_back(int_key("imgW", &Settings::img_w, 8, 100000));
  keys.push_back(bool_key("rgb", &Settings::rgb));
  keys.push_back(string_key("charset", &Settings::charset, true));
  keys.push_back(string_key("number", &Settings::number, true));
  keys.push_back(string_key("symbol", &Settings::symbol, true));
  keys.push_back(string_key("lang_char", &Settings::lang_char, true));
  keys.push_back(int_key("batch_max_length", &Settings::batch_max_length, 1, 100000));
  keys.push_back(bool_key("sensitive", &Settings::sensitive));
  keys.push_back(bool_key("data_filtering_off", &Settings::data_filtering_off));
  keys.push_back(string_list_key("select_data", &Settings::select_data));
  keys.push_back(double_list_key("batch_ratio", &Settings::batch_ratio, 0.0, 1e6));
  keys.push_back(buckets_key());
  keys.push_back(int_key("output_channel", &Settings::output_channel, 4, 4096));
  keys.push_back(int_key("hidden_size", &Settings::hidden_size, 4, 4096));
  keys.push_back(double_key("elastic", &Settings::elastic, 0.0, 100.0));
  keys.push_back(double_key("dropout", &Settings::dropout, 0.0, 1.0, false));

  keys.push_back(double_key("mosaic", &Settings::mosaic, 0.0, 1.0));
  keys.push_back(int_key("close_mosaic", &Settings::close_mosaic, 0));
  keys.push_back(double_key("mixup", &Settings::mixup, 0.0, 1.0));
  keys.push_back(double_key("degrees", &Settings::degrees, 0.0, 180.0));
  keys.push_back(double_key("translate", &Settings::translate, 0.0, 1.0));
  keys.push_back(double_key("scale", &Settings::scale, 0.0, 1.0, false));
  keys.push_back(double_key("shear", &Settings::shear, 0.0, 90.0, false));
  keys.push_back(double_key("perspective", &Settings::perspective, 0.0, 0.001));
  keys.push_back(double_key("hsv_h", &Settings::hsv_h, 0.0, 1.0));
  keys.push_back(double_key("hsv_s", &Settings::hsv_s, 0.0, 1.0));
  keys.push_back(double_key("hsv_v", &Settings::hsv_v, 0.0, 1.0));
  keys.push_back(double_key("flipud", &Settings::flipud, 0.0, 1.0));
  keys.push_back(int_key("max_boxes", &Settings::max_boxes, 1, 100000));
  keys.push_back(bool_key("strict", &Settings::strict));
  keys.push_back(bool_key("single_cls", &Settings::single_cls));
  keys.push_back(double_key("box", &Settings::box, 0.0, 1e6));
  keys.push_back(double_key("cls", &Settings::cls, 0.0, 1e6));
  keys.push_back(double_key("dfl", &Settings::dfl, 0.0, 1e6));
  keys.push_back({"conf", false,
                  [](Settings& s, const RecipeValue& v) {
                    if (v.is_null || to_lower(v.text) == "none") {
                      s.conf.reset();
                    } else {
                      s.conf = parse_double("conf", v, 0.0, 1.0);
                    }
                  },
                  [](const Settings& s) { return s.conf ? show_double(*s.conf) : std::string("none"); }});
  keys.push_back(double_key("iou", &Settings::iou, 1e-6, 1.0));
  keys.push_back(int_key("max_det", &Settings::max_det, 1, 100000));

  keys.push_back(string_key("project", &Settings::project, false));
  keys.push_back(string_key("name", &Settings::name, false));
  keys.push_back(bool_key("exist_ok", &Settings::exist_ok));
  keys.push_back({"save_period", false,
                  [](Settings& s, const RecipeValue& v) {
                    s.save_period = parse_int("save_period", v, -1, std::numeric_limits<int64_t>::max());
                    if (s.save_period == 0) fail("save_period", v, "-1 (off) or a positive integer");
                  },
                  [](const Settings& s) { return std::to_string(s.save_period); }});
  keys.push_back(int_key("save_interval", &Settings::save_interval, 0));
  keys.push_back({"resume", true,
                  [](Settings& s, const RecipeValue& v) {
                    const std::string lowered = to_lower(v.text);
                    s.resume = v.is_null || lowered == "false" || lowered == "none" ? ""
                               : lowered == "true"                                 ? "true"
                                                                                   : v.text;
                  },
                  [](const Settings& s) { return s.resume.empty() ? std::string("false") : s.resume; }});
  keys.push_back(bool_key("resume_force", &Settings::resume_force));
  keys.push_back(int_key("patience", &Settings::patience, 1));
  keys.push_back(bool_key("val", &Settings::val));
  keys.push_back(bool_key("plots", &Settings::plots));
  return keys;
}

}  // namespace

const std::vector<RecipeKey>& recipe_keys() {
  static const std::vector<RecipeKey> table = build_table();
  return table;
}

const RecipeKey* find_recipe_key(const std::string& name) {
  for (const auto& key : recipe_keys()) {
    if (key.name == name) return &key;
  }
  return nullptr;
}

std::vector<std::string> recipe_key_names() {
  std::vector<std::string> names;
  for (const auto& key : recipe_keys()) names.push_back(key.name);
  return names;
}

}  // namespace trainer
