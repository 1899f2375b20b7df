#include "config/timm_flags.h"

namespace trainer {

// As train.py's argparse groups list them.
const std::vector<std::string>& timm_flag_order() {
  static const std::vector<std::string> flags = {
      // Dataset and model.
      "config", "data_dir", "dataset", "train_split", "val_split", "train_num_samples", "val_num_samples",
      "dataset_download", "class_map", "input_img_mode", "input_key", "target_key", "dataset_trust_remote_code",
      "pretrained_path", "initial_checkpoint", "no_resume_opt", "num_classes", "gp", "img_size", "in_chans", "input_size",
      "crop_pct", "mean", "std", "interpolation", "batch_size", "validation_batch_size", "channels_last", "fuser",
      "grad_accum_steps", "grad_checkpointing", "fast_norm", "model_kwargs", "head_init_scale", "head_init_bias",
      "torchcompile_mode", "torchscript", "torchcompile", "amp_dtype", "model_dtype", "no_ddp_bb",
      "synchronize_step", "local_rank", "device_modules",
      // Optimizer and schedule.
      "opt", "opt_eps", "opt_betas", "clip_grad", "clip_mode", "layer_decay", "layer_decay_min_scale",
      "layer_decay_no_opt_scale", "opt_kwargs", "sched", "lr", "lr_base", "lr_base_size", "lr_base_scale", "lr_noise",
      "lr_noise_pct", "lr_noise_std", "lr_cycle_mul", "lr_cycle_decay", "lr_cycle_limit", "lr_k_decay",
      "epoch_repeats", "start_epoch", "warmup_prefix", "patience_epochs", "dr",
      // Augmentation and regularisation.
      "no_aug", "train_crop_mode", "ratio", "hflip", "vflip", "color_jitter", "color_jitter_prob", "grayscale_prob",
      "gaussian_blur_prob", "aa", "aug_repeats", "aug_splits", "jsd_loss", "jsd", "bce_loss", "bce_sum",
      "bce_target_thresh", "bce_pos_weight", "reprob", "remode", "recount", "resplit", "cutmix", "cutmix_minmax",
      "mixup_mode", "mixup_off_epoch", "smoothing", "train_interpolation", "drop", "drop_connect", "drop_path", "drop_block",
      "bn_momentum", "bn_eps", "split_bn", "sync_bn", "dist_bn",
      // EMA and the run.
      "model_ema", "model_ema_force_cpu", "model_ema_decay", "model_ema_warmup", "worker_seeding", "log_interval",
      "recovery_interval", "checkpoint_hist", "save_images", "native_amp", "apex_amp", "pin_mem", "no_prefetcher",
      "output", "experiment", "eval_metric", "tta", "use_multi_epochs_loader", "log_wandb", "wandb_project",
      "wandb_tags", "wandb_resume_id",
      // Variable-size training, NaFlex and distillation.
      "train_img_sizes", "train_batch_sizes", "train_size_probs", "train_size_schedule", "train_size_schedule_spread",
      "train_size_random_mix", "train_batches_per_epoch", "train_steps_per_epoch", "variable_batch_loss_scale",
      "naflex_loader", "naflex_train_seq_lens", "naflex_max_seq_len", "naflex_patch_sizes", "naflex_patch_size_probs",
      "naflex_loss_scale", "naflex_patchify_channels_first", "kd_model_name", "kd_distill_type", "kd_loss_type",
      "distill_loss_weight", "task_loss_weight", "kd_temperature", "kd_student_feature_dim", "kd_teacher_feature_dim",
      "kd_token_distill_type",
      // Named like our keys.
      "model", "pretrained", "resume", "device", "epochs", "sched_on_updates", "min_lr", "warmup_lr",
      "decay_epochs", "decay_milestones", "decay_rate", "warmup_epochs", "cooldown_epochs", "momentum", "weight_decay",
      "amp", "mixup", "mixup_prob", "mixup_switch_prob", "scale", "seed", "val_interval", "workers",
  };
  return flags;
}

}  // namespace trainer
