// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The first failure and --timeout ask for a hang report before the ranks are stopped (what
// the others were doing). A runner's event loop does not block on it: the report waits for
// the ranks' ends, which that same loop delivers (a blocked loop made every gang restart
// across hosts wait the whole NEXAR_REPORT_TIMEOUT). It holds the pending report instead
// and begins the teardown once due() says so.
#pragma once

#include <functional>
#include <utility>

namespace nexar::launcher {

class ReportThenTeardown {
 public:
  // How often the loop looks at a pending report (its poll timeout meanwhile), in ms.
  static constexpr int kPollMs = 10;

  // report_done: HangCollector::request's test (true once printed or given up); null when
  // there are no reports. teardown: whether the ranks are to be stopped after it.
  void begin(std::function<bool()> report_done, bool teardown) {
    done_ = report_done ? std::move(report_done) : [] { return true; };
    teardown_ = teardown_ || teardown;
  }
  bool pending() const { return static_cast<bool>(done_); }
  // True once, when the report is done and a teardown was asked for: begin it now.
  bool teardown_due() {
    if (!done_ || !done_()) return false;
    done_ = nullptr;
    return teardown_;
  }

 private:
  std::function<bool()> done_;
  bool teardown_ = false;
};

}  // namespace nexar::launcher
