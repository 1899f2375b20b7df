// Ultralytics' device lists (device=0,1, device=[0,1,2,3], device=-1,-1): the recipe's ranks, the
// GPUs each rank takes, and the one clear error on a machine without them (this one has no CUDA).
#include <catch2/catch.hpp>

#include "dist/device_ranks.h"
#include "families/recipes.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;

TEST_CASE("a device list is one rank per listed GPU, nproc their count", "[config][dist]") {
  const Settings four = load_settings(std::nullopt, {"device=[0,1,2,3]"});
  CHECK(four.run.device == "0,1,2,3");
  CHECK(four.dist.nproc == 4);
  const Settings idle = load_settings(std::nullopt, {"device=-1,-1"});
  CHECK(idle.run.device == "-1,-1");
  CHECK(idle.dist.nproc == 2);
  CHECK(load_settings(std::nullopt, {"device=cuda:0,cuda:1", "nproc=2"}).run.device == "0,1");
  // A single device is no list: -1 stays Ultralytics' one idlest GPU (idle), nproc untouched.
  CHECK(load_settings(std::nullopt, {"device=-1"}).run.device == "idle");
  CHECK(load_settings(std::nullopt, {"device=[0]"}).dist.nproc == Settings{}.dist.nproc);
  std::string error;
  try {
    load_settings(std::nullopt, {"device=0,1", "nproc=3"});
  } catch (const UserError& e) {
    error = e.what();
  }
  CHECK_THAT(error, Catch::Contains("nproc=3") && Catch::Contains("device=0,1") &&
                        Catch::Contains("2 ranks"));
}

TEST_CASE("the GPUs of a device list's ranks: listed ones, and the idlest free ones for -1",
          "[dist]") {
  const std::vector<GpuLoad> loads = parse_gpu_loads(
      "0, 90, 1000, 16000\n1, 5, 2000, 16000\n2, 5, 500, 16000\n3, 0, 15000, 16000\nnot a gpu "
      "line\n");
  REQUIRE(loads.size() == 4);
  CHECK(loads[2].memory_used == 500);
  // GPU 3 has under 20 % of its memory free; 2 and 1 are as busy, 2 has more memory free.
  CHECK(idle_gpus(loads) == std::vector<int64_t>{2, 1, 0});
  CHECK(plan_device_ranks("0,1", {0, 1}, 4, {}) == std::vector<int64_t>{0, 1});
  CHECK(plan_device_ranks("-1,-1", {-1, -1}, 4, {2, 1, 0}) == std::vector<int64_t>{2, 1});
  CHECK(plan_device_ranks("2,-1", {2, -1}, 4, {2, 1, 0}) == std::vector<int64_t>{2, 1});
  CHECK_THROWS_WITH(plan_device_ranks("0,1", {0, 1}, 0, {}),
                    Catch::Contains("device=0,1") && Catch::Contains("no CUDA device") &&
                        Catch::Contains("device=cpu nproc=2"));
  CHECK_THROWS_WITH(plan_device_ranks("0,5", {0, 5}, 4, {}), Catch::Contains("no GPU 5"));
  CHECK_THROWS_WITH(plan_device_ranks("1,1", {1, 1}, 4, {}), Catch::Contains("twice"));
  CHECK_THROWS_WITH(plan_device_ranks("-1,-1", {-1, -1}, 2, {1}), Catch::Contains("no idle GPU"));
  // The ranks see their GPUs through the launcher's own CUDA_VISIBLE_DEVICES.
  CHECK(visible_devices({0, 1}, std::nullopt) == "0,1");
  CHECK(visible_devices({0, 2}, std::string("4,5,6,7")) == "4,6");
}

TEST_CASE("device=0,1 on a machine without those GPUs stops with one error naming the key",
          "[cli][dist]") {
  TempDir dir("device-list");
  write_two_class_images(dir / "data", {8, 4, 16, 5, "a", "b"});
  for (const char* device : {"0,1", "[0,1,2,3]", "-1,-1"}) {
    const CommandResult run =
        run_command("CUDA_VISIBLE_DEVICES=0,1 " + std::string(TRAINER_BINARY) + " train data=" +
                    dir.file("data") + " epochs=1 batch=4 imgsz=16 'device=" + device +
                    "' project=" + dir.file("runs"));
    INFO(run.output);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("device=") && Catch::Contains("data-parallel ranks") &&
                               Catch::Contains("no CUDA device"));
    CHECK_FALSE(std::filesystem::exists(dir / "runs"));
  }
  const CommandResult keys = run_trainer("keys 'device=[0,1,2,3]'");
  CHECK_THAT(keys.output,
             Catch::Contains("\ndevice: 0,1,2,3\n") && Catch::Contains("\nnproc: 4\n"));
}
