#include "config/foreign_keys.h"

#include <map>

namespace trainer {

std::optional<std::string> foreign_key_hint(const std::string& name) {
  static const std::map<std::string, std::string> hints = {
      {"cos_lr", "Ultralytics' cos_lr=True is scheduler=cosine here"},
      {"weights", "train starts from a file with pretrained=PATH (or model=yolov8n.pt); val and predict take "
                  "--weights PATH or model=PATH, export --weights PATH"},
      {"source", "source= names predict's images; other commands take none"},
      {"half", "export writes half-precision weights with --half; training uses amp=fp16"},
      {"verbose", "output is verbose unless -q/--quiet is given"},
      {"save", "last.pt and best.pt are always saved; save_period and save_interval add more"},
      {"rect", "Ultralytics' rectangular batches are not offered: every image is letterboxed to imgsz, so "
               "input shapes stay fixed for CUDA graphs"},
      {"lr", "timm's --lr is lr0 here"},
      {"sched", "timm's --sched is scheduler here"},
      {"opt", "timm's --opt is optimizer here"},
      {"batch_size", "timm's --batch-size is batch here (per rank)"},
      {"grad_accum_steps", "timm's --grad-accum-steps is accumulate here"},
      {"smoothing", "timm's --smoothing is label_smoothing here"},
      {"clip_grad", "timm's --clip-grad is grad_clip here (the total norm)"},
      {"reprob", "timm's --reprob is erasing here"},
      {"aa", "timm's --aa is auto_augment here (randaugment, autoaugment, trivialaugment), with randaugment_ops "
             "and randaugment_magnitude for rand-mM-nN"},
      {"cutmix", "timm's --cutmix is cutmix_alpha here (mixup is detection's MixUp probability; timm's --mixup is "
                 "mixup_alpha)"},
      {"model_ema", "timm's --model-ema is ema here (on by default)"},
      {"model_ema_decay", "timm's --model-ema-decay is ema_decay here"},
      {"warmup_lr", "warmup ramps the learning rate up linearly (biases down from warmup_bias_lr) over "
                    "warmup_epochs or warmup_updates, as in Ultralytics"},
  };
  const auto found = hints.find(name);
  if (found == hints.end()) return std::nullopt;
  return found->second;
}

}  // namespace trainer
