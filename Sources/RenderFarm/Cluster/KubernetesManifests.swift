import FileOutput
import Foundation

/// The Kubernetes manifests of a render (<doc:RunningOnACluster>): a prepare Job (unless turned off), an
/// Indexed Job whose completion index K renders shard K/N, and a merge Job, all mounting one volume claim
/// that holds the jobs and the output at the paths they have here; `submit.sh` applies each after the one
/// before has completed. Pure string building from the command words `renderfarm submit` gives (see
/// `ScriptWord`).
package struct KubernetesManifests: Sendable {
    /// What each Job runs, in which image, with which volume.
    package struct Request: Sendable, Equatable {
        /// The `renderfarm` inside the image.
        package var executable: String
        package var name: String
        package var image: String
        package var tasks: Int
        /// Pods running at once (`parallelism`), nil for every task at once.
        package var maxRunning: Int?
        /// CPUs each render pod requests (`-j`); nil requests none.
        package var cpus: Int?
        /// The persistent volume claim holding the jobs and the output, mounted at `mountPath` in every pod.
        package var volumeClaim: String
        package var mountPath: String
        package var prepare: [ScriptWord]?
        /// `.taskShard` becomes `$(RENDERFARM_SHARD)/N`, the pod's completion index.
        package var render: [ScriptWord]
        package var merge: [ScriptWord]

        package init(
            executable: String, name: String, image: String, tasks: Int, maxRunning: Int?, cpus: Int?,
            volumeClaim: String, mountPath: String, prepare: [ScriptWord]?, render: [ScriptWord], merge: [ScriptWord]
        ) {
            self.executable = executable
            self.name = name
            self.image = image
            self.tasks = tasks
            self.maxRunning = maxRunning
            self.cpus = cpus
            self.volumeClaim = volumeClaim
            self.mountPath = mountPath
            self.prepare = prepare
            self.render = render
            self.merge = merge
        }
    }

    package static let prepareName = "prepare.yaml"
    package static let renderName = "render.yaml"
    package static let mergeName = "merge.yaml"
    package static let submitName = "submit.sh"
    /// The environment variable that carries a render pod's completion index into its arguments.
    package static let shardVariable = "RENDERFARM_SHARD"
    /// The user, group and volume group every pod runs as: numeric (an image need not know it), not root, and
    /// outside the range images give their own users (RunningOnACluster).
    package static let podUser = 10001

    /// What every pod may do: not run as root (`runAsNonRoot`, user and group `podUser`; the volume claim's
    /// files are given that group, changed only when its top folder has another, as a claim may hold millions
    /// of frames), under the container runtime's default seccomp profile.
    static let podSecurity = YAMLValue.map([
        "runAsNonRoot": .bool(true), "runAsUser": .integer(podUser), "runAsGroup": .integer(podUser),
        "fsGroup": .integer(podUser), "fsGroupChangePolicy": .string("OnRootMismatch"),
        "seccompProfile": .map(["type": .string("RuntimeDefault")]),
    ])

    /// What the container may do: no privilege gained (no set-user-ID program), every capability dropped, and a
    /// read-only root file system; it writes only the volume claim and `/tmp` (`scratch`).
    static let containerSecurity = YAMLValue.map([
        "allowPrivilegeEscalation": .bool(false), "readOnlyRootFilesystem": .bool(true),
        "capabilities": .map(["drop": .list([.string("ALL")])]),
    ])

    /// The writable `/tmp` a read-only root file system lacks (an `emptyDir`, gone with the pod): what the C
    /// library, Foundation and plugins put in the temporary folder. None when the claim is mounted there.
    static let scratch = (volume: "tmp", mountPath: "/tmp")

    /// The arguments each Job's container gives `renderfarm`, by Job name, in order, as the manifests hold them.
    package let arguments: [(job: String, arguments: [String])]
    package let prepare: String?
    package let render: String
    package let merge: String
    /// Applies the manifests in order, each once the Job before it has completed.
    package let submit: String
    /// The Jobs' names: `<base>-prepare`, `<base>-render`, `<base>-merge`.
    package let jobNames: (prepare: String?, render: String, merge: String)

    /// The files by name, in the order written (no prepare.yaml without a prepare Job).
    package var files: [(name: String, text: String)] {
        (prepare.map { [(Self.prepareName, $0)] } ?? []) + [
            (Self.renderName, render), (Self.mergeName, merge), (Self.submitName, submit),
        ]
    }

    package init(_ request: Request) throws(KubernetesManifestError) {
        guard !request.image.isEmpty, !request.image.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw .invalidValue(option: "--image", value: request.image)
        }
        guard Self.isDNSLabel(request.volumeClaim) else {
            throw .invalidValue(option: "--volume-claim", value: request.volumeClaim)
        }
        let base = Self.baseName(request.name)
        let names = (
            prepare: request.prepare.map { _ in base + "-prepare" }, render: base + "-render", merge: base + "-merge"
        )
        jobNames = names
        // Kubernetes expands $(VAR) in arguments and reads $$ as $: every $ of a value is doubled.
        let argument = { (word: ScriptWord) -> String in
            switch word {
            case .value, .jobFile, .output: (word.literal ?? "").replacingOccurrences(of: "$", with: "$$")
            case .taskShard: "$(\(Self.shardVariable))/\(request.tasks)"
            case .taskCPUs: String(request.cpus ?? 1)
            }
        }
        let labels = YAMLValue.map([
            "app.kubernetes.io/name": .string("renderfarm"), "app.kubernetes.io/instance": .string(base),
        ])
        // The claim, and a writable /tmp unless the claim is mounted there.
        let scratch = request.mountPath == Self.scratch.mountPath ? [] : [Self.scratch]
        let mounts: [YAMLValue] =
            [.map(["name": .string("shared"), "mountPath": .string(request.mountPath)])]
            + scratch.map { .map(["name": .string($0.volume), "mountPath": .string($0.mountPath)]) }
        let volumes: [YAMLValue] =
            [
                .map([
                    "name": .string("shared"),
                    "persistentVolumeClaim": .map(["claimName": .string(request.volumeClaim)]),
                ])
            ]
            + scratch.map { .map(["name": .string($0.volume), "emptyDir": .map([:])]) }
        func job(
            _ name: String, _ arguments: [ScriptWord], spec extra: [(key: String, value: YAMLValue)],
            env: [YAMLValue] = [], cpus: Int? = nil
        ) -> String {
            let container = YAMLValue.map([
                "name": .string("renderfarm"),
                "image": .string(request.image),
                "command": .list([.string(request.executable.replacingOccurrences(of: "$", with: "$$"))]),
                "args": .list(arguments.map { .string(argument($0)) }),
                "env": env.isEmpty ? nil : .list(env),
                "resources": cpus.map { .map(["requests": .map(["cpu": .string(String($0))])]) },
                "securityContext": Self.containerSecurity,
                "volumeMounts": .list(mounts),
            ])
            let spec: [(key: String, value: YAMLValue)] =
                extra + [
                    (
                        "template",
                        .map([
                            "metadata": .map(["labels": labels]),
                            "spec": .map([
                                "restartPolicy": .string("Never"),
                                "securityContext": Self.podSecurity,
                                "containers": .list([container]),
                                "volumes": .list(volumes),
                            ]),
                        ])
                    )
                ]
            return YAMLValue.map([
                "apiVersion": .string("batch/v1"), "kind": .string("Job"),
                "metadata": .map(["name": .string(name), "labels": labels]),
                "spec": .map(spec),
            ]).document
        }
        let jobWords: [(String, [ScriptWord])] =
            (names.prepare.map { [($0, request.prepare ?? [])] } ?? []) + [
                (names.render, request.render), (names.merge, request.merge),
            ]
        arguments = jobWords.map { ($0.0, $0.1.map(argument)) }
        let once: [(key: String, value: YAMLValue)] = [("backoffLimit", .integer(1))]
        prepare = request.prepare.map { job(names.prepare ?? base, $0, spec: once) }
        render = job(
            names.render, request.render,
            spec: [
                ("completionMode", .string("Indexed")), ("completions", .integer(request.tasks)),
                ("parallelism", .integer(min(request.tasks, request.maxRunning ?? request.tasks))),
                ("backoffLimitPerIndex", .integer(1)),
            ],
            env: [
                .map([
                    "name": .string(Self.shardVariable),
                    "valueFrom": .map([
                        "fieldRef": .map([
                            "fieldPath": .string("metadata.annotations['batch.kubernetes.io/job-completion-index']")
                        ])
                    ]),
                ])
            ], cpus: request.cpus)
        merge = job(names.merge, request.merge, spec: once)
        var steps: [(file: String, job: String)] = []
        if let prepare = names.prepare { steps.append((Self.prepareName, prepare)) }
        steps += [(Self.renderName, names.render), (Self.mergeName, names.merge)]
        let prologue: [String] = [
            "#!/bin/bash",
            "# Applies " + (names.prepare == nil ? "" : "the prepare Job, then ")
                + "the render Job (an Indexed Job of \(request.tasks) shards), then the merge Job, each once the "
                + "one before has completed.",
            "# `renderfarm submit --kubernetes` wrote it; Jobs of an earlier run of it are deleted first.",
            "set -euo pipefail",
            "cd \"$(dirname \"$0\")\"",
            "wait_for() {",
            "    while true; do",
            "        state=$(kubectl get job \"$1\" -o 'jsonpath={.status.conditions[?(@.status==\"True\")].type}')",
            "        case \"$state\" in",
            "            *Complete*) echo \"job $1 complete\"; return 0 ;;",
            "            *Failed*) echo \"job $1 failed: kubectl logs job/$1\" >&2; return 1 ;;",
            "        esac",
            "        sleep 5",
            "    done",
            "}",
        ]
        var lines = prologue
        lines.append("kubectl delete --ignore-not-found -f " + steps.map(\.file).joined(separator: " -f "))
        for (file, job) in steps { lines += ["kubectl apply -f \(file)", "wait_for \(job)"] }
        submit = lines.joined(separator: "\n") + "\n"
    }

    /// `renderfarm-<name>` as a DNS label: lower-case letters, digits and `-`, at most 50 characters, so that
    /// `-prepare` still fits Kubernetes' 63.
    static func baseName(_ name: String) -> String {
        let characters: [Character] = name.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }
        let words = String(characters).split(separator: "-").joined(separator: "-")
        let base = String(("renderfarm-" + (words.isEmpty ? "job" : words)).prefix(50))
        return base.hasSuffix("-") ? String(base.dropLast()) : base
    }

    /// A DNS-1123 label: 1 to 63 lower-case letters, digits and `-`, starting and ending with a letter or digit.
    static func isDNSLabel(_ text: String) -> Bool {
        let alnum = { (c: Character) in c.isASCII && (c.isLowercase || c.isNumber) }
        return (1...63).contains(text.count) && text.allSatisfy { alnum($0) || $0 == "-" }
            && text.first.map(alnum) == true && text.last.map(alnum) == true
    }

    /// Writes the manifests and `submit.sh` into `folder`, creating it.
    package func write(to folder: String) throws(OutputError) {
        try AtomicFile.createDirectory(folder)
        let stale = (folder as NSString).appendingPathComponent(Self.prepareName)
        if prepare == nil { try? FileManager.default.removeItem(atPath: stale) }
        for (name, text) in files {
            try AtomicFile.write(text, to: (folder as NSString).appendingPathComponent(name))
        }
    }
}

/// A value cannot go into a Kubernetes manifest.
package enum KubernetesManifestError: Error, Equatable, CustomStringConvertible {
    case invalidValue(option: String, value: String)

    package var description: String {
        switch self {
        case .invalidValue(let option, let value):
            option == "--volume-claim"
                ? "--volume-claim \(YAMLValue.quoted(value)) is no Kubernetes name: 1 to 63 lower-case letters, "
                    + "digits and -, starting and ending with a letter or digit"
                : "\(option) \(YAMLValue.quoted(value)) must be an image reference without spaces"
        }
    }
}
