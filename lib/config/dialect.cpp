#include "config/dialect.h"

#include <algorithm>

#include "config/recipe_keys.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {

// timm's train.py (huggingface/pytorch-image-models, current) in our keys: --model resnet50,
// --opt sgd (Nesterov momentum 0.9), --weight-decay 2e-5 applied as given, --lr-base 0.1 scaled linearly by the
// global batch over --lr-base-size 256, no accumulation, --sched cosine stepped per epoch to
// --min-lr 0 after --warmup-epochs 5 from --warmup-lr 1e-5, --epochs 300, -b 128, -j 4,
// --smoothing 0.1, --seed 42, no EMA (--model-ema-decay 0.9998), no AMP and no clipping; its
// augmentation: RandomResizedCrop --scale 0.08 1 (our scale 0.92), --hflip 0.5,
// --color-jitter 0.4 (brightness, contrast, saturation), no --aa, --reprob 0, --mixup 0,
// --cutmix 0; validation crops the centre 0.875 (timm's ResNet configs); no early stopping; its
// CheckpointSaver keeps the --checkpoint-hist 10 best epoch checkpoints.
const std::vector<std::pair<std::string, std::string>>& timm_defaults() {
  static const std::vector<std::pair<std::string, std::string>> defaults = {
      {"model", "resnet50"},
      {"epochs", "300"},        {"batch", "128"},
      {"accumulate", "1"},      {"fliplr", "0.5"},
      {"crop_pad", "0"},        {"erasing", "0"},
      {"auto_augment", "none"}, {"crop_fraction", "0.875"},
      {"mixup_alpha", "0"},     {"cutmix_alpha", "0"},
      {"mixup_prob", "1"},      {"mixup_switch_prob", "0.5"},
      {"workers", "4"},         {"seed", "42"},
      {"optimizer", "sgd"},     {"lr0", "0.1"},
      {"lr_scale", "linear"},   {"lr_base_batch", "256"},
      {"min_lr", "0"},          {"momentum", "0.9"},
      {"weight_decay", "2e-5"}, {"scale_weight_decay", "false"},
      {"scheduler", "cosine"},  {"sched_on_updates", "false"},
      {"decay_epochs", "90"},   {"decay_milestones", "90,180,270"},
      {"decay_rate", "0.1"},    {"cooldown_epochs", "0"},
      {"warmup_epochs", "5"},   {"warmup_lr", "1e-5"},
      {"grad_clip", "0"},       {"label_smoothing", "0.1"},
      {"amp", "off"},           {"ema", "false"},
      {"ema_decay", "0.9998"},  {"scale", "0.92"},
      {"hsv_h", "0"},           {"hsv_s", "0.4"},
      {"hsv_v", "0.4"},         {"patience", "0"},
      {"keep_best", "10"},
  };
  return defaults;
}

Settings dialect_defaults(Dialect dialect) {
  Settings settings;
  if (dialect != Dialect::timm) return settings;
  for (const auto& [name, text] : timm_defaults()) {
    RecipeValue value{text, false, "timm's default " + name + "=" + text};
    value.is_sequence = find_recipe_key(name)->is_list;
    find_recipe_key(name)->assign(settings, value);
  }
  return settings;
}

void finish_dialect(Dialect dialect, Settings& settings, const std::vector<std::string>& given) {
  if (dialect != Dialect::timm) return;
  const auto was_given = [&](const char* name) { return std::find(given.begin(), given.end(), name) != given.end(); };
  // timm's --val-interval counts epochs: its 1 (every epoch) is our 0; we validate no less often.
  if (was_given("val_interval")) {
    if (settings.output.val_interval != 1) {
      throw UserError("--val-interval " + std::to_string(settings.output.val_interval) +
                      ": timm's counts epochs; a timm-form command validates after every epoch (1), the only "
                      "value offered here (in key=value form val_interval=N counts updates)");
    }
    settings.output.val_interval = 0;
  }
  // timm's create_optimizer_v2 passes eps only when --opt-eps is set: RMSpropTF keeps its 1e-10.
  if (settings.optim.kind == OptimizerKind::rmsproptf && !was_given("eps")) settings.optim.eps = 1e-10;
  if (was_given("lr_scale") || settings.schedule.lr_scale != LrScaleRule::linear) return;
  // train.py: 'sqrt' if any of ('ada', 'lamb') is in the optimizer's name, else 'linear'.
  const std::string optimizer = to_string(settings.optim.kind);
  if (optimizer.find("ada") != std::string::npos) settings.schedule.lr_scale = LrScaleRule::sqrt;
}

std::string dialect_line(Dialect dialect) {
  if (dialect == Dialect::timm) {
    return "the command is in timm's dialect (train.py flags, no key=value): keys it does not set "
           "take timm "
           "train.py's defaults (resnet50, sgd, lr 0.1 x global batch / 256, cosine per epoch, 300 epochs, "
           "warmup 5 from "
           "1e-5, smoothing 0.1; `trainer plan` prints them all)";
  }
  return "the command is in Ultralytics' dialect (key=value): keys it does not set take the key "
         "table's defaults";
}

}  // namespace trainer
