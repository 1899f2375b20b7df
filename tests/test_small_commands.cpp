// Ultralytics' small commands: help, version, checks, copy-cfg (whose file loads back as a recipe),
// cfg, and settings (the user settings file under $XDG_CONFIG_HOME that sets the default project
// and the datasets folder).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <optional>
#include <sstream>

#include "config/key_docs.h"
#include "config/recipe_keys.h"
#include "config/user_settings.h"
#include "io/run_folder.h"
#include "test_helpers.h"

using namespace trainer::testing;

namespace {

CommandResult trainer_in(const TempDir& dir, const std::string& arguments) {
  return run_command("cd '" + dir.path().string() + "' && XDG_CONFIG_HOME='" + (dir / "config").string() + "' " +
                     TRAINER_BINARY + " " + arguments);
}

// Points XDG_CONFIG_HOME at a folder while it lives: the user settings are read from there.
class ConfigHome {
 public:
  explicit ConfigHome(const std::filesystem::path& folder) {
    if (const char* previous = std::getenv("XDG_CONFIG_HOME")) previous_ = previous;
    setenv("XDG_CONFIG_HOME", folder.c_str(), 1);
  }
  ~ConfigHome() {
    if (previous_) {
      setenv("XDG_CONFIG_HOME", previous_->c_str(), 1);
    } else {
      unsetenv("XDG_CONFIG_HOME");
    }
  }
  ConfigHome(const ConfigHome&) = delete;
  ConfigHome& operator=(const ConfigHome&) = delete;

 private:
  std::optional<std::string> previous_;
};

// A command's output without its log lines (the dialect's info line), which carry their time.
std::string without_log(const std::string& output) {
  std::string kept;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("[20", 0) != 0) kept += line + "\n";
  }
  return kept;
}

}  // namespace

TEST_CASE("help, version and checks", "[cli][small]") {
  const CommandResult help = run_trainer("help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.output, Catch::Contains("train") && Catch::Contains("copy-cfg") && Catch::Contains("settings"));
  const CommandResult version = run_trainer("version");
  CHECK(version.exit_code == 0);
  CHECK(run_trainer("--version").output == version.output);
  CHECK_THAT(version.output, Catch::Matches("[0-9]+\\.[0-9]+\\.[0-9]+\n"));
  const CommandResult checks = run_trainer("checks");
  INFO(checks.output);
  CHECK(checks.exit_code == 0);
  for (const char* line : {"LibTorch", "OpenCV", "threads", "oneDNN check", "CUDA", "memory available",
                           "disk free here", "checks passed"}) {
    CHECK_THAT(checks.output, Catch::Contains(line));
  }
  CHECK_THAT(checks.output, Catch::Contains(version.output.substr(0, version.output.size() - 1)));
}

TEST_CASE("copy-cfg writes every key with its help, and the file loads back as the defaults", "[cli][small]") {
  TempDir dir("copy-cfg");
  const CommandResult copied = trainer_in(dir, "copy-cfg");
  INFO(copied.output);
  REQUIRE(copied.exit_code == 0);
  const std::string text = read_text(dir / "default_copy.yaml");
  for (const trainer::RecipeKey& key : trainer::recipe_keys()) {
    INFO(key.name);
    CHECK_THAT(text, Catch::Contains("\n" + key.name + ": ") || Catch::Contains("\n# " + key.name + ": "));
    CHECK_THAT(text, Catch::Contains("# " + key.help + "\n"));
  }
  CHECK(run_trainer("cfg").output == text);
  const CommandResult loaded = trainer_in(dir, "keys --config default_copy.yaml");
  INFO(loaded.output);
  CHECK(loaded.exit_code == 0);
  CHECK(without_log(loaded.output) == without_log(trainer_in(dir, "keys").output));
  // An edited copy is never overwritten.
  write_text(dir / "default_copy.yaml", "epochs: 3\n");
  CHECK(trainer_in(dir, "copy-cfg").exit_code == 2);
  CHECK(read_text(dir / "default_copy.yaml") == "epochs: 3\n");
}

TEST_CASE("settings keep runs_dir and datasets_dir for the user", "[cli][small]") {
  TempDir dir("settings");
  const CommandResult defaults = trainer_in(dir, "settings");
  CHECK(defaults.exit_code == 0);
  CHECK_THAT(defaults.output, Catch::Contains("datasets_dir: datasets\n") && Catch::Contains("runs_dir: runs\n"));
  const std::string runs = (dir / "my runs").string();
  const CommandResult changed = trainer_in(dir, "settings 'runs_dir=" + runs + "' datasets_dir = /data/sets");
  INFO(changed.output);
  CHECK(changed.exit_code == 0);
  CHECK_THAT(read_text(dir / "config" / "trainer" / "settings.yaml"), Catch::Contains("datasets_dir: /data/sets"));
  // Without project= the recipe names none (Ultralytics' null): run folders go to runs_dir/<task>.
  CHECK_THAT(trainer_in(dir, "keys").output, Catch::Contains("project: none\n"));
  CHECK_THAT(trainer_in(dir, "keys project=elsewhere").output, Catch::Contains("project: elsewhere\n"));
  const CommandResult unknown = trainer_in(dir, "settings wandb=false");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Catch::Contains("unknown setting 'wandb'") && Catch::Contains("datasets_dir, runs_dir"));
  CHECK(trainer_in(dir, "settings reset").exit_code == 0);
}

TEST_CASE("datasets_dir() reads the user settings file", "[config][small]") {
  TempDir dir("datasets-dir");
  const ConfigHome home(dir.path());
  CHECK(trainer::datasets_dir() == "datasets");
  write_text(dir / "trainer" / "settings.yaml", "datasets_dir: /srv/datasets\n");
  CHECK(trainer::datasets_dir() == "/srv/datasets");
  write_text(dir / "trainer" / "settings.yaml", "datasets_dir: /srv/datasets\nweights: x\n");
  CHECK_THROWS_WITH(trainer::datasets_dir(), Catch::Contains("settings.yaml:2") && Catch::Contains("'weights'"));
  write_text(dir / "trainer" / "settings.yaml", "datasets_dir: /srv/datasets\n[a, b]: x\n");
  CHECK_THROWS_WITH(trainer::datasets_dir(), Catch::Contains("settings.yaml:2") && Catch::Contains("single word"));
}

TEST_CASE(
    "run folders go to project/name when project is given, else to runs_dir/task/name, as "
    "Ultralytics'",
    "[config][small]") {
  TempDir dir("runs-parent");
  const ConfigHome home(dir.path());
  CHECK(trainer::runs_parent("", "detect") == std::filesystem::path("runs") / "detect");
  write_text(dir / "trainer" / "settings.yaml", "runs_dir: /srv/runs\n");
  CHECK(trainer::runs_parent("", "classify") == std::filesystem::path("/srv/runs/classify"));
  // project=P name=N is P/N, relative or absolute, the task named nowhere.
  CHECK(trainer::runs_parent("/data/exp", "detect") == std::filesystem::path("/data/exp"));
  CHECK(trainer::runs_parent("exp", "detect") == std::filesystem::path("exp"));
  CHECK(trainer::make_run_folder(dir / "exp", "one", false).root == dir / "exp" / "one");
  CHECK(trainer::make_run_folder(dir / "exp", "one", false).root == dir / "exp" / "one2");
  CHECK(trainer::make_run_folder(dir / "exp", "one", true).root == dir / "exp" / "one");
}

TEST_CASE(
    "a bare YOLO name on the command line is its released NAME.pt, looked for where Ultralytics "
    "looks",
    "[cli][small]") {
  TempDir dir("bare-model");
  // Neither in the working directory nor in weights_dir: exit 2, saying where the file goes.
  const CommandResult missing = trainer_in(dir, "keys model=yolov8s epochs=3");
  INFO(missing.output);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output,
             Catch::Contains("yolov8s.pt") && Catch::Contains("working directory") &&
                 Catch::Contains("weights_dir weights") && Catch::Contains("model=yolov8s.yaml"));
  // One report: the unknown key is named in the same run.
  CHECK_THAT(trainer_in(dir, "keys model=yolov8s epoch=3").output,
             Catch::Contains("2 problems") && Catch::Contains("unknown key 'epoch'"));
  // In the settings' weights_dir, then in the working directory (which wins): read as
  // model=NAME.pt.
  write_text(dir / "store" / "yolov8s.pt", "");
  REQUIRE(trainer_in(dir, "settings weights_dir=" + (dir / "store").string()).exit_code == 0);
  const CommandResult stored = trainer_in(dir, "keys model=yolov8s");
  INFO(stored.output);
  CHECK(stored.exit_code == 0);
  CHECK_THAT(
      stored.output,
      Catch::Contains("\nmodel: yolov8s\n") &&
          Catch::Contains("\npretrained: " + (dir / "store" / "yolov8s.pt").string() + "\n"));
  write_text(dir / "yolov8s.pt", "");
  const CommandResult here = trainer_in(dir, "keys model=yolov8s");
  CHECK(here.exit_code == 0);
  CHECK(without_log(here.output) == without_log(trainer_in(dir, "keys model=yolov8s.pt").output));
  CHECK_THAT(here.output, Catch::Contains("\npretrained: yolov8s.pt\n"));
  // The architecture alone, and timm's bare names, which name an architecture, read no file.
  CHECK_THAT(trainer_in(dir, "keys model=yolov8s.yaml").output,
             Catch::Contains("\npretrained: none\n"));
  write_text(dir / "resnet18.pt", "");
  const CommandResult timm = trainer_in(dir, "keys model=resnet18");
  CHECK(timm.exit_code == 0);
  CHECK_THAT(timm.output,
             Catch::Contains("\nmodel: resnet18\n") && Catch::Contains("\npretrained: none\n"));
}
