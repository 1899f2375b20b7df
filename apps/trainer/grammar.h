// Ultralytics' command grammar in front of the subcommand parser: `trainer [TASK] MODE [key=value …]`
// and `trainer MODE [TASK] …`, a `mode=` key in place of the mode word, and `train resume
// model=PATH` for resume=PATH.
#pragma once
#include <string>
#include <vector>

namespace trainer::app {

// The command line (without the program name) as the subcommand parser takes it: the mode word
// first, a task word moved to the end as task=TASK (dropped for export, whose checkpoint knows its
// task). A task we do not train (segment, pose, obb) is a UserError listing the tasks.
std::vector<std::string> arguments_in_our_order(std::vector<std::string> arguments);

// Ultralytics' `train resume model=last.pt`: a bare resume (or resume=true) with model=PATH means
// resume=PATH. Other overrides are returned unchanged.
std::vector<std::string> with_resume_spelling(const std::vector<std::string>& overrides);

}  // namespace trainer::app
