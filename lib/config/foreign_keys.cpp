#include "config/foreign_keys.h"

#include "config/timm_flags.h"

namespace trainer {
namespace {

constexpr ForeignTool kUltralytics = ForeignTool::ultralytics;
constexpr ForeignTool kEasyOcr = ForeignTool::easyocr;
constexpr ForeignTool kTimm = ForeignTool::timm;

// A key with no counterpart here, refused with `reason` except at `inert_values`.
ForeignSpelling refused(ForeignTool tool, std::string name, std::string reason, std::vector<std::string> inert_values) {
  return {std::move(name), tool, ForeignMeaning::different, std::move(reason), std::move(inert_values), {}, {}};
}

// A key that only `read_by` (a mode or task of the tool) reads: ignored at any value elsewhere,
// as the tool itself ignores it there.
ForeignSpelling read_only_by(ForeignTool tool, std::string name, std::string read_by, std::string note) {
  ForeignSpelling spelling = refused(tool, std::move(name), std::move(note), {"*"});
  spelling.read_by = std::move(read_by);
  return spelling;
}

// Every key of Ultralytics' default.yaml (8.0 to 8.4) and of an Ultralytics run's args.yaml that
// has no key here. A key another mode or task reads (predict's source, export's opset, pose's
// gain) is ignored at any value, as a training run of Ultralytics ignores it; a key that would
// change the training run is accepted only at the value(s) that ask for nothing, its default in
// those releases, and refused with the reason otherwise. The keys with a counterpart are in the
// rows of the key table.
std::vector<ForeignSpelling> ultralytics_keys() {
  const std::string predict_output =
      "predict prints every box with its confidence on stdout and writes annotated images and predictions.json to "
      "runs/detect/predict/, always with boxes, class names and confidences";
  const std::string export_options =
      "trainer export takes format=onnx with imgsz, batch, dynamic, half, opset and simplify (docs/export.md); "
      "TorchScript, TensorRT and the other formats are not offered";
  const std::string not_trained = "that task is not trained here (tasks: classify, detect, ocr)";
  const auto predict = [&](std::string name, std::string note) {
    return read_only_by(kUltralytics, std::move(name), "predict", std::move(note));
  };
  const auto exporting = [&](std::string name) { return read_only_by(kUltralytics, std::move(name), "export", export_options); };
  return {
      refused(kUltralytics, "weights",
              "train starts from a file with pretrained=PATH (or model=yolov8n.pt); val and predict take --weights "
              "PATH or model=PATH, export --weights PATH",
              {}),
      refused(kUltralytics, "mode", "the mode is the command here: trainer train, val, predict or export", {"train"}),
      refused(kUltralytics, "save",
              "last.pt and best.pt are always saved (save_period and save_interval add more); the run is the same",
              {"*"}),
      read_only_by(kUltralytics, "verbose", "log output",
                   "the run's output is the same either way; -q/--quiet keeps only warnings and errors"),
      refused(kUltralytics, "rect",
              "Ultralytics' rectangular batches are not offered: every image is letterboxed to imgsz, so input shapes "
              "stay fixed for CUDA graphs",
              {"false"}),
      refused(kUltralytics, "profile", "ONNX and TensorRT speeds are not profiled; the run is the same", {"*"}),
      refused(kUltralytics, "multi_scale",
              "multi-scale training (8.1–8.3: true; 8.4: a share of imgsz) is not offered: inputs keep imgsz, so "
              "shapes stay fixed for CUDA graphs",
              {"false", "0"}),
      read_only_by(kUltralytics, "overlap_mask", "segment", not_trained),
      read_only_by(kUltralytics, "mask_ratio", "segment", not_trained),
      read_only_by(kUltralytics, "split", "val",
                   "`yolo val`'s split; training validates on the data's val split, here as in Ultralytics"),
      read_only_by(kUltralytics, "save_json", "val", "COCO JSON results are not written; predict writes predictions.json"),
      read_only_by(kUltralytics, "save_hybrid", "val", "hybrid labels (labels plus predictions) are not written"),
      read_only_by(kUltralytics, "half", "val, predict and export",
                   "training validates under amp, as Ultralytics' trainer does whatever half says; trainer export "
                   "takes --half"),
      read_only_by(kUltralytics, "dnn", "val and predict",
                   "predict and val run an exported .onnx file in OpenCV's DNN module and a checkpoint in LibTorch"),
      read_only_by(kUltralytics, "fuse", "val and predict",
                   "convolutions and batch norms are not fused for validation (an inference speed-up; the results "
                   "are the same)"),
      predict("source", "source= names predict's images; other commands take none"),
      predict("vid_stride", "predict reads images; video sources are not read"),
      predict("stream_buffer", "predict reads images; video sources are not read"),
      predict("save_frames", "predict reads images; video sources are not read"),
      predict("visualize", "feature maps are not drawn"),
      predict("augment", "test-time augmentation is not offered"),
      refused(kUltralytics, "agnostic_nms",
              "NMS runs per class (class-aware), as in Ultralytics' default; class-agnostic NMS, which changes "
              "validation's metrics, is not offered",
              {"false"}),
      refused(kUltralytics, "classes",
              "training on a subset of the classes (Ultralytics drops the other classes' labels) is not offered; "
              "predict keeps every class",
              {""}),
      read_only_by(kUltralytics, "retina_masks", "segment", not_trained),
      predict("embed", "feature embeddings are not returned"),
      predict("show", "no window is opened; " + predict_output),
      predict("save_txt", predict_output),
      predict("save_conf", predict_output),
      predict("save_crop", "crops of the detections are not written"),
      predict("show_labels", predict_output),
      predict("show_conf", predict_output),
      predict("show_boxes", predict_output),
      predict("line_width", "box lines are drawn at a width that follows the image size"),
      exporting("format"),
      exporting("keras"),
      exporting("optimize"),
      exporting("int8"),
      exporting("dynamic"),
      exporting("simplify"),
      exporting("opset"),
      exporting("workspace"),
      exporting("nms"),
      refused(kUltralytics, "cls_pw",
              "class weights from the class frequencies (8.4) are not offered: every class weighs the same in the "
              "classification loss",
              {"0"}),
      read_only_by(kUltralytics, "pose", "pose", not_trained),
      read_only_by(kUltralytics, "kobj", "pose", not_trained),
      read_only_by(kUltralytics, "rle", "pose", not_trained),
      read_only_by(kUltralytics, "angle", "obb", not_trained),
      refused(kUltralytics, "bgr", "the RGB/BGR channel-swap augmentation is not offered", {"0"}),
      refused(kUltralytics, "cutmix", "detection's CutMix (8.3.1xx) is not offered; mixup and mosaic are", {"0"}),
      read_only_by(kUltralytics, "copy_paste", "segment", "copy-paste pastes segments; " + not_trained),
      read_only_by(kUltralytics, "copy_paste_mode", "segment", "copy-paste pastes segments; " + not_trained),
      refused(kUltralytics, "cfg", "a recipe file is given with --config FILE", {""}),
      read_only_by(kUltralytics, "tracker", "track", "tracking is not offered; the tracker file is not read"),
      refused(kUltralytics, "save_dir",
              "an Ultralytics run's args.yaml records its folder here; the run folder is <project>/<task>/<name>",
              {"*"}),
      // Keys of the later 8.4 releases (8.4.1xx args.yaml files hold them).
      refused(kUltralytics, "cls_remap",
              "a pretrained head for another class set starts fresh here (its rows are not remapped to the classes "
              "of the same name); the rest of the model loads as in Ultralytics",
              {"*"}),
      refused(kUltralytics, "channels_last",
              "the memory layout follows compile (channels-last under AMP on CUDA in the default mode); the run's "
              "result is the same",
              {"*"}),
      refused(kUltralytics, "distill_model", "knowledge distillation from a teacher model is not offered", {""}),
      read_only_by(kUltralytics, "dis", "distillation (distill_model)", "a distillation loss gain"),
      read_only_by(kUltralytics, "dlog", "distillation (distill_model)", "a distillation loss gain"),
      read_only_by(kUltralytics, "dgrad", "distillation (distill_model)", "a distillation loss gain"),
      read_only_by(kUltralytics, "dlam", "distillation (distill_model)", "a distillation loss gain"),
      // Keys of the 8.0 releases, later renamed or removed.
      refused(kUltralytics, "image_weights", "weighted image selection is not offered", {"false"}),
      predict("hide_labels", predict_output),
      predict("hide_conf", predict_output),
      predict("line_thickness", "box lines are drawn at a width that follows the image size"),
      predict("boxes", predict_output),
      refused(kUltralytics, "fl_gamma", "the classification loss is plain BCE (no focal loss), as in YOLOv8", {"0"}),
      refused(kUltralytics, "v5loader", "the YOLOv5 data loader is not offered", {"false"}),
  };
}

// EasyOCR's trainer options (trainer/train.py, its config files) with no key here. The keys
// with a counterpart are in the rows of the key table.
std::vector<ForeignSpelling> easyocr_keys() {
  return {
      refused(kEasyOcr, "FT",
              "pretrained weights always load leniently: a tensor whose shape differs (the Prediction head of another "
              "character set) is skipped and named, as EasyOCR's FT: True",
              {"*"}),
      refused(kEasyOcr, "new_prediction",
              "a Prediction head for another character set is replaced by a freshly initialised one on its own", {"*"}),
      refused(kEasyOcr, "PAD",
              "text lines always keep their aspect and are padded on the right to the batch's width bucket (EasyOCR's "
              "PAD: True); stretching to imgW is not offered",
              {"true"}),
      refused(kEasyOcr, "input_channel", "the input channels follow rgb: 1 grey, 3 with rgb: true", {"1", "3"}),
      refused(kEasyOcr, "decode", "CTC output is decoded greedily; beam search is not offered", {"greedy"}),
      // Keys of easyocr.Reader's model file (user_network/*.yaml) that people keep in the trainer's.
      read_only_by(kEasyOcr, "network_params", "Reader",
                   "the recognizer's sizes are input_channel, output_channel and hidden_size, as EasyOCR's trainer "
                   "reads them"),
      read_only_by(kEasyOcr, "lang_list", "Reader", "the trainer's languages are its characters"),
      read_only_by(kEasyOcr, "character_list", "Reader",
                   "the character set is number + symbol + lang_char, as EasyOCR's trainer builds it"),
  };
}

// timm's train.py flags with no key here (those with one are spellings on its row), by its
// argparse groups. A flag read only with another one that is refused (--lr-noise-pct with
// --lr-noise) is ignored at any value, as train.py ignores it without that flag.
std::vector<ForeignSpelling> timm_data_and_model_keys() {
  const std::string image_folder =
      "the data is an ImageFolder folder (--data-dir DIR or data=DIR); timm's torch/, hfds/, tfds/ and wds/ datasets "
      "are not read";
  const std::string execution = "compile= picks how the model runs (docs/recipe-keys.md); TorchScript and "
                                "torch.compile are not offered to training";
  const std::string head_init = "the classifier head keeps its initialisation (a pretrained head its weights)";
  const std::string normalised = "inputs are normalised with ImageNet's mean and std (0.5 and 0.5 for grey data), "
                                 "timm's default for the ResNets; others are not offered";
  return {
      refused(kTimm, "config",
              "trainer train --config FILE (or -c FILE) reads a recipe file, timm's flag names and all; in a file "
              "(timm's args.yaml) it names the file that run was read from",
              {"*"}),
      refused(kTimm, "dataset", image_folder, {""}),
      refused(kTimm, "train_num_samples", "the training images are the train/ folder's, all of them", {""}),
      refused(kTimm, "val_num_samples", "the validation images are the validation/ folder's, all of them", {""}),
      refused(kTimm, "dataset_download", "nothing is downloaded: " + image_folder, {"false"}),
      refused(kTimm, "class_map",
              "the classes are the train/ folder's subfolders in sorted order, as timm's ImageFolder without a map",
              {""}),
      refused(kTimm, "input_img_mode", "images are decoded to the data's channels; PIL image modes are not offered",
              {""}),
      refused(kTimm, "input_key", "dataset record keys do not apply: " + image_folder, {""}),
      refused(kTimm, "target_key", "dataset record keys do not apply: " + image_folder, {""}),
      read_only_by(kTimm, "dataset_trust_remote_code", "--dataset hfds/…", image_folder),
      refused(kTimm, "pretrained_path", "the weights to start from are --initial-checkpoint PATH (pretrained=PATH)",
              {""}),
      refused(kTimm, "no_resume_opt",
              "resume restores the optimizer with the weights; --initial-checkpoint PATH starts afresh from weights",
              {"false"}),
      refused(kTimm, "gp", "the ResNets pool by averaging, timm's default for them; other pools are not offered",
              {"", "avg"}),
      refused(kTimm, "in_chans", "the input channels come from the data (1 for grey images, else 3)", {""}),
      refused(kTimm, "mean", normalised, {"", "0.485,0.456,0.406"}),
      refused(kTimm, "std", normalised, {"", "0.229,0.224,0.225"}),
      refused(kTimm, "interpolation",
              "images are resized by pixel-area averaging (bilinear when enlarging); timm's named interpolations are "
              "not offered",
              {""}),
      refused(kTimm, "fuser", execution, {""}),
      refused(kTimm, "grad_checkpointing", "gradient checkpointing is not offered", {"false"}),
      refused(kTimm, "fast_norm", "timm's fast normalisation layers are not offered", {"false"}),
      refused(kTimm, "model_kwargs", "model arguments beyond --drop and --drop-path are not offered", {""}),
      refused(kTimm, "head_init_scale", head_init, {""}),
      refused(kTimm, "head_init_bias", head_init, {""}),
      read_only_by(kTimm, "torchcompile_mode", "--torchcompile", execution),
      refused(kTimm, "torchscript", execution, {"false"}),
      refused(kTimm, "torchcompile", execution, {""}),
      refused(kTimm, "model_dtype",
              "the parameters stay float32; mixed precision is --amp (amp=fp16 or amp=bf16)", {"", "float32"}),
      refused(kTimm, "no_ddp_bb", "switching off DDP's buffer broadcast is not offered", {"false"}),
      refused(kTimm, "synchronize_step", "a device synchronise after each step changes timings only; the run is the same",
              {"*"}),
      refused(kTimm, "local_rank",
              "torch.distributed.launch's rank argument: trainer train --nproc N starts and numbers its processes",
              {"*"}),
      refused(kTimm, "device_modules", "the devices are the CPU and CUDA GPUs; no device module is loaded", {""}),
  };
}

std::vector<ForeignSpelling> timm_optimizer_and_schedule_keys() {
  const std::string one_cycle = "the schedule runs once; timm's warm restarts (cycles) are not offered";
  const std::string layer_decay = "layer-wise learning-rate decay is not offered";
  return {
      refused(kTimm, "opt_betas",
              "Adam's and AdamW's β1 is --momentum here (as Ultralytics has it) and β2 0.999; --opt-betas is not "
              "offered",
              {""}),
      refused(kTimm, "clip_mode",
              "--clip-grad (grad_clip) clips the total L2 norm, timm's norm mode; value and agc clipping are not "
              "offered",
              {"norm"}),
      refused(kTimm, "layer_decay", layer_decay + ": every layer gets the schedule's rate", {""}),
      read_only_by(kTimm, "layer_decay_min_scale", "--layer-decay", layer_decay),
      read_only_by(kTimm, "layer_decay_no_opt_scale", "--layer-decay", layer_decay),
      refused(kTimm, "opt_kwargs",
              "the optimizer's arguments are keys here (--momentum, --opt-eps, --weight-decay); others are not "
              "offered",
              {""}),
      read_only_by(kTimm, "lr_noise_pct", "--lr-noise", "learning-rate noise is not offered"),
      read_only_by(kTimm, "lr_noise_std", "--lr-noise", "learning-rate noise is not offered"),
      refused(kTimm, "lr_cycle_mul", one_cycle, {"1"}),
      read_only_by(kTimm, "lr_cycle_decay", "--lr-cycle-limit above 1", one_cycle),
      refused(kTimm, "lr_cycle_limit", one_cycle, {"1"}),
      refused(kTimm, "lr_k_decay", "cosine decays as timm's does at k = 1; k-decay is not offered", {"1"}),
      refused(kTimm, "epoch_repeats", "an epoch is one pass over the training images; repeats are not offered",
              {"0"}),
      refused(kTimm, "warmup_prefix",
              "the schedule counts its epochs from the first, warmup included, as timm's default does", {"false"}),
      refused(kTimm, "start_epoch", "a run starts at its first epoch, or where resume= left it", {""}),
      read_only_by(kTimm, "patience_epochs", "--sched plateau", "the plateau schedule is not offered"),
  };
}

std::vector<ForeignSpelling> timm_augmentation_keys() {
  const std::string bce = "classification trains with cross-entropy (with --smoothing); the BCE loss is not offered";
  const std::string ratio =
      "random crops draw their aspect log-uniformly from 3/4 to 4/3, timm's default; other ratios are not offered";
  return {
      refused(kTimm, "no_aug",
              "augmentations are switched off one by one (--scale 0, --hflip 0, --color-jitter 0 …); there is no "
              "single switch",
              {"false"}),
      refused(kTimm, "train_crop_mode", "training crops are random resized crops (timm's rrc); others are not offered",
              {"", "rrc"}),
      refused(kTimm, "ratio", ratio, {"0.75,1.3333333333333333", "0.75,1.3333", "0.75,1.333", "0.75,1.33"}),
      refused(kTimm, "color_jitter_prob", "colour jitter has no probability of its own here", {""}),
      refused(kTimm, "grayscale_prob", "random greyscale is not offered", {"", "0"}),
      refused(kTimm, "gaussian_blur_prob", "random Gaussian blur is not offered", {"", "0"}),
      refused(kTimm, "aug_repeats", "repeated augmentation (each image several times an epoch) is not offered", {"0"}),
      refused(kTimm, "aug_splits", "augmentation splits (AugMix's clean + augmented copies) are not offered", {}),
      refused(kTimm, "resplit", "augmentation splits are not offered, so there is no clean split to spare from erasing",
              {}),
      refused(kTimm, "jsd_loss", "the Jensen-Shannon divergence loss needs augmentation splits, which are not offered",
              {}),
      refused(kTimm, "jsd", "timm's --jsd is --jsd-loss: the Jensen-Shannon divergence loss is not offered", {}),
      refused(kTimm, "bce_loss", bce, {"false"}),
      read_only_by(kTimm, "bce_sum", "--bce-loss", bce),
      read_only_by(kTimm, "bce_target_thresh", "--bce-loss", bce),
      read_only_by(kTimm, "bce_pos_weight", "--bce-loss", bce),
      refused(kTimm, "cutmix_minmax",
              "CutMix's box comes from its Beta(α, α) draw (--cutmix); min/max box ratios are not offered", {""}),
      refused(kTimm, "mixup_mode",
              "one Beta draw per batch, each sample mixed with its mirror in the batch (timm's batch mode); pair and "
              "elem are not offered",
              {"batch"}),
      refused(kTimm, "mixup_off_epoch", "MixUp and CutMix stay on for the whole run", {"0"}),
      refused(kTimm, "train_interpolation",
              "training images are resized by pixel-area averaging (bilinear when enlarging); timm's random, "
              "bilinear and bicubic are not offered",
              {""}),
      refused(kTimm, "drop_connect", "current train.py reads --drop-connect nowhere (deprecated for --drop-path)",
              {"*"}),
      refused(kTimm, "drop_block", "DropBlock is not offered; --drop-path is", {"", "0"}),
      refused(kTimm, "bn_momentum", "each model's BatchNorm keeps its own momentum", {""}),
      refused(kTimm, "bn_eps", "each model's BatchNorm keeps its own eps", {""}),
  };
}

std::vector<ForeignSpelling> timm_run_keys() {
  const std::string wandb = "Weights & Biases is not used: results.csv holds every epoch's metrics";
  return {
      refused(kTimm, "model_ema_force_cpu", "the EMA weights live on the training device", {"false"}),
      refused(kTimm, "model_ema_warmup",
              "the EMA decay always ramps up over ema_tau updates; timm's warmup formula is not offered",
              {"", "false"}),
      refused(kTimm, "worker_seeding",
              "the loader's augmentations draw from its own streams, seeded by --seed; timm's seeding modes (of "
              "Python's and NumPy's generators) do not apply",
              {"*"}),
      refused(kTimm, "log_interval", "progress is printed as training goes; there is no logging interval", {"*"}),
      refused(kTimm, "recovery_interval",
              "recovery checkpoints are not offered; val_interval=N (updates) writes a resumable last.pt every N",
              {"0"}),
      refused(kTimm, "save_images", "the first batch's images are not saved", {"false"}),
      refused(kTimm, "apex_amp", "NVIDIA Apex is not used: --amp (amp=true) is PyTorch's own mixed precision",
              {"false"}),
      refused(kTimm, "pin_mem", "batches reach the device as the loader hands them over; there is no pinning switch",
              {"*"}),
      refused(kTimm, "no_prefetcher", "timm's CUDA prefetcher changes speed only; the batches are the same", {"*"}),
      refused(kTimm, "eval_metric", "best.pt is chosen by validation top-1, timm's default; other metrics are not offered",
              {"top1"}),
      refused(kTimm, "tta", "test-time augmentation is not offered", {"0"}),
      refused(kTimm, "use_multi_epochs_loader", "a loader kept across epochs changes speed only; the batches are the same",
              {"*"}),
      refused(kTimm, "log_wandb", wandb, {"false"}),
      read_only_by(kTimm, "wandb_project", "--log-wandb", wandb),
      read_only_by(kTimm, "wandb_tags", "--log-wandb", wandb),
      read_only_by(kTimm, "wandb_resume_id", "--log-wandb", wandb),
  };
}

// train.py's variable-size training, NaFlex loading and knowledge distillation.
std::vector<ForeignSpelling> timm_variable_input_keys() {
  const std::string sizes = "variable-size training is not offered: inputs keep --img-size, batches --batch-size";
  const std::string naflex = "NaFlex loading (native-aspect patches for ViTs) is not offered; the models are CNNs";
  const std::string distill = "knowledge distillation from a teacher model is not offered";
  const std::string epoch = "an epoch is one pass over the training images; a fixed number of batches is not offered";
  std::vector<ForeignSpelling> keys = {
      refused(kTimm, "train_img_sizes", sizes, {""}),
      refused(kTimm, "train_batch_sizes", sizes, {""}),
      refused(kTimm, "train_size_probs", sizes, {""}),
      refused(kTimm, "train_batches_per_epoch", epoch, {""}),
      refused(kTimm, "train_steps_per_epoch", epoch, {""}),
      refused(kTimm, "naflex_loader", naflex, {"false"}),
      refused(kTimm, "kd_model_name", distill, {""}),
  };
  for (const char* name : {"train_size_schedule", "train_size_schedule_spread", "train_size_random_mix",
                           "variable_batch_loss_scale"})
    keys.push_back(read_only_by(kTimm, name, "--train-img-sizes", sizes));
  for (const char* name : {"naflex_train_seq_lens", "naflex_max_seq_len", "naflex_patch_sizes",
                           "naflex_patch_size_probs", "naflex_loss_scale", "naflex_patchify_channels_first"})
    keys.push_back(read_only_by(kTimm, name, "--naflex-loader", naflex));
  for (const char* name : {"kd_distill_type", "kd_loss_type", "distill_loss_weight", "task_loss_weight",
                           "kd_temperature", "kd_student_feature_dim", "kd_teacher_feature_dim", "kd_token_distill_type"})
    keys.push_back(read_only_by(kTimm, name, "--kd-model-name", distill));
  return keys;
}

std::vector<ForeignSpelling> timm_keys() {
  std::vector<ForeignSpelling> keys;
  for (auto group : {timm_data_and_model_keys, timm_optimizer_and_schedule_keys, timm_augmentation_keys,
                     timm_run_keys, timm_variable_input_keys}) {
    for (auto& spelling : group()) keys.push_back(std::move(spelling));
  }
  return keys;
}

}  // namespace

const std::vector<std::string>& tool_file_keys(ForeignTool tool) {
  static const std::vector<std::string> ultralytics = {"task",
                                                       "mode",
                                                       "model",
                                                       "data",
                                                       "epochs",
                                                       "time",
                                                       "patience",
                                                       "batch",
                                                       "imgsz",
                                                       "save",
                                                       "save_period",
                                                       "cache",
                                                       "device",
                                                       "workers",
                                                       "project",
                                                       "name",
                                                       "exist_ok",
                                                       "pretrained",
                                                       "cls_remap",
                                                       "optimizer",
                                                       "verbose",
                                                       "seed",
                                                       "deterministic",
                                                       "single_cls",
                                                       "rect",
                                                       "cos_lr",
                                                       "close_mosaic",
                                                       "resume",
                                                       "amp",
                                                       "fraction",
                                                       "profile",
                                                       "freeze",
                                                       "multi_scale",
                                                       "compile",
                                                       "channels_last",
                                                       "overlap_mask",
                                                       "mask_ratio",
                                                       "dropout",
                                                       "val",
                                                       "split",
                                                       "save_json",
                                                       "save_hybrid",
                                                       "conf",
                                                       "iou",
                                                       "max_det",
                                                       "half",
                                                       "dnn",
                                                       "fuse",
                                                       "plots",
                                                       "end2end",
                                                       "source",
                                                       "vid_stride",
                                                       "stream_buffer",
                                                       "visualize",
                                                       "augment",
                                                       "agnostic_nms",
                                                       "classes",
                                                       "retina_masks",
                                                       "embed",
                                                       "show",
                                                       "save_frames",
                                                       "save_txt",
                                                       "save_conf",
                                                       "save_crop",
                                                       "show_labels",
                                                       "show_conf",
                                                       "show_boxes",
                                                       "line_width",
                                                       "format",
                                                       "keras",
                                                       "optimize",
                                                       "int8",
                                                       "dynamic",
                                                       "simplify",
                                                       "opset",
                                                       "workspace",
                                                       "nms",
                                                       "lr0",
                                                       "lrf",
                                                       "momentum",
                                                       "weight_decay",
                                                       "warmup_epochs",
                                                       "warmup_momentum",
                                                       "warmup_bias_lr",
                                                       "distill_model",
                                                       "dis",
                                                       "box",
                                                       "cls",
                                                       "cls_pw",
                                                       "dfl",
                                                       "pose",
                                                       "kobj",
                                                       "rle",
                                                       "angle",
                                                       "dlog",
                                                       "dgrad",
                                                       "dlam",
                                                       "label_smoothing",
                                                       "nbs",
                                                       "hsv_h",
                                                       "hsv_s",
                                                       "hsv_v",
                                                       "degrees",
                                                       "translate",
                                                       "scale",
                                                       "shear",
                                                       "perspective",
                                                       "flipud",
                                                       "fliplr",
                                                       "bgr",
                                                       "mosaic",
                                                       "mixup",
                                                       "cutmix",
                                                       "copy_paste",
                                                       "copy_paste_mode",
                                                       "auto_augment",
                                                       "erasing",
                                                       "crop_fraction",
                                                       "cfg",
                                                       "tracker",
                                                       "save_dir",
                                                       "image_weights",
                                                       "hide_labels",
                                                       "hide_conf",
                                                       "line_thickness",
                                                       "boxes",
                                                       "fl_gamma",
                                                       "v5loader"};
  static const std::vector<std::string> easyocr = {"number",
                                                   "symbol",
                                                   "lang_char",
                                                   "experiment_name",
                                                   "train_data",
                                                   "valid_data",
                                                   "manualSeed",
                                                   "workers",
                                                   "batch_size",
                                                   "num_iter",
                                                   "valInterval",
                                                   "saved_model",
                                                   "FT",
                                                   "optim",
                                                   "lr",
                                                   "beta1",
                                                   "rho",
                                                   "eps",
                                                   "grad_clip",
                                                   "select_data",
                                                   "batch_ratio",
                                                   "total_data_usage_ratio",
                                                   "batch_max_length",
                                                   "imgH",
                                                   "imgW",
                                                   "rgb",
                                                   "contrast_adjust",
                                                   "sensitive",
                                                   "PAD",
                                                   "data_filtering_off",
                                                   "Transformation",
                                                   "FeatureExtraction",
                                                   "SequenceModeling",
                                                   "Prediction",
                                                   "num_fiducial",
                                                   "input_channel",
                                                   "output_channel",
                                                   "hidden_size",
                                                   "decode",
                                                   "new_prediction",
                                                   "freeze_FeatureFxtraction",
                                                   "freeze_SequenceModeling",
                                                   "network_params",
                                                   "lang_list",
                                                   "character_list"};
  static const std::vector<std::string> none;
  switch (tool) {
    case ForeignTool::ultralytics:
      return ultralytics;
    case ForeignTool::easyocr:
      return easyocr;
    case ForeignTool::timm:
      return timm_flag_order();
  }
  return none;
}

const std::vector<ForeignSpelling>& keys_without_counterpart() {
  static const std::vector<ForeignSpelling> spellings = [] {
    std::vector<ForeignSpelling> all = ultralytics_keys();
    for (auto& spelling : easyocr_keys()) all.push_back(std::move(spelling));
    for (auto& spelling : timm_keys()) all.push_back(std::move(spelling));
    return all;
  }();
  return spellings;
}

}  // namespace trainer
