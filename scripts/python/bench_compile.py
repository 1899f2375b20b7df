"""Issue 6's benchmark (not a test): the trainer's compile modes against PyTorch's eager mode and
torch.compile, training the same model with the same micro-batch, accumulation and AMP.

  bench_compile.py run --trainer build-gpu/trainer [--device cuda] [--updates 20]
      writes synthetic data, then for ResNet50 (bf16, 224 px) and YOLOv8n (fp16, 640 px) at
      micro-batch 8 x accumulate 4 and 16 x 2 (--cases picks and orders them; the CRNN of the
      digits recipe, `crnn`, and other sizes, `yolov8n:8x1@256`, on request) prints one table
      row per implementation and mode: time to the first update, seconds per update, images/s,
      peak device memory, and the ratio of images/s to the trainer's own eager mode.
  bench_compile.py pytorch --model resnet50 --amp bf16 --batch 8 --accumulate 4 --mode eager ...
      one PyTorch measurement (a process per mode, so compile caches never carry over).

The trainer side is `trainer plan --probe --probe-modes MODE`, a process per mode, which times
real updates of the recipe's model and data (batches collated before timing). The PyTorch side
trains on random tensors of the same shapes, with fused AdamW, clipping at 10, GradScaler for
fp16. YOLOv8n trains there with yolov8_loss.py, the v8 loss (task-aligned assignment, CIoU, DFL,
BCE) batched as a PyTorch loop computes it, on 1-4 boxes of 3 classes per image; torch.compile
compiles the model, and the loss runs eagerly, as in Ultralytics (its foreground selection has a
data-dependent shape). The CRNN is EasyOCR's (crnn_fixture.py) at the digits recipe's widths
(output_channel 256, hidden_size 192, 10 digits and the blank), reading lines `size` high and
3 x `size` wide, one width bucket, with CTC on 3-6-digit labels. Data for the trainer: random-noise
PNGs, an ImageFolder with 2 classes, a YOLO set with 3 classes and 1-4 boxes per image, and
EasyOCR-style line folders.
On a CPU (`--device cpu`, PyTorch 1.13 there) the same comparison is the CPU baseline: PyTorch
runs with as many threads as the trainer (its default is 1 on small machines), fp16 models run
in fp32 as the trainer's amp=auto does there, and the trainer rows are none and max-autotune
(default and reduce-overhead are eager on a CPU); PyTorch 1.13 has no torch.compile."""
import argparse
import os
import re
import resource
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

MODELS = {"resnet50": ("bf16", 224), "yolov8n": ("fp16", 640), "crnn": ("bf16", 32)}
CRNN_DIGITS = 10
CRNN_OUTPUT_CHANNEL, CRNN_HIDDEN_SIZE = 256, 192
# The target geometry first, so a GPU lease cut short still measures it.
CASES = ["yolov8n:8x4", "resnet50:8x4", "yolov8n:16x2", "resnet50:16x2"]
PYTORCH_MODES = ["eager", "default", "reduce-overhead"]
TRAINER_MODES = ["none", "default", "reduce-overhead"]
TRAINER_CPU_MODES = ["none", "max-autotune"]


def trainer_modes(device):
    return TRAINER_CPU_MODES if device == "cpu" else TRAINER_MODES


def write_png(path, side, generator, channels=3, width=None):
    import torchvision
    image = torch.randint(0, 256, (channels, side, width or side), dtype=torch.uint8, generator=generator)
    torchvision.io.write_png(image, path)


def digit_labels(count, generator):
    """`count` strings of 3-6 digits."""
    lengths = torch.randint(3, 7, (count,), generator=generator).tolist()
    return ["".join(str(d) for d in torch.randint(0, CRNN_DIGITS, (n,), generator=generator).tolist()) for n in lengths]


def random_boxes(generator):
    """One image's labels: 1-4 boxes of 3 classes, rows (class, cx, cy, w, h) in fractions of the
    image, away from its edges."""
    boxes = []
    for _ in range(int(torch.randint(1, 5, (1,), generator=generator))):
        cls, cx, cy, w, h = torch.rand(5, generator=generator).tolist()
        boxes.append((int(cls * 3), 0.2 + 0.6 * cx, 0.2 + 0.6 * cy, 0.05 + 0.3 * w, 0.05 + 0.3 * h))
    return boxes


def write_data(root, images=32):
    generator = torch.Generator().manual_seed(0)
    for split in ("train", "val"):
        for name in ("a", "b"):
            folder = os.path.join(root, "classify", split, name)
            os.makedirs(folder, exist_ok=True)
            for i in range(images // 2 if split == "train" else 4):
                write_png(os.path.join(folder, f"{i}.png"), 256, generator)
        image_folder = os.path.join(root, "detect", "images", split)
        label_folder = os.path.join(root, "detect", "labels", split)
        os.makedirs(image_folder, exist_ok=True)
        os.makedirs(label_folder, exist_ok=True)
        for i in range(images if split == "train" else 4):
            write_png(os.path.join(image_folder, f"{i}.png"), 640, generator)
            rows = [f"{int(cls)} {cx:.4f} {cy:.4f} {w:.4f} {h:.4f}" for cls, cx, cy, w, h in random_boxes(generator)]
            with open(os.path.join(label_folder, f"{i}.txt"), "w") as f:
                f.write("\n".join(rows) + "\n")
        line_folder = os.path.join(root, "ocr", split)
        os.makedirs(line_folder, exist_ok=True)
        with open(os.path.join(line_folder, "labels.csv"), "w") as f:
            f.write("filename,words\n")
            for i, words in enumerate(digit_labels(images if split == "train" else 4, generator)):
                write_png(os.path.join(line_folder, f"{i}.png"), 32, generator, channels=1, width=96)
                f.write(f"{i}.png,{words}\n")
    with open(os.path.join(root, "detect", "data.yaml"), "w") as f:
        f.write(f"path: {os.path.join(root, 'detect')}\ntrain: images/train\nval: images/val\n"
                "names:\n  0: a\n  1: b\n  2: c\n")


def detection_targets(batch, imgsz):
    """[batch, 4, 5] rows class, cx, cy, w, h in pixels (class -1 = padding), drawn as write_data
    draws its labels."""
    generator = torch.Generator().manual_seed(1)
    targets = torch.zeros(batch, 4, 5)
    targets[..., 0] = -1
    for b in range(batch):
        for m, box in enumerate(random_boxes(generator)):
            targets[b, m] = torch.tensor(box)
    targets[..., 1:] *= imgsz
    return targets


def build_model(name):
    if name == "resnet50":
        import torchvision
        return torchvision.models.resnet50(num_classes=2)
    if name == "crnn":
        import crnn_fixture
        return crnn_fixture.Model(1, CRNN_OUTPUT_CHANNEL, CRNN_HIDDEN_SIZE, CRNN_DIGITS + 1)
    import yolov8_fixture
    return yolov8_fixture.YOLOv8(3)


def pytorch(args):
    device = torch.device(args.device)
    if device.type == "cpu":
        torch.set_num_threads(len(os.sched_getaffinity(0)))
    torch.manual_seed(0)
    model = build_model(args.model).to(device).train()
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "off": None}[args.amp]
    if args.mode != "eager":
        if not hasattr(torch, "compile"):
            print(f"mode={args.mode} unavailable=torch {torch.__version__} has no torch.compile")
            return
        model = torch.compile(model, mode=args.mode)
    fused = {"fused": True} if device.type == "cuda" else {}
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05, **fused)
    scaling = dtype == torch.float16 and device.type == "cuda"
    # torch.amp.GradScaler since 2.3; the torch.cuda.amp one is deprecated there.
    scaler = (torch.amp.GradScaler("cuda", enabled=scaling) if hasattr(torch.amp, "GradScaler")
              else torch.cuda.amp.GradScaler(enabled=scaling))
    if args.model == "crnn":
        x = torch.randn(args.batch, 1, args.imgsz, 3 * args.imgsz, device=device)
    else:
        x = torch.randn(args.batch, 3, args.imgsz, args.imgsz, device=device)
    if args.model == "resnet50":
        y = torch.randint(0, 2, (args.batch,), device=device)

        def loss_of(output):
            return torch.nn.functional.cross_entropy(output, y)
    elif args.model == "crnn":
        generator = torch.Generator().manual_seed(1)
        words = digit_labels(args.batch, generator)
        targets = torch.tensor([int(d) + 1 for w in words for d in w], device=device)  # class 0 is CTC's blank
        target_lengths = torch.tensor([len(w) for w in words], device=device)

        def loss_of(output):
            # [B, T, C] -> [T, B, C], in fp32 as autocast runs CTC
            log_probs = output.float().log_softmax(2).permute(1, 0, 2)
            input_lengths = torch.full((output.shape[0],), output.shape[1], dtype=torch.long, device=device)
            return torch.nn.functional.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction="sum",
                                                zero_infinity=True) / output.shape[0]
    else:
        from yolov8_loss import DetectionLoss
        boxes = detection_targets(args.batch, args.imgsz).to(device)
        detection_loss = DetectionLoss(3)

        def loss_of(output):
            return detection_loss(output, boxes)[0]

    # Several forwards per update: cudagraph trees must be told where a step begins, or a replay
    # overwrites outputs the previous micro-batch still holds ("accessing tensor output of
    # CUDAGraphs that has been overwritten by a subsequent run").
    mark_step = (torch.compiler.cudagraph_mark_step_begin if args.mode == "reduce-overhead" else lambda: None)

    if args.mode == "reduce-overhead":
        # Backward's outputs live in the graph's pool: a gradient stolen into .grad by the first
        # micro-batch is overwritten by the next replay. Gradients that already exist are added to
        # in place instead, so the accumulation reads each output before the next replay.
        for parameter in model.parameters():
            parameter.grad = torch.zeros_like(parameter)

    def update():
        for _ in range(args.accumulate):
            mark_step()
            with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
                loss = loss_of(model(x)) / args.accumulate
            scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=args.mode != "reduce-overhead")

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize()

    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    start = time.perf_counter()
    update()
    sync()
    first = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(args.updates):
        update()
    sync()
    per_update = (time.perf_counter() - start) / args.updates
    # The process's peak resident set on a CPU, as the trainer's probe reports there.
    peak = (torch.cuda.max_memory_allocated() / 2**20 if device.type == "cuda"
            else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(f"mode={args.mode} first_update_seconds={first:.3f} seconds_per_update={per_update:.4f} "
          f"images_per_second={args.batch * args.accumulate / per_update:.1f} peak_memory_mb={peak:.1f}")


PROBE_ROW = re.compile(r"^\s+(none|default|reduce-overhead|max-autotune)\s+(.*?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)"
                       r"\s+([\d.]+)\s\s(.*)$")
# The probe's log line for its first (cold) round: where the first update's time went.
PROBE_FIRST_UPDATE = re.compile(r"probed .*, first update [\d.]+ s \((micro-steps .*)\)$")


def trainer_rows(args, data, model, amp, imgsz, batch, accumulate):
    if model == "resnet50":
        keys = ["task=classify", "model=resnet50", f"data={data}/classify"]
    elif model == "crnn":
        keys = ["task=ocr", "model=crnn", f"data={data}/ocr", f"charset={''.join(map(str, range(CRNN_DIGITS)))}",
                f"output_channel={CRNN_OUTPUT_CHANNEL}", f"hidden_size={CRNN_HIDDEN_SIZE}", f"imgH={imgsz}",
                f"imgW={3 * imgsz}", f"buckets={3 * imgsz}"]
    else:
        keys = ["task=detect", "model=yolov8n.yaml", f"data={data}/detect/data.yaml", "mosaic=0"]
    keys += [f"imgsz={imgsz}", f"batch={batch}", f"accumulate={accumulate}", f"amp={amp}", f"device={args.device}",
             "optimizer=adamw", "lr0=0.001", "weight_decay=0.05", "grad_clip=10", "workers=2",
             f"project={data}/runs"]
    rows = {}
    # A process per mode, as on the PyTorch side: each first update is a cold start (within one
    # process, default's cuDNN autotuning would make reduce-overhead's first update look free).
    for mode in trainer_modes(args.device):
        result = subprocess.run([args.trainer, "plan", *keys, f"--probe={args.updates}", f"--probe-modes={mode}"],
                                capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"trainer plan --probe failed ({result.returncode}):\n{result.stdout}{result.stderr}")
        lines = result.stdout.splitlines()
        # The probe's per-configuration lines are log lines, which trainer writes to stderr.
        parts = next((m.group(1) for m in map(PROBE_FIRST_UPDATE.search, result.stderr.splitlines()) if m), None)
        for line in lines:
            match = PROBE_ROW.match(line)
            if match and match.group(1) == mode:
                _, _, first, per_update, ips, peak, note = match.groups()
                note = "; ".join(text for text in (note.strip(), parts and f"first update: {parts}") if text)
                rows[mode] = (float(first), float(per_update), float(ips), float(peak), note)
    return rows


def pytorch_row(args, model, amp, imgsz, batch, accumulate, mode):
    command = [sys.executable, os.path.abspath(__file__), "pytorch", "--model", model, "--amp", amp, "--batch",
               str(batch), "--accumulate", str(accumulate), "--imgsz", str(imgsz), "--mode", mode, "--updates",
               str(args.updates), "--device", args.device]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        # One failed torch.compile must not cost the other rows of a timed GPU session.
        errors = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith(" ")]
        return f"failed: {errors[-1] if errors else 'exit status %d' % result.returncode}"
    line = result.stdout.strip().splitlines()[-1]
    if "unavailable=" in line:
        return "unavailable: " + line.split("unavailable=", 1)[1]
    values = dict(item.split("=", 1) for item in line.split())
    return (float(values["first_update_seconds"]), float(values["seconds_per_update"]),
            float(values["images_per_second"]), float(values["peak_memory_mb"]), "")


def run(args):
    import shutil
    import tempfile
    data = tempfile.mkdtemp(prefix="bench-compile-")
    try:
        write_data(data)
        measure(args, data)
    finally:
        shutil.rmtree(data, ignore_errors=True)


def measure(args, data):
    print(f"# {args.updates} timed updates after one warm-up; torch {torch.__version__}; device {args.device}"
          + (f" ({torch.cuda.get_device_name()})" if args.device.startswith("cuda") else ""))
    print(f"{'model':8} {'geometry':8} {'impl':8} {'mode':16} {'first s':>8} {'s/update':>9} {'img/s':>8} "
          f"{'peak MB':>8} {'vs ours eager':>13}")
    for model, batch, accumulate, size in args.cases:
        amp, imgsz = MODELS[model]
        imgsz = args.imgsz or size or imgsz
        if args.device == "cpu" and amp == "fp16":
            amp = "off"  # CPU autocast has no fp16; amp=auto trains in fp32 there
        geometry = f"{batch}x{accumulate}"
        ours = trainer_rows(args, data, model, amp, imgsz, batch, accumulate)
        base = ours["none"][2]

        def show(impl, mode, row):
            # Each row as soon as it is measured: a GPU lease cut short keeps what it measured.
            if row is None or isinstance(row, str):
                print(f"{model:8} {geometry:8} {impl:8} {mode:16} {'n/a':>8}  {row or ''}", flush=True)
                return
            first, per_update, ips, peak, note = row
            print(f"{model:8} {geometry:8} {impl:8} {mode:16} {first:8.2f} {per_update:9.4f} {ips:8.1f} "
                  f"{peak:8.0f} {ips / base:12.2f}x  {note}", flush=True)

        for mode in trainer_modes(args.device):
            show("trainer", mode, ours.get(mode))
        for mode in args.pytorch_modes:
            show("pytorch", mode, pytorch_row(args, model, amp, imgsz, batch, accumulate, mode))


def parse_case(text):
    """'yolov8n:8x4' -> ('yolov8n', 8, 4, None); 'yolov8n:8x1@256' -> ('yolov8n', 8, 1, 256)"""
    match = re.fullmatch(r"(\w+):(\d+)x(\d+)(?:@(\d+))?", text)
    if not match or match.group(1) not in MODELS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not MODEL:BATCHxACCUMULATE[@SIZE] with MODEL one of {list(MODELS)}")
    return match.group(1), int(match.group(2)), int(match.group(3)), int(match.group(4)) if match.group(4) else None


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    run_parser = sub.add_parser("run")
    run_parser.add_argument("--trainer", required=True)
    run_parser.add_argument("--device", default="cuda")
    run_parser.add_argument("--updates", type=int, default=20)
    run_parser.add_argument("--imgsz", type=int, default=0, help="override both models' image size (smoke runs)")
    run_parser.add_argument("--cases", type=parse_case, nargs="+", default=[parse_case(c) for c in CASES],
                            help=f"MODEL:BATCHxACCUMULATE[@SIZE], measured in this order (default: {' '.join(CASES)})")
    run_parser.add_argument("--pytorch-modes", nargs="+", choices=PYTORCH_MODES, default=PYTORCH_MODES,
                            help="the PyTorch rows to measure (each torch.compile mode costs minutes)")
    one = sub.add_parser("pytorch")
    one.add_argument("--model", choices=MODELS, required=True)
    one.add_argument("--amp", choices=["bf16", "fp16", "off"], required=True)
    one.add_argument("--batch", type=int, required=True)
    one.add_argument("--accumulate", type=int, required=True)
    one.add_argument("--imgsz", type=int, required=True)
    one.add_argument("--mode", choices=PYTORCH_MODES, required=True)
    one.add_argument("--updates", type=int, default=20)
    one.add_argument("--device", default="cuda")
    args = parser.parse_args()
    if args.command == "run":
        run(args)
    else:
        pytorch(args)


if __name__ == "__main__":
    main()
