#!/usr/bin/env python3
"""The CPU an idle `renderfarm studio` uses on a root with many folders (issue 31: under 2 % of a core).

Makes FOLDERS folders (a tree two levels deep, like out/<job>/<variant>, plus 20 render folders with
a job record), starts the studio on it with no page open, lets it settle, then reads its CPU time
(utime + stime from /proc) over SECONDS and prints the share of one core. A measurement, not a test.
Usage: idle_cpu.py RENDERFARM [FOLDERS=20000] [SECONDS=30]
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    binary = os.path.abspath(sys.argv[1])
    folders = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 30
    work = tempfile.mkdtemp(prefix="rf-studio-idle-")
    try:
        shutil.copy(os.path.join(ROOT, "jobs", "live-hearts.json"), work)
        for n in range(folders):
            os.makedirs(os.path.join(work, "out", f"job{n // 100:03d}", f"v{n % 100:02d}"), exist_ok=True)
        for n in range(20):
            folder = os.path.join(work, "out", f"job{n:03d}", "v00")
            with open(os.path.join(folder, "renderfarm.job.json"), "w") as record:
                record.write("{}")
        server = subprocess.Popen([binary, "studio", os.path.join(work, "live-hearts.json"), "--port", "0"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        print("studio at", server.stdout.readline().strip(), flush=True)
        time.sleep(5)  # the first search of the root
        start, started = cpu_seconds(server.pid), time.monotonic()
        time.sleep(seconds)
        used, elapsed = cpu_seconds(server.pid) - start, time.monotonic() - started
        print(f"{folders} folders, idle for {elapsed:.1f} s: {used:.2f} s of CPU = {100 * used / elapsed:.2f} % of a core")
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=15)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
