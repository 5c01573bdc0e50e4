#!/usr/bin/env python3
"""make k8s-test: the Kubernetes Jobs `renderfarm submit --kubernetes` writes, run pod by pod with podman in the image
`make image` built (RenderFarm article RunningOnACluster, "What make k8s-test proves").

For each case it copies jobs/ into a folder that stands for the volume claim, runs `renderfarm submit JOB
--kubernetes DIR --image IMAGE …` there, reads prepare.yaml, render.yaml and merge.yaml back, and runs the pod
template of each Job with `podman run`: the prepare pod, every completion index of the Indexed render Job (with
JOB_COMPLETION_INDEX and the annotation the written env reads, as Kubernetes sets them), then the merge pod, each
as written: command, args (with Kubernetes' $(VAR) expansion), env, the pod's and the container's
securityContext, volume mounts (the persistentVolumeClaim as the claim folder, an emptyDir as a fresh folder). A
key the runner does not know fails it, rather than be silently dropped. A pod that exits non-zero fails the test
with its log. The merged folder must then hold a local render's frames byte for byte, and a manifest that is
complete with the local render's frames (file and sha256), as the OpenJD and Slurm tests compare them. A last
case breaks the render Job's arguments on purpose: its pod must fail and its log must be shown.

usage: k8s-run.py --renderfarm HOST-BINARY --image IMAGE --work DIR
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
PODMAN = ["podman", "--runtime", "runc"]  # crun refuses hybrid cgroup (v1 + unified) hosts

# What the runner knows how to carry out; anything else in a written Job fails the test.
KNOWN_JOB_SPEC = {"backoffLimit", "completionMode", "completions", "parallelism", "backoffLimitPerIndex", "template"}
KNOWN_POD_SPEC = {"restartPolicy", "securityContext", "containers", "volumes"}
KNOWN_POD_SECURITY = {"runAsNonRoot", "runAsUser", "runAsGroup", "fsGroup", "fsGroupChangePolicy", "seccompProfile"}
KNOWN_CONTAINER = {"name", "image", "command", "args", "env", "resources", "securityContext", "volumeMounts"}
KNOWN_CONTAINER_SECURITY = {"allowPrivilegeEscalation", "readOnlyRootFilesystem", "capabilities"}

# (name, job file in jobs/, submit arguments): a plain job and variants jobs, then one job per remaining built-in
# plugin, so that every library and font the image needs is loaded in it; small enough for CI.
CASES = [
    ("plain", "live-hearts.json", ["--tasks", "3", "-j", "2", "--frames", "0-89"]),
    ("variants", "streamer-badges.json", ["--tasks", "3", "-j", "2"]),
    ("variants-text", "name-badges.json", ["--tasks", "2", "-j", "2"]),  # Pango and the Noto fonts
    ("physics", "gift-drop.json", ["--tasks", "3", "-j", "2", "--frames", "60-119"]),  # chipmunk
    ("shapes-text", "gift-basket.json", ["--tasks", "2", "-j", "2", "--frames", "0-29"]),
    ("image", "avatar-badge.json", ["--tasks", "2", "-j", "2", "--frames", "0-19"]),  # libturbojpeg, libpng
    ("lottie", "lottie-gift.json", ["--tasks", "2", "-j", "2", "--frames", "0-19"]),  # rlottie
    ("video", "hearts-over-footage.json", ["--tasks", "2", "-j", "2", "--frames", "0-19"]),  # libav*
    # Worker processes sandboxing themselves inside the pod (no capability, no new privileges, read-only).
    ("isolate", "burst.json", ["--tasks", "2", "-j", "2", "--isolate", "--sandbox", "require"]),
]


class PodFailed(Exception):
    pass


def unknown(what, mapping, known):
    extra = set(mapping) - known
    if extra:
        raise SystemExit(f"k8s-test: {what} has {sorted(extra)}, which this runner does not carry out; teach it")


def expand(text, env):
    """Kubernetes' expansion of command and args: $(VAR) by the container's env when defined, $$ as $."""
    def one(match):
        if match.group(0) == "$$":
            return "$"
        name = match.group(1)
        return env[name] if name in env else match.group(0)
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)", one, text)


def pod_command(job, index, image_check, claim, scratch_root):
    """The podman run command of the pod of `job` (a loaded Job) with completion index `index` (None when the
    Job is not Indexed), and the emptyDir folders it uses."""
    spec = job["spec"]
    unknown("Job spec", spec, KNOWN_JOB_SPEC)
    pod = spec["template"]["spec"]
    unknown("pod spec", pod, KNOWN_POD_SPEC)
    if pod.get("restartPolicy") != "Never":
        raise SystemExit(f"k8s-test: restartPolicy {pod.get('restartPolicy')!r}; the runner runs each pod once")
    if len(pod["containers"]) != 1:
        raise SystemExit("k8s-test: a pod with other than one container")
    container = pod["containers"][0]
    unknown("container", container, KNOWN_CONTAINER)
    if container["image"] != image_check:
        raise SystemExit(f"k8s-test: the Job runs image {container['image']!r}, not {image_check!r}")
    # Podman's default limits exceed what runc may set where root lacks CAP_SYS_RESOURCE: open files at this
    # process's hard limit, processes at most conmon's 32768.
    files = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    processes = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    processes = 32768 if processes == resource.RLIM_INFINITY else min(processes, 32768)
    args = ["--rm", "--ulimit", f"nofile={files}:{files}", "--ulimit", f"nproc={processes}:{processes}"]

    # The pod's securityContext.
    security = pod.get("securityContext", {})
    unknown("pod securityContext", security, KNOWN_POD_SECURITY)
    user = security.get("runAsUser")
    group = security.get("runAsGroup", user)
    if user is not None:
        args += ["--user", f"{user}:{group}" if group is not None else str(user)]
    if security.get("runAsNonRoot"):
        if user is None:
            raise SystemExit("k8s-test: runAsNonRoot without runAsUser: the image's user would decide")
        if user == 0:
            raise PodFailed("runAsNonRoot with runAsUser 0: the kubelet refuses to start the container")
    if "fsGroup" in security:
        args += ["--group-add", str(security["fsGroup"])]
    seccomp = security.get("seccompProfile", {}).get("type", "RuntimeDefault")
    if seccomp != "RuntimeDefault":
        raise SystemExit(f"k8s-test: seccompProfile {seccomp!r}; podman applies its default profile only")

    # The container's securityContext.
    csecurity = container.get("securityContext", {})
    unknown("container securityContext", csecurity, KNOWN_CONTAINER_SECURITY)
    if csecurity.get("readOnlyRootFilesystem"):
        args += ["--read-only", "--read-only-tmpfs=false"]  # only the Job's own volumes are writable
    if csecurity.get("allowPrivilegeEscalation") is False:
        args += ["--security-opt", "no-new-privileges"]
    capabilities = csecurity.get("capabilities", {})
    unknown("capabilities", capabilities, {"drop", "add"})
    for cap in capabilities.get("drop", []):
        args += ["--cap-drop", cap.lower()]
    for cap in capabilities.get("add", []):
        args += ["--cap-add", cap.lower()]

    # Env, in order, each value expanded by the ones before (as Kubernetes does); an Indexed Job's pods get
    # JOB_COMPLETION_INDEX and the completion-index annotation.
    env = {}
    if index is not None:
        env["JOB_COMPLETION_INDEX"] = str(index)
    for item in container.get("env", []):
        unknown("env item", item, {"name", "value", "valueFrom"})
        if "value" in item:
            env[item["name"]] = expand(item["value"], env)
            continue
        field = item["valueFrom"].get("fieldRef", {}).get("fieldPath")
        if field == f"metadata.annotations['{INDEX_ANNOTATION}']" and index is not None:
            env[item["name"]] = str(index)
        else:
            raise SystemExit(f"k8s-test: env {item['name']} from {item['valueFrom']}, which the runner cannot give")
    for name, value in env.items():
        args += ["--env", f"{name}={value}"]

    # Volumes: the claim as the claim folder, an emptyDir as a fresh world-writable folder.
    volumes, scratch = {}, []
    for volume in pod.get("volumes", []):
        if "persistentVolumeClaim" in volume:
            volumes[volume["name"]] = claim
        elif "emptyDir" in volume:
            folder = tempfile.mkdtemp(prefix=f"emptydir-{volume['name']}-", dir=scratch_root)
            os.chmod(folder, 0o777)
            volumes[volume["name"]], scratch = folder, scratch + [folder]
        else:
            raise SystemExit(f"k8s-test: volume {volume} is neither a persistentVolumeClaim nor an emptyDir")
    for mount in container.get("volumeMounts", []):
        unknown("volumeMount", mount, {"name", "mountPath", "readOnly"})
        options = ":ro" if mount.get("readOnly") else ""
        args += ["--volume", f"{volumes[mount['name']]}:{mount['mountPath']}{options}"]

    # resources.requests (scheduling) have no podman meaning; command replaces the entrypoint, args the CMD.
    command = [expand(word, env) for word in container.get("command", [])]
    if command:
        args += ["--entrypoint", json.dumps(command)]
    return args + [container["image"]] + [expand(word, env) for word in container.get("args", [])], scratch


def run_pod(label, job, index, image, claim, scratch_root):
    """Runs one pod to its end; raises PodFailed with its log when it exits non-zero."""
    args, scratch = pod_command(job, index, image, claim, scratch_root)
    start = time.monotonic()
    result = subprocess.run(PODMAN + ["run", "--name", f"k8s-test-{label}-{os.getpid()}"] + args,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    for folder in scratch:
        shutil.rmtree(folder, ignore_errors=True)
    took = time.monotonic() - start
    if result.returncode != 0:
        raise PodFailed(f"pod {label} exited {result.returncode} after {took:.1f} s; podman run "
                        + " ".join(args) + f"\n---- log of pod {label}\n{result.stdout}---- end of log")
    print(f"k8s-test: pod {label} succeeded in {took:.1f} s", flush=True)
    return result.stdout


def run_jobs(folder, image, claim, scratch_root, name, break_render=False):
    """Runs the Jobs written into `folder` in submit.sh's order: prepare, every render index, merge."""
    jobs = []
    for file in ["prepare.yaml", "render.yaml", "merge.yaml"]:
        path = os.path.join(folder, file)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as stream:
                jobs.append((file[:-5], yaml.safe_load(stream)))
    if [step for step, _ in jobs][-2:] != ["render", "merge"]:
        raise SystemExit(f"k8s-test: {folder} lacks render.yaml or merge.yaml")
    for step, job in jobs:
        spec = job["spec"]
        if break_render and step == "render":
            spec["template"]["spec"]["containers"][0]["args"].insert(1, "--no-such-option")
        if spec.get("completionMode") == "Indexed":
            count, parallel = spec["completions"], spec.get("parallelism", spec["completions"])
            # The indexes side by side, at most `parallelism` at once, as the Job controller starts them.
            with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
                futures = [pool.submit(run_pod, f"{name}-{step}-{k}", job, k, image, claim, scratch_root)
                           for k in range(count)]
                failures = [f.exception() for f in futures if f.exception() is not None]
            if failures:
                raise failures[0]
        else:
            run_pod(f"{name}-{step}", job, None, image, claim, scratch_root)


def frames(folder):
    """Every PNG under `folder` by relative path, with its sha256."""
    sums = {}
    for root, _, files in os.walk(folder):
        for file in files:
            if file.endswith(".png"):
                path = os.path.join(root, file)
                with open(path, "rb") as stream:
                    sums[os.path.relpath(path, folder)] = hashlib.sha256(stream.read()).hexdigest()
    return sums


def manifests(folder):
    """Each manifest.json under `folder` by relative folder: complete, frameCount and the frames' file + sha256."""
    found = {}
    for root, _, files in os.walk(folder):
        if "manifest.json" in files:
            with open(os.path.join(root, "manifest.json"), encoding="utf-8") as stream:
                manifest = json.load(stream)
            found[os.path.relpath(root, folder)] = (
                manifest["complete"], manifest["frameCount"], [(f["file"], f["sha256"]) for f in manifest["frames"]])
    return found


def compare(cluster, local):
    """Problems of the cluster's output folder against the local render's (none: byte-identical frames)."""
    problems = []
    got, want = frames(cluster), frames(local)
    if not want:
        problems.append(f"the local render {local} holds no frames")
    for path in sorted(set(want) | set(got)):
        if got.get(path) != want.get(path):
            problems.append(f"frame {path}: " + ("missing" if path not in got else "extra" if path not in want
                                                 else f"sha256 {got[path]} instead of {want[path]}"))
    got, want = manifests(cluster), manifests(local)
    if sorted(got) != sorted(want):
        problems.append(f"manifests in {sorted(got)}, the local render has them in {sorted(want)}")
    for where in sorted(set(got) & set(want)):
        if not got[where][0]:
            problems.append(f"{where}/manifest.json is not complete")
        if got[where][1:] != want[where][1:]:
            problems.append(f"{where}/manifest.json: frames differ from the local render's")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--renderfarm", required=True, help="renderfarm on this host (submit and the local render)")
    parser.add_argument("--image", required=True)
    parser.add_argument("--work", required=True)
    options = parser.parse_args()
    renderfarm = os.path.abspath(options.renderfarm)
    work = os.path.abspath(options.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    start = time.monotonic()
    failed = []
    for name, job_file, submit_args in CASES + [("broken", "burst.json", ["--tasks", "2", "--frames", "0-3"])]:
        case_start = time.monotonic()
        # The claim: a folder with jobs/ in it (job files and their assets), as submit's mount path needs.
        claim = os.path.join(work, name, "claim")
        shutil.copytree(os.path.join(REPOSITORY, "jobs"), os.path.join(claim, "jobs"),
                        ignore=shutil.ignore_patterns("out"))
        out = os.path.join(claim, "renders", name)
        manifests_folder = os.path.join(work, name, "k8s")
        submit = subprocess.run([renderfarm, "submit", os.path.join(claim, "jobs", job_file), "--kubernetes",
                                 manifests_folder, "--image", options.image, "--out", out] + submit_args,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if submit.returncode != 0:
            raise SystemExit(f"k8s-test: renderfarm submit failed ({submit.returncode}):\n{submit.stdout}")
        # What fsGroup does to the claim (fsGroupChangePolicy OnRootMismatch: its top folder has another group):
        # the group of every file, group-writable folders that hand it on.
        with open(os.path.join(manifests_folder, "render.yaml"), encoding="utf-8") as stream:
            fs_group = yaml.safe_load(stream)["spec"]["template"]["spec"]["securityContext"]["fsGroup"]
        for root, folders, files in os.walk(claim):
            for entry in [root] + [os.path.join(root, f) for f in files]:
                os.chown(entry, -1, fs_group)
                mode = os.stat(entry).st_mode
                os.chmod(entry, mode | 0o060 | (0o2010 if entry == root else 0))
        os.chmod(os.path.join(work, name), 0o755)
        try:
            run_jobs(manifests_folder, options.image, claim, os.path.join(work, name), name,
                     break_render=name == "broken")
        except PodFailed as failure:
            if name == "broken":
                log = str(failure)
                if "--no-such-option" in log and "---- log of pod" in log:
                    print(f"k8s-test: the broken render Job failed, as it must, with its pod's log:\n{log}")
                    continue
                failed.append(f"broken: failed without the pod's complaint:\n{log}")
                continue
            failed.append(f"{name}: {failure}")
            print(f"k8s-test: FAILED {name}: {failure}", file=sys.stderr)
            continue
        if name == "broken":
            failed.append("broken: a render Job with an unknown option succeeded; the runner checks nothing")
            continue
        local = os.path.join(work, name, "local")
        frame_args = submit_args[submit_args.index("--frames"):][:2] if "--frames" in submit_args else []
        render = subprocess.run([renderfarm, "render", os.path.join(claim, "jobs", job_file), "--out", local,
                                 "--progress", "none"] + frame_args,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if render.returncode != 0:
            raise SystemExit(f"k8s-test: the local render failed ({render.returncode}):\n{render.stdout}")
        problems = compare(out, local)
        if problems:
            failed.append(f"{name}: " + "\n  ".join(problems))
            print(f"k8s-test: FAILED {name}:\n  " + "\n  ".join(problems), file=sys.stderr)
        else:
            print(f"k8s-test: {name} ({job_file} {' '.join(submit_args)}): {len(frames(out))} frames in "
                  f"{len(manifests(out))} complete manifest(s), byte-identical to a local render "
                  f"({time.monotonic() - case_start:.0f} s)", flush=True)
    if failed:
        print("k8s-test: FAILED\n" + "\n".join(failed), file=sys.stderr)
        return 1
    print(f"k8s-test passed in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
