// What the user asked nexrun to do, after the command line was parsed and checked.
#pragma once

#include <string>
#include <vector>

namespace nexar::launcher {

struct JobPlan {
  int np = 1;                     // ranks to start on this host
  bool tag_output = false;        // prefix each output line with the rank and stream
  double timeout_s = 0;           // whole-job limit; 0: none
  double grace_s = 1.0;           // SIGTERM -> SIGKILL delay when tearing the job down
  bool no_kill = false;           // a failing rank does not stop the others
  bool verbose = false;           // log launcher steps (NX_INFO LAUNCH)
  std::vector<std::string> argv;  // the program and its arguments, untouched
};

}  // namespace nexar::launcher
