#include "config/recipe_keys.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <spdlog/spdlog.h>

#include "config/device_list.h"
#include "config/foreign_keys.h"
#include "config/key_rows.h"
#include "config/timm_rand_augment_text.h"
#include "util/text.h"

namespace trainer {
namespace {

constexpr ForeignTool kUltralytics = ForeignTool::ultralytics;
constexpr ForeignTool kEasyOcr = ForeignTool::easyocr;
constexpr ForeignTool kTimm = ForeignTool::timm;

// Ultralytics' device=0 is the first GPU, [7] or '7' the eighth; -1 lets it pick the idlest GPU
// (`idle`: select_idle_gpu's choice when the run starts, the CPU without one); a list (0,1 or [0,1,2,3] or -1,-1) trains one rank per GPU
// (config/device_list.h). Apple's mps is a device this build has none of: LibTorch here runs on
// the CPU and CUDA only.
std::string parse_device(const std::string& key, const RecipeValue& value) {
  const std::vector<std::string> items = split_items(value);
  const std::string lowered = items.size() == 1 ? to_lower(items.front()) : to_lower(value.text);
  if (!value.is_null && (lowered == "auto" || lowered == "cpu" || lowered == "cuda" || lowered == "idle" ||
                          lowered == "-1")) {
    return lowered == "-1" ? "idle" : lowered;
  }
  if (!value.is_null && !lowered.empty() && lowered.find_first_not_of("0123456789") == std::string::npos) {
    return "cuda:" + lowered;
  }
  if (!value.is_null && lowered.rfind("cuda:", 0) == 0 && lowered.size() > 5 &&
      lowered.find_first_not_of("0123456789", 5) == std::string::npos) {
    return lowered;
  }
  if (lowered == "mps" || lowered.rfind("mps:", 0) == 0) {
    fail_value(key, value,
               "auto, cpu, cuda or cuda:N: Apple's Metal GPU (mps) is not a device of this build, which runs on the "
               "CPU and CUDA");
  }
  if (const std::optional<std::string> list = device_list_text(items)) return *list;
  if (items.size() > 1) fail_value(key, value, "one device, or a list of GPU indices (0,1 or [0,1,2,3]; -1 = idle)");
  fail_value(key, value, "auto, cpu, cuda, cuda:N or N");
}

// Ultralytics' batch is also a share of GPU memory (0.8) or -1 (60 %), its AutoBatch.
constexpr double kAutoBatchShare = 0.6;

KeyRow batch_key() {
  return custom_key(
      "batch", int_range_text(1, kNoUpperBound) + ", -1 or a share in (0, 1)",
      [](Settings& s, const RecipeValue& v) {
        char* end = nullptr;
        const double number = std::strtod(v.text.c_str(), &end);
        if (!v.text.empty() && *end == '\0' && (number == -1.0 || (number > 0.0 && number < 1.0))) {
          s.schedule.auto_batch = number == -1.0 ? kAutoBatchShare : number;
          return;
        }
        s.schedule.auto_batch.reset();
        s.schedule.batch = parse_int("batch", v, 1, kNoUpperBound);
      },
      [](const Settings& s) {
        if (!s.schedule.auto_batch) return std::to_string(s.schedule.batch);
        return *s.schedule.auto_batch == kAutoBatchShare ? std::string("-1") : show_double(*s.schedule.auto_batch);
      });
}

// Ultralytics' imgsz for training is one side; a [h, w] list is reduced to its largest side with a
// warning, as its check_imgsz(max_dim=1) does for train and val.
// timm's --input-size C H W: square inputs only, the channels being the data's.
void square_input_size(Settings& settings, const RecipeValue& value) {
  const std::vector<std::string> items = split_items(value);
  const std::string expected = "C H W with C 1 or 3 and H = W (inputs are square here)";
  if (items.size() != 3) fail_value("input_size", value, expected);
  const int64_t channels = parse_int("input_size", {items[0], false, value.where}, 1, 3);
  const int64_t height = parse_int("input_size", {items[1], false, value.where}, 8, kNoUpperBound);
  if (channels == 2 || parse_int("input_size", {items[2], false, value.where}, 8, kNoUpperBound) != height)
    fail_value("input_size", value, expected);
  settings.data.imgsz = height;
}

KeyRow imgsz_key() {
  return custom_key(
             "imgsz", "auto or " + int_range_text(8, kNoUpperBound),
             [](Settings& s, const RecipeValue& v) {
               const std::vector<std::string> items = split_items(v);
               if (items.size() <= 1) {
                 s.data.imgsz = is_auto(v) ? std::nullopt : std::optional<int64_t>(parse_int("imgsz", v, 8, kNoUpperBound));
                 return;
               }
               int64_t largest = 0;
               for (const auto& item : items) largest = std::max(largest, parse_int("imgsz", {item, false, v.where}, 8, kNoUpperBound));
               spdlog::warn("{}: imgsz={} is a [h, w] size; training takes one side and uses imgsz={}, as "
                            "Ultralytics' training does", v.where, v.text, largest);
               s.data.imgsz = largest;
             },
             [](const Settings& s) { return s.data.imgsz ? std::to_string(*s.data.imgsz) : std::string("auto"); })
      .list();
}

// One number is a step (widths step, 2·step, … up to imgW); several are the widths themselves.
KeyRow buckets_key() {
  return custom_key(
             "buckets", "a step ≥ 8, or a list of widths",
             [](Settings& s, const RecipeValue& v) {
               const auto items = split_items(v);
               if (items.empty()) fail_value("buckets", v, "a width step or a list of widths");
               std::vector<int64_t> widths;
               for (const auto& item : items) {
                 widths.push_back(parse_int("buckets", {item, false, v.where}, 8, 100000));
                 if (widths.size() > 1 && widths.back() <= widths[widths.size() - 2]) {
                   fail_value("buckets", v, "ascending widths");
                 }
               }
               if (widths.size() == 1) {
                 s.ocr.bucket_step = widths.front();
                 s.ocr.bucket_widths.clear();
               } else {
                 s.ocr.bucket_widths = widths;
               }
             },
             [](const Settings& s) {
               return s.ocr.bucket_widths.empty() ? std::to_string(s.ocr.bucket_step) : show_items(s.ocr.bucket_widths);
             })
      .list();
}

// One number is a layer count (Ultralytics' freeze=10); otherwise the items are layer names.
KeyRow freeze_key() {
  return custom_key(
             "freeze", "N ≥ 0, or a list of layer names",
             [](Settings& s, const RecipeValue& v) {
               const auto items = split_items(v);
               s.run.freeze = {};
               // One number is a count (freeze: 10); Ultralytics' list [10] is layer 10 alone.
               if (items.size() == 1 && !v.is_sequence && !items.front().empty() &&
                   items.front().find_first_not_of("+-0123456789") == std::string::npos) {
                 s.run.freeze.first_layers = parse_int("freeze", {items.front(), false, v.where}, 0, kNoUpperBound);
                 return;
               }
               // Ultralytics' freeze: [0, 1, 2] lists layer indices: its model.0, model.1, model.2.
               const auto is_index = [](const std::string& item) {
                 return !item.empty() && item.find_first_not_of("0123456789") == std::string::npos;
               };
               const bool indices = std::all_of(items.begin(), items.end(), is_index);
               for (const auto& item : items) {
                 if (item.empty() || (!indices && is_index(item))) {
                   fail_value("freeze", v,
                              "a number of layers, a list of layer indices or a list of layer names (model.0, "
                              "layer1, FeatureExtraction)");
                 }
                 s.run.freeze.layers.push_back(indices ? "model." + item : item);
               }
             },
             [](const Settings& s) {
               return s.run.freeze.layers.empty() ? std::to_string(s.run.freeze.first_layers) : show_items(s.run.freeze.layers);
             })
      .list();
}

KeyRow lr_scale_key() {
  return custom_key(
      "lr_scale", "none, linear, sqrt, a number",
      [](Settings& s, const RecipeValue& v) {
        const std::string lowered = v.is_null ? "none" : to_lower(v.text);
        if (lowered == "none") {
          s.schedule.lr_scale = LrScaleRule::none;
        } else if (lowered == "linear") {
          s.schedule.lr_scale = LrScaleRule::linear;
        } else if (lowered == "sqrt") {
          s.schedule.lr_scale = LrScaleRule::sqrt;
        } else {
          char* end = nullptr;
          const double factor = std::strtod(v.text.c_str(), &end);
          if (*end != '\0' || !(factor > 0.0) || !std::isfinite(factor)) {
            fail_value("lr_scale", v, "none, linear, sqrt or a positive factor per doubling");
          }
          s.schedule.lr_scale = LrScaleRule::factor;
          s.schedule.lr_scale_factor = factor;
        }
      },
      [](const Settings& s) { return lr_scale_text(s.schedule); });
}

// timm's --decay-milestones: ascending epochs.
KeyRow decay_milestones_key() {
  return custom_key(
             "decay_milestones", "ascending epochs ≥ 0",
             [](Settings& s, const RecipeValue& v) {
               std::vector<int64_t>& milestones = s.schedule.decay_milestones;
               milestones.clear();
               for (const auto& item : split_list_items(v)) {
                 milestones.push_back(parse_int("decay_milestones", {item, false, v.where}, 0, kNoUpperBound));
                 if (milestones.size() > 1 && milestones.back() <= milestones[milestones.size() - 2])
                   fail_value("decay_milestones", v, "epochs in ascending order");
               }
             },
             [](const Settings& s) { return show_items(s.schedule.decay_milestones); })
      .list();
}

// timm's --lr is the learning rate itself: no scaling by the batch, which its --lr-base gets.
void unscaled_lr(Settings& settings, const RecipeValue& value) {
  settings.optim.lr0 = parse_double("lr", value, 0.0, 10.0, {false, true});
  settings.schedule.lr_scale = LrScaleRule::none;
}

KeyRow conf_key() {
  return custom_key(
      "conf", "none or [0, 1]",
      [](Settings& s, const RecipeValue& v) {
        if (is_none(v)) {
          s.detect.conf.reset();
        } else {
          s.detect.conf = parse_double("conf", v, 0.0, 1.0);
        }
      },
      [](const Settings& s) { return s.detect.conf ? show_double(*s.detect.conf) : std::string("none"); });
}

KeyRow end2end_key() {
  return custom_key(
      "end2end", "none, true or false",
      [](Settings& s, const RecipeValue& v) {
        if (is_none(v)) {
          s.detect.end2end.reset();
        } else {
          s.detect.end2end = parse_bool("end2end", v);
        }
      },
      [](const Settings& s) {
        return s.detect.end2end ? std::string(*s.detect.end2end ? "true" : "false") : std::string("none");
      });
}

KeyRow save_period_key() {
  return custom_key(
      "save_period", "-1 or ≥ 1 (0 = -1)",
      [](Settings& s, const RecipeValue& v) {
        // Ultralytics: "disabled if < 1".
        s.output.save_period = std::max<int64_t>(parse_int("save_period", v, -1, kNoUpperBound), 0);
        if (s.output.save_period == 0) s.output.save_period = -1;
      },
      [](const Settings& s) { return std::to_string(s.output.save_period); });
}

KeyRow resume_key() {
  return custom_key(
             "resume", "false, true, a path",
             [](Settings& s, const RecipeValue& v) {
               const std::string lowered = to_lower(v.text);
               s.output.resume = v.is_null || lowered == "false" || lowered == "none" ? ""
                          : lowered == "true"                                 ? "true"
                                                                              : v.text;
             },
             [](const Settings& s) { return s.output.resume.empty() ? std::string("false") : s.output.resume; })
      .bare_means_true();
}

// EasyOCR's `optim`: False (or none) trains with Adadelta, `adam` with Adam (its train.py).
void easyocr_optimizer(Settings& settings, const RecipeValue& value) {
  const std::string lowered = value.is_null ? "false" : to_lower(value.text);
  if (lowered == "false" || lowered == "none") {
    settings.optim.kind = OptimizerKind::adadelta;
  } else if (lowered == "adam") {
    settings.optim.kind = OptimizerKind::adam;
  } else {
    fail_value("optim", value, "False (Adadelta) or adam, as EasyOCR's train.py reads it");
  }
}

// Ultralytics' other optimizer names are refused with what to use instead.
KeyRow optimizer_key() {
  static const std::vector<std::pair<std::string, std::string>> refused = {
      {"adamax", "Adamax (Adam with an infinity norm) has no fused update here; adam is the nearest"},
      {"nadam", "NAdam (Adam with Nesterov momentum) has no fused update here; adam or adamw is the nearest"},
      {"radam", "RAdam (rectified Adam) has no fused update here; adam with warmup is the usual stand-in"},
      {"rmsprop", "torch's RMSProp has no fused update here; rmsproptf (timm's TensorFlow-style RMSprop) is the nearest"},
  };
  static const std::vector<OptimizerKind> kinds = {OptimizerKind::automatic, OptimizerKind::sgd, OptimizerKind::adamw,
                                                   OptimizerKind::adam, OptimizerKind::adadelta, OptimizerKind::musgd,
                                                   OptimizerKind::rmsproptf};
  const std::string values = "auto, sgd, adamw, adam, adadelta, musgd, rmsproptf";
  return custom_key(
      "optimizer", values,
      [values](Settings& s, const RecipeValue& v) {
        const std::string lowered = v.is_null ? "none" : to_lower(v.text);
        for (OptimizerKind kind : kinds) {
          if (lowered == to_string(kind)) {
            s.optim.kind = kind;
            return;
          }
        }
        for (const auto& [name, reason] : refused) {
          if (lowered == name) fail_value("optimizer", v, "one of " + values + ": " + reason);
        }
        fail_value("optimizer", v, "one of " + values);
      },
      [](const Settings& s) { return std::string(to_string(s.optim.kind)); });
}

// torchvision's policies by name (false is none), or timm's RandAugment by its string.
KeyRow auto_augment_key() {
  static const std::vector<AutoAugmentPolicy> policies = {AutoAugmentPolicy::none, AutoAugmentPolicy::randaugment,
                                                          AutoAugmentPolicy::autoaugment,
                                                          AutoAugmentPolicy::trivialaugment};
  const std::string values = "none, randaugment, autoaugment, trivialaugment, false, rand-m9-mstd0.5 (timm's)";
  return custom_key(
      "auto_augment", values,
      [values](Settings& s, const RecipeValue& v) {
        const std::string lowered = v.is_null ? "none" : to_lower(v.text);
        for (AutoAugmentPolicy policy : policies) {
          if (lowered == to_string(policy) || (lowered == "false" && policy == AutoAugmentPolicy::none)) {
            s.classify.auto_augment = policy;
            return;
          }
        }
        if (!is_timm_rand_augment(lowered)) fail_value("auto_augment", v, "one of " + values);
        if (const auto problem = read_timm_rand_augment(lowered, s.classify.timm_rand)) {
          fail_value("auto_augment", v, "timm's RandAugment string: " + *problem);
        }
        s.classify.auto_augment = AutoAugmentPolicy::timm_rand;
      },
      [](const Settings& s) {
        return s.classify.auto_augment == AutoAugmentPolicy::timm_rand ? timm_rand_augment_text(s.classify.timm_rand)
                                                                       : std::string(to_string(s.classify.auto_augment));
      });
}

// Ultralytics' pretrained is a boolean or a path: true starts from the `.pt` given as model (for
// timm's names, the released weights in the local hub cache), false trains from scratch even then;
// both are kept as the word until the model is resolved (config/recipe.cpp).
KeyRow pretrained_key() {
  return custom_key(
             "pretrained", "true, false, a path",
             [](Settings& s, const RecipeValue& v) {
               const std::string lowered = to_lower(v.text);
               if (is_none(v) || v.text.empty()) {
                 s.run.pretrained.clear();
               } else if (lowered == "false" || lowered == "true") {
                 s.run.pretrained = lowered;
               } else {
                 s.run.pretrained = v.text;
               }
             },
             [](const Settings& s) { return s.run.pretrained.empty() ? std::string("none") : s.run.pretrained; })
      .bare_means_true();
}

// EasyOCR's lang_char 'None' takes the characters from the labels.
KeyRow lang_char_key() {
  return custom_key(
      "lang_char", "characters, none",
      [](Settings& s, const RecipeValue& v) {
        if (is_none(v)) {
          s.ocr.charset = "train_labels";
        } else {
          s.ocr.lang_char = parse_string("lang_char", v, true);
        }
      },
      [](const Settings& s) { return s.ocr.lang_char; })
      .empty_is_value();
}

// EasyOCR's freeze_FeatureFxtraction and freeze_SequenceModeling: true adds the layer to freeze.
std::function<void(Settings&, const RecipeValue&)> freeze_layer(const std::string& layer) {
  return [layer](Settings& s, const RecipeValue& v) {
    std::vector<std::string>& layers = s.run.freeze.layers;
    if (parse_bool("freeze", v) && std::find(layers.begin(), layers.end(), layer) == layers.end()) {
      layers.push_back(layer);
    }
  };
}

// timm's --sync-bn switch.
void sync_bn_when_true(Settings& settings, const RecipeValue& value) {
  if (parse_bool("sync_bn", value)) settings.run.norm = NormKind::sync_batch;
}

// Ultralytics' cos_lr: true is the cosine schedule; false asks for its linear one, our default,
// and leaves a scheduler given elsewhere as it is.
void cosine_when_true(Settings& settings, const RecipeValue& value) {
  if (parse_bool("cos_lr", value)) settings.schedule.scheduler = SchedulerKind::cosine;
}

// EasyOCR's files write False for off.
KeyRow contrast_adjust_key() {
  return custom_key(
      "contrast_adjust", "0 ≤ x ≤ 1, false = 0",
      [](Settings& s, const RecipeValue& v) {
        s.ocr.contrast_adjust = to_lower(v.text) == "false" ? 0.0 : parse_double("contrast_adjust", v, 0.0, 1.0);
      },
      [](const Settings& s) { return show_double(s.ocr.contrast_adjust); });
}

// Ultralytics' cache: true or ram keeps decoded images in memory, disk in one file per split.
KeyRow cache_key() {
  return custom_key(
             "cache", "false, ram, disk (true = ram)",
             [](Settings& s, const RecipeValue& v) {
               const std::string lowered = v.is_null ? "none" : to_lower(v.text);
               if (lowered == "false" || lowered == "none") {
                 s.data.cache = ImageCacheMode::off;
               } else if (lowered == "true" || lowered == "ram") {
                 s.data.cache = ImageCacheMode::ram;
               } else if (lowered == "disk") {
                 s.data.cache = ImageCacheMode::disk;
               } else {
                 fail_value("cache", v, "false, ram, disk or true");
               }
             },
             [](const Settings& s) { return std::string(to_string(s.data.cache)); })
      .bare_means_true();
}

// Takes Ultralytics' list forms too: device: [0] names one device, 0,1 or [0,1,2,3] several GPUs.
KeyRow device_key() {
  return custom_key(
             "device", "auto, cpu, cuda, cuda:N, N, idle (-1), a list of GPUs N,M,… (-1 = an idle one)",
             [](Settings& s, const RecipeValue& v) { s.run.device = parse_device("device", v); },
             [](const Settings& s) { return s.run.device; })
      .list();
}

// The rows of one section, in the order they are added.
class SectionRows {
 public:
  SectionRows(std::vector<RecipeKey>& keys, KeySection section) : keys_(keys), section_(section) {}
  SectionRows& operator<<(KeyRow&& row) {
    keys_.push_back(std::move(row).take(section_));
    return *this;
  }

 private:
  std::vector<RecipeKey>& keys_;
  KeySection section_;
};

// The order of the rows is the order of `trainer keys`, args.yaml and a checkpoint's recipe.
std::vector<RecipeKey> build_table() {
  std::vector<RecipeKey> keys;
  SectionRows run(keys, KeySection::run), data(keys, KeySection::data), schedule(keys, KeySection::schedule),
      optim(keys, KeySection::optim), execution(keys, KeySection::execution), dist(keys, KeySection::dist),
      output(keys, KeySection::output), classify(keys, KeySection::classify), detect(keys, KeySection::detect),
      ocr(keys, KeySection::ocr);

  run << enum_key("task", FIELD(run.task), std::vector{TaskKind::classify, TaskKind::ocr, TaskKind::detect})
             .default_text("the model's; else `detect` for a `data.yaml`, else `classify`")
             .help("what is trained: image classes, text lines (EasyOCR-style recognition) or objects (YOLOv8 "
                   "detection)");
  run << string_key("model", FIELD(run.model), false,
                    "resnet18, resnet34, resnet50, crnn, yolov8n/s/m/l/x, yolo11n/s/m/l/x, yolo26n/s/m/l/x, "
                    "yolov5nu/su/mu/lu/xu (and the -cls classifiers of yolov8, yolo11 and yolo26); or "
                    "`<one of them>.pt`/`.pth`/`.safetensors`, `<one of them>.yaml`, or a model `.yaml` of "
                    "Ultralytics' format")
             .default_text("the task's: `resnet18`, `crnn`, `yolov8n`")
             .help(
                 "architecture (torchvision's, EasyOCR's and Ultralytics' names and shapes; crnn = "
                 "EasyOCR's recognizer, None-VGG-BiLSTM-CTC unless its stage keys say otherwise); as in "
                 "Ultralytics, `model=path/yolov8s.pt` is `model=yolov8s pretrained=path/yolov8s.pt`, "
                 "`model=best.pt` of an Ultralytics run takes the scale from the file, and "
                 "`model=yolov8s.yaml` is the architecture from scratch unless a file of that name exists: an "
                 "existing `.yaml` is read as a model definition (`backbone`/`head` rows of Conv, C2f, C3, "
                 "C3k2, SPPF, C2PSA, nn.Upsample, Concat, Detect or Classify, `scales`, `nc`), its scale the "
                 "letter in its name (`my-yolo11s.yaml`: s). Typed bare on the command line, a YOLO name is "
                 "Ultralytics' released file: `model=yolov8s` is `model=yolov8s.pt`, found in the working "
                 "directory or the settings' weights_dir (an error naming both when in neither); in a recipe "
                 "file, and for resnet and crnn, a bare name is the architecture")
             .same_name(kTimm,
                        "resnet18/34/50/101/152 of timm's names (torchvision's weights layout), also with timm's "
                        "weights tag (resnet50.a1_in1k is resnet50)");
  run << string_key("data", FIELD(run.data), false,
                    "`fashion-mnist`, a folder of IDX files, an ImageFolder root, an OCR root, a `data.yaml`")
             .path({"fashion-mnist"})
             .help(
                 "dataset; ImageFolder is `root/{train,val}/<class>/*.png|jpg`; OCR is "
                 "`root/{train,val}/<folder>/labels.csv` (EasyOCR); detection is Ultralytics' `data.yaml`")
             .same_as(kTimm, "data_dir", "an ImageFolder root with train/ and validation/ (or val/) class folders")
             .differs(kTimm, "train_split", "the training split is the data root's train/ folder")
             .differs(kTimm, "val_split", "the validation split is the data root's validation/ or val/ folder");
  run << pretrained_key()
             .path({"true", "false"})
             .help(
                 "weights to start from (our checkpoints; a state dict saved by Python, bare or in a "
                 "checkpoint dict under `state_dict`/`model_state_dict`/`model`/`ema`; Ultralytics' own `.pt` "
                 "and other pickled whole models, read without running them); Ultralytics' true starts from the "
                 "`.pt` given as model, false trains that architecture from scratch")
             .same_as(kEasyOcr, "saved_model", "EasyOCR's '' is none")
             .same_as(kTimm, "initial_checkpoint", "the weights to start from")
             .same_name(kTimm,
                        "bare --pretrained reads timm's released weights from the local Hugging Face hub cache "
                        "($HF_HOME/hub/models--timm--NAME.TAG/snapshots/*/model.safetensors) or torch hub's "
                        "checkpoints folder; nothing is downloaded (an error says where to put the file); "
                        "--pretrained PATH names a file");
  run << enum_key("norm", FIELD(run.norm),
                  std::vector{NormKind::batch, NormKind::group, NormKind::frozen_batch, NormKind::sync_batch})
             .tasks(kClassify | kOcr)
             .help("normalisation layers: BatchNorm, GroupNorm (32 groups), BatchNorm with frozen statistics and "
                   "affine, or BatchNorm whose training statistics pool the micro-batches of all ranks (same "
                   "state-dict keys as bn; bn in one process)")
             .differs(kTimm, "split_bn",
                      "BatchNorm per augmentation split is not offered (augmentation splits are not)")
             .same_as(kTimm, "sync_bn", "norm=syncbn: statistics pooled over the ranks, plain BatchNorm in one process",
                      sync_bn_when_true)
             .inert_at({"false"})
             .differs(kTimm, "dist_bn",
                      "BatchNorm statistics are not averaged across ranks after each epoch; norm=syncbn pools them "
                      "at every step");
  run << freeze_key()
             .help(
                 "layers that keep their weights: the model's first N layers (ResNet: conv1, bn1, relu, maxpool, "
                 "layer1 … "
                 "layer4, avgpool, fc, as torchvision lists them; CRNN: Transformation (with TPS), "
                 "FeatureExtraction, SequenceModeling (with BiLSTM), Prediction; "
                 "YOLOv8: model.0 … model.22 as Ultralytics numbers them, so `freeze=10` is its backbone), or the "
                 "layers named "
                 "by state-dict prefix (`FeatureExtraction` is EasyOCR's `freeze_FeatureFxtraction`); their norm "
                 "layers still "
                 "update running statistics (`norm=frozen_bn` fixes those); `trainer plan` prints the trainable "
                 "parameter "
                 "count")
             .same_as(kEasyOcr, "freeze_FeatureFxtraction", "true adds FeatureExtraction to freeze",
                      freeze_layer("FeatureExtraction"))
             .same_as(kEasyOcr, "freeze_SequenceModeling", "true adds SequenceModeling to freeze",
                      freeze_layer("SequenceModeling"));

  schedule << int_key("epochs", FIELD(schedule.epochs), 1)
                  .resumable()
                  .help("passes over the training split (derived from `updates` when that is set)")
                  .same_name(kTimm, "timm's default is 300, ours 10");
  schedule << int_key("updates", FIELD(schedule.updates), 0)
                  .resumable()
                  .help(
                      "training length in optimizer updates: the run stops after exactly N updates, its epochs "
                      "derived (ceil(N / updates per epoch)), the last one partial; the LR schedule and warmup "
                      "follow N; 0 = the length is `epochs`")
                  .same_as(kEasyOcr, "num_iter",
                           "EasyOCR counts its iterations (one update each) from 0 and stops after iteration num_iter, "
                           "so it runs one update more");
  schedule << optional_double_key("time", FIELD(schedule.time), 0.0, 1e6)
                  .help(
                      "wall-clock budget in hours, as Ultralytics' time: after each epoch the run's epochs become "
                      "ceil(time / mean epoch time so far), the LR schedule and close_mosaic follow them, args.yaml "
                      "and last.pt record them; the run stops after the update that spends the budget (its epoch "
                      "then validated and the last); none or 0 = the length is `epochs`");
  schedule << batch_key()
                  .help("micro-batch (per rank): what one forward/backward sees; -1 or a share in (0, 1) is "
                        "Ultralytics' AutoBatch: the largest batch whose measured step fits that share of the GPU's "
                        "memory (-1: 60 %), chosen before training and recorded in args.yaml; 16 with a warning on "
                        "the CPU; one process only")
                  .same_as(kTimm, "batch_size", "per process, as in timm")
                  .same_as(kEasyOcr, "batch_size", "per process");
  schedule << optional_int_key("val_batch", FIELD(schedule.val_batch), 1, "none")
                  .resumable()
                  .help("validation batch per rank; none = 2 × batch")
                  .same_as(kTimm, "validation_batch_size", "also -vb N, as in timm");
  schedule << optional_int_key("accumulate", FIELD(schedule.accumulate), 1, "auto")
                  .help("micro-batches per optimizer update; auto = max(round(nbs / (batch × world size)), 1)")
                  .same_as(kTimm, "grad_accum_steps");
  schedule << int_key("nbs", FIELD(schedule.nbs), 1)
                  .help("nominal batch size for `accumulate=auto` and weight-decay scaling");
  data << imgsz_key()
              .tasks(kClassify | kDetect)
              .help("input side in pixels; auto = the dataset's native size (28 for Fashion-MNIST, 224 for "
                    "ImageFolder, 640 for detection); detection rounds it up to a multiple of 32; a [h, w] list "
                    "trains at its largest side, as Ultralytics' training does")
              .same_as(kTimm, "img_size")
              .same_as(kTimm, "input_size",
                       "--input-size C H W with H = W is imgsz=H (channels 1 or 3 come from the data); other shapes "
                       "are refused, inputs being square",
                       square_input_size);
  data << double_key("fraction", FIELD(data.fraction), 0.0, 1.0, {false, true})
              .help("share of the training split used (a fixed subset chosen by `seed`)")
              .same_as(
                  kEasyOcr, "total_data_usage_ratio",
                  "a subset chosen by seed from the whole mix, where EasyOCR takes the first lines of each folder");

  data << int_key("workers", FIELD(data.workers), 0, 64)
              .resumable()
              .help("loader threads; 0 decodes on the training thread")
              .same_name(kTimm, "also -j N, as in timm");
  data << int_key("prefetch", FIELD(data.prefetch), 1, 1024)
              .resumable()
              .help("batches prepared ahead of training (bounds loader memory)");
  data << double_key("fliplr", FIELD(data.fliplr), 0.0, 1.0)
              .tasks(kClassify | kDetect)
              .help("probability of a horizontal flip (training only)")
              .same_as(kTimm, "hflip");
  classify << optional_int_key("num_classes", FIELD(classify.num_classes), 1, "auto")
                  .tasks(kClassify)
                  .help("outputs of the classifier's head: auto = the data's class count (its class folders); more "
                        "is allowed (the extra outputs are named unused_<index> and no label is theirs, with a "
                        "warning), fewer is an error")
                  .same_name(kTimm, "None (the model's 1000) in timm; the data's class count here");
  classify << int_key("crop_pad", FIELD(classify.crop_pad), 0, 1024)
                  .tasks(kClassify)
                  .help("pad by this many pixels, then crop back at a random position (training only); 0 = off");
  classify << double_key("erasing", FIELD(classify.erasing), 0.0, 1.0)
                  .tasks(kClassify)
                  .help("classification training: probability of random erasing, one rectangle of 2–33 % of the "
                        "image (height/width 0.3–3.3) set to the dataset's mean colour (torchvision's "
                        "`RandomErasing`, Ultralytics' `erasing`)")
                  .same_as(kTimm, "reprob", "the boxes are filled as erasing_mode says (timm's --remode)");
  classify << enum_key("erasing_mode", FIELD(classify.erasing_mode),
                       std::vector{ErasingMode::constant, ErasingMode::rand, ErasingMode::pixel})
                  .tasks(kClassify)
                  .help("what erasing fills its boxes with, after normalisation as timm's RandomErasing: 0 (the "
                        "dataset's mean colour), one standard-normal value per channel and box, or one per pixel; "
                        "drawn from the sample's seeded generator")
                  .same_as(kTimm, "remode");
  classify << int_key("erasing_count", FIELD(classify.erasing_count), 1, 100)
                  .tasks(kClassify)
                  .help("most boxes erasing cuts from an image: their number is uniform in 1 … this (timm's "
                        "`--recount`), each of 2–33 % of the image divided by that number")
                  .same_as(kTimm, "recount");
  classify << auto_augment_key()
                  .tasks(kClassify)
                  .help("classification training: automatic augmentation of each resized sample (Ultralytics' "
                        "`auto_augment`; timm's `--aa`): torchvision's RandAugment (`randaugment_ops` ops of 14, "
                        "each at bin `randaugment_magnitude` of 31), AutoAugment's ImageNet policy or "
                        "TrivialAugmentWide (one op at a random strength), or timm's RandAugment as its string "
                        "gives it (`rand-m9-mstd0.5`, `rand-m9-n3-mstd0.5-inc1`: timm's 15 ops, each at odds 0.5, "
                        "magnitude m of 10 with Gaussian noise mstd, inc1 its increasing ops; applied with "
                        "torchvision's op arithmetic, nearest-pixel geometry on black); docs/training.md")
                  .same_as(kTimm, "aa",
                           "timm's rand-… strings are timm's RandAugment; its AutoAugment policies (v0, original) "
                           "and AugMix are not offered: autoaugment is torchvision's ImageNet policy");
  classify << int_key("randaugment_ops", FIELD(classify.randaugment_ops), 1, 14)
                  .tasks(kClassify)
                  .help("randaugment: ops applied to each sample, one after another (torchvision's `num_ops`, the "
                        "paper's N)");
  classify << int_key("randaugment_magnitude", FIELD(classify.randaugment_magnitude), 0, 30)
                  .tasks(kClassify)
                  .help("randaugment: the strength of every op as a bin of 31 (torchvision's `magnitude`; timm's "
                        "`rand-mM` counts 0–10 over the same ranges, so its M is bin 3M here)");
  classify << double_key("crop_fraction", FIELD(classify.crop_fraction), 0.0, 1.0, {false, true})
                  .tasks(kClassify)
                  .help("classification validation and predict: the centred square of this share of the shorter "
                        "side is resized to imgsz (timm's `crop_pct`, Ultralytics' `crop_fraction`), so photos keep "
                        "their aspect")
                  .same_as(kTimm, "crop_pct", "the validation centre crop");
  classify << double_key("mixup_alpha", FIELD(classify.mixup_alpha), 0.0, 100.0)
                  .tasks(kClassify)
                  .help("classification training: MixUp, each batch blended with its mirror (sample b with B−1−b) by "
                        "a weight ~ Beta(α, α), targets likewise (timm's `--mixup`); 0 = off");
  classify << double_key("cutmix_alpha", FIELD(classify.cutmix_alpha), 0.0, 100.0)
                  .tasks(kClassify)
                  .help("classification training: CutMix, a box of the mirror's pixels pasted in, its share of the "
                        "image ~ Beta(α, α), targets by the box's actual share (timm's `--cutmix`); 0 = off")
                  .same_as(kTimm, "cutmix");
  classify << double_key("mixup_prob", FIELD(classify.mixup_prob), 0.0, 1.0)
                  .tasks(kClassify)
                  .help("share of training batches mixed when `mixup_alpha` or `cutmix_alpha` is on (timm's "
                        "`--mixup-prob`)")
                  .same_name(kTimm);
  classify << double_key("mixup_switch_prob", FIELD(classify.mixup_switch_prob), 0.0, 1.0)
                  .tasks(kClassify)
                  .help("with both on: share of mixed batches that use CutMix rather than MixUp (timm's "
                        "`--mixup-switch-prob`)")
                  .same_name(kTimm);
  data << double_key("max_bad_fraction", FIELD(data.max_bad_fraction), 0.0, 1.0)
              .help(
                  "share of unreadable images tolerated (each is skipped with a warning) before the dataset fails; "
                  "OCR: share of label lines dropped for characters outside the character set");
  data << int_key("max_image_pixels", FIELD(data.max_image_pixels), 1)
              .help(
                  "largest image (width x height, as its PNG, JPEG or BMP header says) that is decoded: a larger "
                  "one is refused before any pixel memory is taken (a decompression bomb: a small file claiming "
                  "100000x100000 pixels). The default is where PIL, which timm reads images with, refuses too "
                  "(about 179 megapixels, 537 MB of RGB); other formats keep OpenCV's own limit of 2^30 pixels");
  data << cache_key()
              .resumable()
              .tasks(kClassify | kDetect)
              .values("false, ram, disk (true = ram)")
              .help(
                  "Ultralytics' `cache`. ram (detection): keep each decoded image in memory after its first use, "
                  "training images resized to imgsz on the long side, validation images letterboxed, so later "
                  "epochs read and decode no file; skipped with a warning when the images would need more than "
                  "two thirds of the available memory (classification: off with a warning, as Ultralytics does). "
                  "disk: before training, write every image of each split, decoded and resized for the task "
                  "(detection: imgsz on the long side; classification: the short side the crops can use, "
                  "imgsz / sqrt(smallest crop area) in training, imgsz / crop_fraction in validation), into one "
                  "file per split as JPEG of `cache_quality` (raw pixels up to 64x64), which every loader "
                  "thread and rank reads through a memory map; rebuilt when a file, imgsz or the quality "
                  "changes; one process builds while the others wait. ram gives the batches of a run without "
                  "it; disk gives them too for the copies it keeps raw, and within a few grey levels for JPEG "
                  "copies");
  data << string_key("cache_dir", FIELD(data.cache_dir), true, "path")
              .resumable()
              .tasks(kClassify | kDetect)
              .help("cache=disk: the folder for the cache files (a local disk when the images sit on NFS); "
                    "none = beside each split's images (`images/train.trainer-pixels`, `train.trainer-pixels`)");
  data << int_key("cache_quality", FIELD(data.cache_quality), 1, 100)
              .resumable()
              .tasks(kClassify | kDetect)
              .help("cache=disk: JPEG quality (1-100) of the cached copies; 95 keeps them within a few levels "
                    "of the decoded source");

  run << device_key().resumable().help(
      "auto = the first CUDA device if present, else cpu; N = cuda:N (Ultralytics' `device=0`); -1 "
      "(idle) = the least busy GPU with at least 20 % of its memory free by nvidia-smi, else cpu; "
      "with several ranks on a machine, auto and cuda mean cuda:LOCAL_RANK. A list, `device=0,1` or "
      "`device=[0,1,2,3]`, trains data-parallel as `yolo` does: one rank per listed GPU (nproc is "
      "their count), each -1 an idle GPU (least busy, at least 20 % of its memory free, by "
      "nvidia-smi)")
      .same_name(kTimm, "timm's default is cuda, ours auto");
  run << int_key("threads", FIELD(run.threads), 0, 1024)
             .resumable()
             .help("intra-op CPU threads; 0 = all cores, shared evenly among the ranks of a machine (LibTorch would "
                   "otherwise use 1 here)");
  run << int_key("seed", FIELD(run.seed), 0)
             .help("seeds initial weights, the subset, the data order and augmentation")
             .same_as(kEasyOcr, "manualSeed")
             .same_name(kTimm, "timm's default is 42, ours 0");
  run << bool_key("deterministic", FIELD(run.deterministic)).help("deterministic algorithms where LibTorch offers them");

  dist << int_key("nproc", FIELD(dist.nproc), 0, 1024)
                     .resumable()
                     .help("distributed data-parallel training: ranks this command starts on this machine (it "
                           "becomes their launcher); 0 or 1 = one process. Ignored in a process started by torchrun "
                           "or another launcher that sets RANK and WORLD_SIZE");
  dist << int_key("nnodes", FIELD(dist.nnodes), 1, 65536)
                     .resumable()
                     .help("machines in the job, each running the same command with its own `node_rank`; world "
                           "size = nproc × nnodes");
  dist << int_key("node_rank", FIELD(dist.node_rank), 0, 65535)
                     .resumable()
                     .values("0 … nnodes − 1")
                     .help("this machine's index: its ranks are node_rank × nproc … node_rank × nproc + nproc − 1");
  dist << string_key("master_addr", FIELD(dist.master_addr), true, "host name or address")
                     .resumable()
                     .help("machine of node 0, which hosts the ranks' rendezvous store; none = `$MASTER_ADDR`, else "
                           "127.0.0.1 (required with nnodes > 1)");
  dist << int_key("master_port", FIELD(dist.master_port), 0, 65535)
                     .resumable()
                     .help("port of that store; 0 = `$MASTER_PORT`, else a free port (one machine only; required "
                           "with nnodes > 1)");
  dist << enum_key("dist_backend", FIELD(dist.backend),
                          std::vector{DistBackend::automatic, DistBackend::gloo, DistBackend::nccl})
                     .resumable()
                     .help("c10d backend: auto = nccl when the ranks train on CUDA, gloo on CPU; nccl needs a CUDA "
                           "build");
  dist << int_key("dist_timeout", FIELD(dist.timeout), 1, 86400)
                     .resumable()
                     .help("seconds the rendezvous and every collective wait for the other ranks: a rank that dies or "
                           "hangs makes the others fail after at most this long, naming their rank");

  optim << optimizer_key()
                   .help("auto = Ultralytics 8.4's rule: AdamW at lr round(0.002·5/(4+classes), 6) for runs of ≤ 10,000 "
                         "updates, else MuSGD at 0.01 (lr0 is then ignored; 8.3 and before chose SGD there); "
                         "sgd = Nesterov SGD; adamw = AdamW "
                         "(decoupled weight decay); adam = Adam (weight decay added to the gradient, as Ultralytics' "
                         "Adam); adadelta = Adadelta (EasyOCR's default: lr0=1.0 rho=0.95 eps=1e-8 weight_decay=0); "
                         "musgd = Ultralytics 8.4's MuSGD (Nesterov SGD plus, on every weight matrix, Muon's "
                         "Newton-Schulz orthogonalised update at 0.2 x lr, and YOLO26's class branches at 3 x lr); "
                         "rmsproptf = timm's RMSpropTF (TensorFlow's RMSprop: decay 0.9, eps inside the square root, "
                         "running mean square starting at 1, momentum buffer holding lr × the step, weight decay "
                         "added to the gradient; timm's default eps is 1e-10, which a timm-form command without --opt-eps "
                         "gets, its recipes give --opt-eps 0.001); "
                         "each as torch.optim, Ultralytics or timm computes it (docs/training.md). Ultralytics' Adamax, "
                         "NAdam, RAdam and RMSProp are refused with the nearest choice")
                   .same_as(kEasyOcr, "optim", "EasyOCR's optim: False (its default) is Adadelta, adam is Adam",
                            easyocr_optimizer)
                   .same_as(kTimm, "opt",
                            "sgd (with Nesterov momentum, as timm's sgd), adam, adamw, adadelta and rmsproptf are "
                            "shared; timm's other optimizers are not offered");
  optim << double_key("lr0", FIELD(optim.lr0), 0.0, 10.0, {false, true})
                   .help("initial learning rate at `lr_base_batch`")
                   .same_as(kTimm, "lr", "the learning rate itself: lr0 with lr_scale=none", unscaled_lr)
                   .same_as(kTimm, "lr_base",
                            "the learning rate at --lr-base-size, scaled by the global batch (lr_scale)")
                   .same_as(kEasyOcr, "lr",
                            "the learning rate itself while lr_scale=none; optimizer=auto picks its own");
  schedule << double_key("lrf", FIELD(schedule.lrf), 0.0, 1.0)
                  .help("final learning rate as a fraction of the scaled lr0 (unless min_lr is set)");
  schedule << optional_double_key("min_lr", FIELD(schedule.min_lr), 0.0, 10.0)
                  .help("final learning rate of linear, cosine and onecycle as an absolute value (timm's "
                        "`--min-lr`); none = lr0 × lrf")
                  .same_name(kTimm);
  optim << double_key("momentum", FIELD(optim.momentum), 0.0, 1.0, {true, false})
                   .help("SGD momentum (nesterov) / Adam and AdamW beta1 (Ultralytics' meaning) / RMSpropTF momentum; "
                         "Adadelta has none")
                   .same_as(kEasyOcr, "beta1",
                            "EasyOCR's beta1 is Adam's beta1, which is momentum here (EasyOCR's own train.py builds "
                            "Adam with torch's defaults and does not pass it)")
                   .same_name(kTimm, "timm's default is 0.9, ours 0.937");
  optim << double_key("rho", FIELD(optim.rho), 0.0, 1.0, {true, false})
                   .help("Adadelta: decay of the running averages of squared gradients and squared updates (EasyOCR's "
                         "`rho`; torch's default is 0.9)");
  optim << double_key("eps", FIELD(optim.eps), 0.0, 1.0, {false, true})
                   .help("Adam, AdamW, Adadelta and RMSpropTF: the term added inside the update's denominator "
                         "(EasyOCR's `eps`; torch's Adadelta default is 1e-6, timm's RMSpropTF's 1e-10)")
                   .same_as(kTimm, "opt_eps", "the term added to the denominator of Adam, AdamW, Adadelta and RMSpropTF");
  optim << double_key("weight_decay", FIELD(optim.weight_decay), 0.0, 1.0)
                   .help("weight decay at batch `nbs`, scaled by effective batch / nbs (Ultralytics' rule); never "
                         "applied to norm weights and biases")
                   .same_name(kTimm, "scaled by effective batch / nbs unless scale_weight_decay=false (timm's "
                                     "dialect: as given, as timm applies it)");
  optim << bool_key("scale_weight_decay", FIELD(optim.scale_weight_decay))
                   .help("scale weight_decay by effective batch / nbs (Ultralytics' rule); false applies it as "
                         "given (timm)");
  schedule << lr_scale_key().same_as(kTimm, "lr_base_scale", "linear or sqrt; timm's empty value picks by --opt, as here").help(
      "how lr0 follows the effective batch: × ratio, × √ratio, or × factor per doubling (the article suggests "
      "1.3–1.5), ratio = effective batch / `lr_base_batch`");
  schedule << int_key("lr_base_batch", FIELD(schedule.lr_base_batch), 1)
                  .help("the effective batch size lr0 refers to")
                  .same_as(kTimm, "lr_base_size", "the global batch --lr-base refers to");
  schedule << enum_key("scheduler", FIELD(schedule.scheduler),
                       std::vector{SchedulerKind::linear, SchedulerKind::cosine, SchedulerKind::onecycle,
                                   SchedulerKind::constant, SchedulerKind::step, SchedulerKind::multistep})
                  .help(
                      "LR shape over updates, from lr0 to lr0·lrf or min_lr (onecycle: rise from lr0/25 over the "
                      "first 30 %, then cosine down); step: × decay_rate every decay_epochs; multistep: × "
                      "decay_rate at each of decay_milestones (timm's rule: from the epoch before it)")
                  .same_as(kUltralytics, "cos_lr",
                           "true is scheduler=cosine; false, Ultralytics' linear schedule, leaves scheduler as it "
                           "is (linear unless set)",
                           cosine_when_true)
                  .inert_at({"false"})
                  .same_as(kTimm, "sched", "cosine, step and multistep are shared; plateau, tanh and poly are "
                                           "not offered")
                  .differs(kTimm, "lr_noise", "learning-rate noise is not offered");
  schedule << bool_key("sched_on_updates", FIELD(schedule.sched_on_updates))
                  .help("the LR changes at every update; false: at epoch ends only, each epoch at its schedule "
                        "value (timm's default, and its warmup counts epochs)")
                  .same_name(kTimm, "timm's default is false, ours true");
  schedule << double_key("decay_epochs", FIELD(schedule.decay_epochs), 0.0, 1e6, {false, true})
                  .help("scheduler=step: epochs between decays by decay_rate")
                  .same_name(kTimm);
  schedule << decay_milestones_key().help("scheduler=multistep: the epochs of the decays by decay_rate").same_name(kTimm);
  schedule << double_key("decay_rate", FIELD(schedule.decay_rate), 0.0, 1.0, {false, true})
                  .help("scheduler=step and multistep: the factor of each decay")
                  .same_name(kTimm)
                  .same_as(kTimm, "dr", "timm's short spelling of --decay-rate");
  schedule << int_key("cooldown_epochs", FIELD(schedule.cooldown_epochs), 0)
                  .help("epochs trained at the final LR after a linear, cosine or onecycle schedule ends "
                        "(timm adds them to --epochs)")
                  .same_name(kTimm);
  schedule << double_key("warmup_epochs", FIELD(schedule.warmup_epochs), 0.0, 1e6)
                  .values("≥ 0")
                  .help("warmup length in epochs, converted to updates with updates/epoch = ceil(micro-batches / "
                        "accumulate)")
                  .same_name(kTimm, "timm's default is 5, ours 3");
  schedule << optional_int_key("warmup_updates", FIELD(schedule.warmup_updates), 0, "none")
                  .help("warmup length in updates; overrides warmup_epochs");
  schedule << double_key("warmup_momentum", FIELD(schedule.warmup_momentum), 0.0, 1.0, {true, false})
                  .help("SGD momentum at the start of warmup, rising to `momentum`");
  schedule << double_key("warmup_bias_lr", FIELD(schedule.warmup_bias_lr), 0.0, 10.0)
                  .help("bias LR at the start of warmup, falling to the schedule");
  schedule << optional_double_key("warmup_lr", FIELD(schedule.warmup_lr), 0.0, 10.0)
                  .help("timm's warmup: every parameter's LR starts at this value and rises linearly to lr0, "
                        "momentum constant; none = Ultralytics' warmup (from 0, biases from warmup_bias_lr)")
                  .same_name(kTimm);
  optim << double_key("grad_clip", FIELD(optim.grad_clip), 0.0, 1e9)
                   .values("≥ 0")
                   .help("maximum total gradient L2 norm, applied once per update after unscaling; 0 = off")
                   .same_as(kTimm, "clip_grad", "the total L2 norm, timm's --clip-mode norm");
  data << double_key("label_smoothing", FIELD(data.label_smoothing), 0.0, 1.0, {true, false})
                   .tasks(kClassify | kOcr)
                   .help("classification training: this share of each target is spread evenly over all classes "
                         "(timm's `--smoothing`, 0.1 in its recipes); validation reports the plain cross-entropy. OCR "
                         "training: the same for each frame's CTC target (the loss becomes (1 − ε) CTC + ε × the "
                         "frames' cross-entropy to the uniform distribution); validation reports the plain CTC")
                   .same_as(kTimm, "smoothing", "timm's default is 0.1, ours 0");
  execution << enum_key("amp", FIELD(execution.amp), std::vector{AmpMode::automatic, AmpMode::off, AmpMode::fp16, AmpMode::bf16},
                        {{"true", AmpMode::automatic}, {"false", AmpMode::off}})
                   .bare_means_true()
                   .help("mixed precision: auto = fp16 with loss scaling on CUDA, fp32 on CPU; fp16 on CPU is an "
                         "error")
                   .differs(kTimm, "amp_dtype", "the AMP dtype is the value of amp here: amp=fp16 or amp=bf16")
                   .same_name(kTimm, "bare --amp is amp=true: fp16 on CUDA, fp32 on CPU")
                   .same_as(kTimm, "native_amp", "timm's older spelling of --amp");
  optim << bool_key("ema", FIELD(optim.ema))
                   .help("keep an exponential moving average of the weights, used for validation and saved")
                   .same_as(kTimm, "model_ema", "on by default here");
  optim << double_key("ema_decay", FIELD(optim.ema_decay), 0.0, 1.0, {true, false})
                   .help("EMA decay, reached through the ramp decay·(1 − exp(−updates/ema_tau))")
                   .same_as(kTimm, "model_ema_decay",
                            "reached through a ramp over ema_tau updates, like timm's --model-ema-warmup");
  optim << double_key("ema_tau", FIELD(optim.ema_tau), 0.0, 1e12, {false, true})
                   .values("> 0")
                   .help("EMA ramp length in updates");
  execution << enum_key("compile", FIELD(execution.compile),
                        std::vector{CompileMode::none, CompileMode::standard, CompileMode::reduce_overhead,
                                    CompileMode::max_autotune},
                        {{"true", CompileMode::standard}, {"false", CompileMode::none}})
                   .bare_means_true()
                   .resumable()
                   .help("execution mode (docs/training.md, \"Compile modes\"): default = cuDNN autotuning, TF32 and "
                         "channels-last under AMP on CUDA; reduce-overhead = default + CUDA graphs; max-autotune = "
                         "measure layouts (and graphs) and keep the fastest; true = default")
                   .differs(kTimm, "channels_last",
                            "the memory layout follows compile: channels-last under AMP on CUDA in the default mode");
  execution << string_key("compile_cache_dir", FIELD(execution.compile_cache_dir), true, "path")
                   .resumable()
                   .help("where max-autotune keeps its decisions; none = `<project>/compile-cache`");
  execution << int_key("compile_cache_limit", FIELD(execution.compile_cache_limit), 1, 1000000)
                   .resumable()
                   .help("input shapes captured as CUDA graphs per run; later new shapes run eagerly with one warning");

  ocr << int_key("imgH", FIELD(ocr.img_h), 32, 4096)
             .tasks(kOcr)
             .help("OCR input height: every text image is resized to it, keeping its aspect ratio");
  ocr << int_key("imgW", FIELD(ocr.img_w), 8, 100000)
             .tasks(kOcr)
             .values("≥ 8")
             .help("OCR widest input: wider images are squeezed to it (EasyOCR's AlignCollate)");
  ocr << bool_key("rgb", FIELD(ocr.rgb)).tasks(kOcr).help("OCR: 3 input channels instead of grey");
  ocr << string_key("charset", FIELD(ocr.charset), true, "none, `labels`, `train_labels`, characters")
             .tasks(kOcr)
             .help("OCR characters: none = `number` + `symbol` + `lang_char` as written, a repeated character a "
                   "class of its own (EasyOCR's trainer and CTCLabelConverter), `labels` = every character of the "
                   "training and validation labels, `train_labels` = those of the training labels as written "
                   "(EasyOCR's lang_char 'None'), else exactly these characters; pinned into the saved recipe; "
                   "the blank is class 0");
  ocr << string_key("number", FIELD(ocr.number), true, "characters")
             .tasks(kOcr)
             .help("digits of the EasyOCR-style character set");
  ocr << string_key("symbol", FIELD(ocr.symbol), true, "characters")
             .tasks(kOcr)
             .default_text("EasyOCR's en symbols")
             .help("punctuation of the character set: ``!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~`` space and €");
  ocr << lang_char_key()
             .tasks(kOcr)
             .default_text("`A…Za…z`")
             .help(
                 "letters of the character set (EasyOCR's en `lang_char`); none (EasyOCR's 'None') = the "
                 "characters of the training labels as written, as EasyOCR's trainer takes them "
                 "(`charset=train_labels`)");
  ocr << int_key("batch_max_length", FIELD(ocr.batch_max_length), 1, 100000)
             .tasks(kOcr)
             .values("≥ 1")
             .help("OCR: longest label kept, in characters; longer ones are dropped (counted and reported); also the "
                   "padded target width");
  ocr << bool_key("sensitive", FIELD(ocr.sensitive))
             .tasks(kOcr)
             .help("OCR: false = labels are lower-cased before filtering and encoding (EasyOCR's meaning)");
  ocr << bool_key("data_filtering_off", FIELD(ocr.data_filtering_off))
             .tasks(kOcr)
             .help("OCR: keep labels that are too long or hold unknown characters (unknown characters are removed, "
                   "long labels cut)");
  ocr << contrast_adjust_key().tasks(kOcr).help(
      "OCR: EasyOCR's contrast adjustment of each line (training, validation and predict): a line whose contrast "
      "(p90 − p10) / (p90 + p10) of its grey levels is below this is stretched, and made grey; 0 = off. An ONNX "
      "export leaves it to the caller");
  ocr << string_key("train_data", FIELD(ocr.train_data), true, "a folder")
             .tasks(kOcr)
             .path()
             .default_text("`<data>/train`")
             .help(
                 "OCR: EasyOCR's training root, the folders (each with `labels.csv`) that `select_data` picks "
                 "among; none = the `train/` folder of `data`");
  ocr << string_key("valid_data", FIELD(ocr.valid_data), true, "a folder")
             .tasks(kOcr)
             .path()
             .default_text("`<data>/val`")
             .help(
                 "OCR: EasyOCR's validation root, every folder under it (each with `labels.csv`) is validated; "
                 "none = the `val/` folder of `data`");
  ocr << string_list_key("select_data", FIELD(ocr.select_data), "list of folder names")
             .tasks(kOcr)
             .help(
                 "OCR: training subfolders (each with `labels.csv`, and those under them) to mix, as a list or "
                 "EasyOCR's `MJ-ST`; none or `/` = every folder found");
  ocr << double_list_key("batch_ratio", FIELD(ocr.batch_ratio), 0.0, 1e6, "list of numbers")
             .tasks(kOcr)
             .help(
                 "OCR: share of each `select_data` folder in every epoch, as a list or EasyOCR's `0.5-0.5`; none = "
                 "in proportion to their sizes");
  ocr << buckets_key().tasks(kOcr).help(
      "OCR width buckets: each batch is padded to one width, the smallest bucket ≥ its images; a step gives step, "
      "2·step, … and imgW");
  ocr << enum_key("Transformation", FIELD(ocr.transformation),
                  std::vector{OcrTransformation::none, OcrTransformation::tps})
             .tasks(kOcr)
             .help(
                 "CRNN stage 1 (EasyOCR's): None, or TPS = RARE's thin-plate-spline rectification of "
                 "each line onto imgH x imgW from num_fiducial points it predicts (every line is then "
                 "padded to imgW; buckets are not used)");
  ocr << enum_key("FeatureExtraction", FIELD(ocr.feature_extraction),
                  std::vector{OcrFeatureExtraction::vgg, OcrFeatureExtraction::rcnn,
                              OcrFeatureExtraction::resnet})
             .tasks(kOcr)
             .help(
                 "CRNN stage 2 (EasyOCR's): VGG (CRNN's), RCNN (gated recurrent convolutions, "
                 "GRCNN's) or ResNet (FAN's, 1-2-5-3 basic blocks)");
  ocr << enum_key("SequenceModeling", FIELD(ocr.sequence_modeling),
                  std::vector{OcrSequenceModeling::none, OcrSequenceModeling::bilstm})
             .tasks(kOcr)
             .help(
                 "CRNN stage 3 (EasyOCR's): BiLSTM = two bidirectional LSTMs of hidden_size, None = "
                 "the features go straight to Prediction");
  ocr << enum_key("Prediction", FIELD(ocr.prediction),
                  std::vector{OcrPrediction::ctc, OcrPrediction::attn})
             .tasks(kOcr)
             .help(
                 "CRNN stage 4 (EasyOCR's): CTC = a linear layer per time step, trained with CTC "
                 "loss; Attn = an attention LSTM decoder of hidden_size that reads batch_max_length + "
                 "1 steps, trained with cross-entropy after EasyOCR's [GO] token and ended by its "
                 "[s] token");
  ocr << int_key("num_fiducial", FIELD(ocr.num_fiducial), 4, 1000)
             .tasks(kOcr)
             .values("even, ≥ 4")
             .help("CRNN with Transformation TPS: the fiducial points along the line's top and bottom "
                   "edges");
  ocr << int_key("output_channel", FIELD(ocr.output_channel), 4, 4096)
             .tasks(kOcr)
             .help("CRNN feature channels (EasyOCR's output_channel)");
  ocr << int_key("hidden_size", FIELD(ocr.hidden_size), 4, 4096)
             .tasks(kOcr)
             .help("CRNN BiLSTM and attention decoder hidden size");
  ocr << double_key("elastic", FIELD(ocr.elastic), 0.0, 100.0)
             .tasks(kOcr)
             .help("OCR training: elastic warping of each line (Simard et al.), its largest displacement in pixels at "
                   "imgH; with `degrees` and `shear` the line augmentation, all off by default as in EasyOCR");
  run << double_key("dropout", FIELD(run.dropout), 0.0, 1.0, {true, false})
             .tasks(kClassify | kOcr)
             .help("training only, adds no parameters: OCR: dropout on the CRNN's convolutional features (before the "
                   "BiLSTMs) and on the BiLSTMs' output (before the prediction layer), 0 = EasyOCR; ResNet: dropout "
                   "of the pooled features before fc (timm's `--drop`, its drop_rate)")
             .same_as(kTimm, "drop", "dropout before the ResNet's fc, as timm's drop_rate");
  run << double_key("drop_path", FIELD(run.drop_path), 0.0, 1.0, {true, false})
             .tasks(kClassify)
             .help("ResNet training: stochastic depth, each residual branch dropped per sample (kept ones scaled by "
                   "1/(1 − p)) at a rate rising linearly from 0 at the first block to this at the last, as timm's "
                   "ResNet applies its drop_path_rate; evaluation is unchanged; 0 = off")
             .same_name(kTimm);

  detect << double_key("mosaic", FIELD(detect.mosaic), 0.0, 1.0)
                .tasks(kDetect)
                .help("detection: probability of a 4-image mosaic (Ultralytics)");
  detect
      << int_key("close_mosaic", FIELD(detect.close_mosaic), 0)
             .tasks(kDetect)
             .help(
                 "detection: the last N epochs (derived ones with `updates`) train without mosaic (and without mixup)");
  detect << double_key("mixup", FIELD(detect.mixup), 0.0, 1.0)
                .tasks(kDetect)
                .help("detection: probability of MixUp (Ultralytics' `mixup`): a second training sample, placed "
                      "(mosaic or letterbox) and warped the same way, blended in with a weight ~ Beta(32, 32), its "
                      "boxes added; Ultralytics' own larger models were trained with 0.05–0.2")
                .same_name(kTimm,
                           "in timm's dialect, timm's meaning: mixup_alpha, classification's MixUp; in a command "
                           "with key=value, detection's MixUp probability");
  data << double_key("degrees", FIELD(data.degrees), 0.0, 180.0)
              .tasks(kDetect | kOcr)
              .help("detection and OCR training: random rotation ±degrees");
  detect << double_key("translate", FIELD(detect.translate), 0.0, 1.0)
                .tasks(kDetect)
                .help("detection: random translation ± this share of imgsz");
  data << double_key("scale", FIELD(data.scale), 0.0, 1.0, {true, false})
              .tasks(kClassify | kDetect)
              .help("detection: random scale gain 1 ± scale; classification training: random resized crop of "
                    "[1 − scale, 1] of the image's area at width/height 3/4–4/3, resized to imgsz (Ultralytics' "
                    "meaning for classify; 0 = the largest centred square)")
              .same_name(kTimm,
                         "one number here (the crop keeps [1 − scale, 1] of the area); timm's --scale 0.08 1.0 is "
                         "scale=0.92");
  data << double_key("shear", FIELD(data.shear), 0.0, 90.0, {true, false})
              .tasks(kDetect | kOcr)
              .help("detection: random shear ± degrees; OCR training: random slant ± degrees");
  detect << double_key("perspective", FIELD(detect.perspective), 0.0, 0.001)
                .tasks(kDetect)
                .help("detection: random perspective coefficients");
  data << double_key("hsv_h", FIELD(data.hsv_h), 0.0, 1.0)
              .tasks(kClassify | kDetect)
              .help("detection: hue gain (OpenCV 8-bit HSV); classification training without `auto_augment`: "
                    "ColorJitter's hue shift, ± this share of a turn (at most 0.5)");
  data << double_key("hsv_s", FIELD(data.hsv_s), 0.0, 1.0)
              .tasks(kClassify | kDetect)
              .help("detection: saturation gain; classification training without `auto_augment`: ColorJitter's "
                    "saturation factor from [1 − hsv_s, 1 + hsv_s]");
  data << double_key("hsv_v", FIELD(data.hsv_v), 0.0, 1.0)
              .tasks(kClassify | kDetect)
              .help("detection: value gain; classification training without `auto_augment`: ColorJitter's brightness "
                    "and contrast factors from [1 − hsv_v, 1 + hsv_v] (Ultralytics' mapping)")
              .differs(kTimm, "color_jitter",
                       "timm's --color-jitter X is hsv_v=X hsv_s=X hsv_h=0 here (brightness, contrast and saturation; "
                       "without auto_augment, as in timm)");
  detect << double_key("flipud", FIELD(detect.flipud), 0.0, 1.0)
                .tasks(kDetect)
                .help("detection: vertical flip probability (`fliplr` is shared with classification)")
                .differs(kTimm, "vflip", "classification has no vertical flip here; flipud is detection's");
  detect << int_key("max_boxes", FIELD(detect.max_boxes), 1, 100000)
                .tasks(kDetect)
                .values("≥ 1")
                .help("detection: target rows per image, a fixed shape; extra boxes (smallest first) are dropped and "
                      "counted");
  detect << bool_key("strict", FIELD(detect.strict))
                .tasks(kDetect)
                .help("detection: a malformed label line (columns, NaN, class ≥ nc, coordinates outside [0, 1]) stops "
                      "the run; otherwise it is skipped and reported with file:line");
  detect << bool_key("single_cls", FIELD(detect.single_cls))
                .tasks(kDetect)
                .help("detection: train and validate every object as one class named `item` (Ultralytics' "
                      "`single_cls`); labels are still checked against the data file's `nc`, and the model gets one "
                      "class output");
  detect << double_key("box", FIELD(detect.box), 0.0, 1e6).tasks(kDetect).values("≥ 0").help("detection: CIoU box loss gain");
  detect << double_key("cls", FIELD(detect.cls), 0.0, 1e6)
                .tasks(kDetect)
                .values("≥ 0")
                .help("detection: classification BCE gain");
  detect << double_key("dfl", FIELD(detect.dfl), 0.0, 1e6)
                .tasks(kDetect)
                .values("≥ 0")
                .help("detection: distribution focal loss gain");
  detect << conf_key().tasks(kDetect).help(
      "detection NMS confidence; none = 0.001 in validation, 0.25 in predict (Ultralytics)");
  detect << double_key("iou", FIELD(detect.iou), 0.0, 1.0, {false, true}).tasks(kDetect).help("detection NMS IoU threshold");
  detect << int_key("max_det", FIELD(detect.max_det), 1, 100000)
                .tasks(kDetect)
                .values("≥ 1")
                .help("detection: detections kept per image");
  detect << end2end_key()
                .tasks(kDetect)
                .help("detection: which branch of an end-to-end model (YOLO26) val, predict and export use, as "
                      "Ultralytics 8.4's `end2end`: none or true the one-to-one branch without NMS, false the "
                      "one-to-many branch with NMS; training and its validation always use the model's own "
                      "(one-to-one); true on a model without that branch is an error");

  // none (Ultralytics' null) is no project: runs go to runs_dir/<task> (io/run_folder.h).
  output << custom_key(
                "project", "path",
                [](Settings& s, const RecipeValue& v) {
                  s.output.project = is_none(v) ? "" : parse_string("project", v, false);
                },
                [](const Settings& s) { return s.output.project.empty() ? std::string("none") : s.output.project; })
                .default_text(
                    "none: run folders go to `<runs_dir>/<task>/<name>`, runs_dir from the user "
                    "settings (`trainer settings`), `runs` unless changed")
                .resumable()
                .help("parent folder of run folders: `project=P name=N` writes `P/N`, as Ultralytics does")
                .same_as(kTimm, "output", "runs go to <output>/<name>, as timm's do");
  output << string_key("name", FIELD(output.name), false, "string")
                .resumable()
                .help(
                    "run folder: `<project>/<name>` (`<runs_dir>/<task>/<name>` without project), "
                    "numbered name2, name3 … when it exists; args.yaml records the name taken")
                .same_as(kEasyOcr, "experiment_name")
                .same_as(kTimm, "experiment");
  output << bool_key("exist_ok", FIELD(output.exist_ok))
                    .resumable()
                    .help("reuse an existing run folder instead of numbering a new one");
  output << save_period_key()
                .resumable()
                .help("also keep `weights/epoch<N>.pt` every N epochs");
  output << int_key("keep_best", FIELD(output.keep_best), 0)
                .resumable()
                .help("also keep the checkpoints of the N best validated epochs by fitness as "
                      "`weights/checkpoint-<epoch>.pt` (epoch as results.csv counts it), a better one displacing "
                      "the worst; best.pt and last.pt are kept either way; 0 = none")
                .same_as(kTimm, "checkpoint_hist",
                         "timm's checkpoint-<epoch>.pth.tar counts epochs from 0, these from 1 as results.csv");
  output << int_key("save_interval", FIELD(output.save_interval), 0)
                    .resumable()
                    .help("also rewrite `weights/last.pt` every N updates (a resumable point inside an epoch); 0 = "
                          "only at epoch ends");
  output << resume_key().resumable().help(
      "continue a run exactly: `resume=runs/classify/demo/weights/last.pt`, or `resume`/`resume=true` for the newest "
      "`last.pt` of `<project>/<task>/<name>*`. The recipe comes from the checkpoint; only the keys marked "
      "resumable may be changed on the command line").same_name(kTimm);
  output << bool_key("resume_force", FIELD(output.resume_force))
                    .resumable()
                    .help("resume although the command changes other keys (model, batch geometry, optimizer …): the run "
                          "is then no longer exact");
  output << int_key("patience", FIELD(output.patience), 0)
                .resumable()
                .help(
                    "stop after this many validations without a better fitness (epochs, or intervals of "
                    "`val_interval`); 0 = never stop early (Ultralytics' `patience: 0`)");
  output << bool_key("val", FIELD(output.val))
                .resumable()
                .help(
                    "validate after every epoch, or every `val_interval` updates (top-1/top-5 on the val split, "
                    "EMA weights when on); false validates only at the end");
  output << int_key("val_interval", FIELD(output.val_interval), 0)
                .resumable()
                .help(
                    "validate every N updates and once at the end, each time writing a results.csv row "
                    "(losses since the previous row), `weights/last.pt` (a resumable point inside the "
                    "epoch) and best.pt when better, and counting patience; 0 = at every epoch end")
                .same_as(kEasyOcr, "valInterval",
                         "EasyOCR validates after its iteration i when i % valInterval == 0 (i > 0), one update "
                         "later than here, and not at the end")
                .same_name(kTimm,
                           "differs: timm's counts epochs (default 1), ours updates; in a timm-form command "
                           "--val-interval 1 means every epoch end (our 0), other values are refused");
  output << bool_key("plots", FIELD(output.plots))
                    .resumable()
                    .help("draw `train_batch0.jpg` … `train_batch2.jpg` (the first batches with their labels) and "
                          "detection's `labels.jpg` (class counts, box shapes, centres and sizes) before training, "
                          "redraw `results.png` after every epoch, and `confusion_matrix.png` and detection's "
                          "`PR_curve.png`, `F1_curve.png`, `P_curve.png`, `R_curve.png` after every validation "
                          "(`confusion_matrix.csv` is written either way)");
  return keys;
}

}  // namespace

std::string tasks_text(TaskMask tasks) {
  std::vector<std::string> names;
  for (TaskKind task : {TaskKind::classify, TaskKind::ocr, TaskKind::detect}) {
    if (applies_to(tasks, task)) names.emplace_back(to_string(task));
  }
  if (names.size() == 3) return "all";
  if (names.size() == 2) return names[0] + " and " + names[1];
  return join(names, ", ");
}

const char* section_title(KeySection section) {
  switch (section) {
    case KeySection::run: return "What to train";
    case KeySection::data: return "Data loading, shared augmentation and targets";
    case KeySection::schedule: return "Batch geometry and schedule";
    case KeySection::optim: return "Optimizer and EMA";
    case KeySection::execution: return "Precision and compile";
    case KeySection::dist: return "Distributed training";
    case KeySection::output: return "Run folder, checkpoints and validation";
    case KeySection::classify: return "Classification";
    case KeySection::detect: return "Detection";
    case KeySection::ocr: return "Text recognition (OCR)";
  }
  return "?";
}

const char* tool_name(ForeignTool tool) {
  switch (tool) {
    case ForeignTool::ultralytics: return "Ultralytics";
    case ForeignTool::timm: return "timm";
    case ForeignTool::easyocr: return "EasyOCR";
  }
  return "?";
}

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

namespace {

// Every spelling of another tool that is not one of our keys' names, with its row (nullptr: a key
// without counterpart), in table order: the key rows, then the keys without counterpart.
std::vector<ForeignMatch> all_spellings() {
  std::vector<ForeignMatch> spellings;
  for (const auto& key : recipe_keys()) {
    for (const auto& spelling : key.foreign) {
      if (spelling.meaning != ForeignMeaning::ours) spellings.push_back({&key, spelling});
    }
  }
  for (const auto& spelling : keys_without_counterpart()) spellings.push_back({nullptr, spelling});
  return spellings;
}

const std::vector<ForeignMatch>& spellings_in_table_order() {
  static const std::vector<ForeignMatch> spellings = all_spellings();
  return spellings;
}

}  // namespace

std::optional<ForeignMatch> find_spelling_of(ForeignTool tool, const std::string& name) {
  for (const ForeignMatch& match : spellings_in_table_order()) {
    if (match.spelling.tool == tool && match.spelling.name == name) return match;
  }
  return std::nullopt;
}

std::optional<ForeignMatch> find_foreign_spelling(const std::string& name, std::optional<ForeignTool> source) {
  if (source) {
    if (auto own = find_spelling_of(*source, name)) return own;
  }
  for (const ForeignMatch& match : spellings_in_table_order()) {
    if (match.spelling.name == name) return match;
  }
  return std::nullopt;
}

std::optional<ForeignTool> tool_of_keys(const std::vector<std::string>& names) {
  std::vector<std::pair<ForeignTool, size_t>> counts = {
      {ForeignTool::ultralytics, 0}, {ForeignTool::timm, 0}, {ForeignTool::easyocr, 0}};
  for (auto& [tool, count] : counts) {
    for (const std::string& name : names) count += find_spelling_of(tool, name) ? 1 : 0;
  }
  std::sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (counts[0].second == 0 || counts[0].second == counts[1].second) return std::nullopt;
  return counts[0].first;
}

std::vector<std::pair<std::string, ForeignSpelling>> foreign_spellings() {
  std::vector<std::pair<std::string, ForeignSpelling>> spellings;
  for (const ForeignMatch& match : spellings_in_table_order()) {
    if (match.spelling.tool == ForeignTool::timm) continue;
    spellings.emplace_back(match.key ? match.key->name : "", match.spelling);
  }
  for (const std::string& name : tool_file_keys(ForeignTool::timm)) {
    if (const auto match = find_spelling_of(ForeignTool::timm, name))
      spellings.emplace_back(match->key ? match->key->name : "", match->spelling);
  }
  return spellings;
}

}  // namespace trainer
