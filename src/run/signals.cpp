#include "run/signals.h"

#include <signal.h>

#include <atomic>

namespace geopipe::sweep {
namespace {

std::atomic<int> g_signal{0};
extern "C" void on_signal(int s) { g_signal.store(s); }

}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  for (int s : {SIGTERM, SIGUSR1, SIGINT}) sigaction(s, &sa, nullptr);
}

bool stop_requested() { return g_signal.load(std::memory_order_relaxed) != 0; }
int stop_signal() { return g_signal.load(); }
void request_stop(int signal_number) { g_signal.store(signal_number); }

}  // namespace geopipe::sweep
