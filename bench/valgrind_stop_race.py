#!/usr/bin/env python3
"""bench/valgrind_stop_race.py BENCHLEDGER TRIES: how often a stop signal sent in Valgrind's first
moments is lost. Each try starts `BENCHLEDGER run --suite executors --measure
instructions:valgrind` with a TMPDIR of its own, sends SIGINT the moment a process with
`--collect-atstart=no` (the counted case under Valgrind) appears, waits for the run to end and
counts callgrind processes of that TMPDIR still running ("left"). Prints one line a try and the
totals; a measurement of a rare race (minutes for a hundred tries), not a test.
"""
import os, signal, subprocess, sys, time, tempfile, shutil
BIN = sys.argv[1]; tries = int(sys.argv[2])
def procs_with(text, tmp):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit(): continue
        try:
            cmd = open(f"/proc/{pid}/cmdline","rb").read().replace(b"\0",b" ").decode(errors="replace")
            env = open(f"/proc/{pid}/environ","rb").read()
        except OSError: continue
        if text in cmd and tmp.encode() in env: found.append(pid)
    return found
lost = slow = 0
for i in range(tries):
    tmp = tempfile.mkdtemp(prefix="vgrace-")
    p = subprocess.Popen([BIN, "run", "--ledger", tmp + "/l.ndjson", "--suite", "executors", "--measure", "instructions:valgrind", "--repetitions", "1000", "--warmup", "0"],
                         env=dict(os.environ, TMPDIR=tmp), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    t0 = time.time()
    while not procs_with("--collect-atstart=no", tmp) and time.time() - t0 < 120 and p.poll() is None:
        time.sleep(0.005)
    seen = time.time() - t0; rc = p.poll()
    p.send_signal(signal.SIGINT)
    sent = time.time()
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill(); p.wait()
    took = time.time() - sent
    left = procs_with("callgrind", tmp)
    if left: lost += 1
    if took > 5: slow += 1
    print(f"try {i}: seen after {seen:.2f} s rc {rc}, ended in {took:.1f} s, left {len(left)}", flush=True)
    for pid in left:
        try: os.kill(int(pid), signal.SIGKILL)
        except OSError: pass
    shutil.rmtree(tmp, ignore_errors=True)
print(f"tries {tries} lost {lost} slow {slow}")
