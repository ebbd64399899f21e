# Sourced by the bench/ scripts that run beside a background load: they append each load
# process's pid to load_pids, and stop_load ends them all (also from an EXIT trap).
load_pids=()
stop_load() {
  local pid
  for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${load_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  load_pids=()
}
