import Foundation
import Testing

/// Special files in every place RenderFarm reads input (`make fuzz` runs these too): a named pipe, a
/// socket and a link to /dev/zero are refused within a deadline with the documented exit code and a
/// message naming the path and what it is. A hang fails the test instead of blocking it.
extension FuzzTests {
    /// Seconds a refusal may take before the process is killed and the test fails.
    static let specialFileDeadline = 20.0

    @Test(
        "a special file is refused at once, with its path, what it is and the documented exit code",
        arguments: SpecialFile.allCases, InputPlace.allCases)
    func specialFile(_ special: SpecialFile, in place: InputPlace) throws {
        let folder = try TemporaryFolder()
        switch place {
        case .jobArgument:
            try special.create(at: folder.url.appendingPathComponent("job.json").path)
            for command in ["validate", "render"] {
                let result = try runDeadlined([command, "job.json"], in: folder)
                #expect(result.status == 66, "\(command): \(result.stderr)")
                #expect(result.stderr.contains("job.json is \(special.kind), not a file"), "\(result.stderr)")
            }
        case .scannedJob:
            try special.create(at: folder.url.appendingPathComponent("jobs/a.json").path, making: folder)
            let alone = try runDeadlined(["validate", "jobs"], in: folder)
            #expect(alone.status == 66, "\(alone.stderr)")
            #expect(alone.stderr.contains("warning: jobs/a.json is \(special.kind), not a file; skipped"))
            #expect(alone.stderr.contains("no job files found in jobs"))
            try folder.write(SmallJob.text(), to: "jobs/b.json")
            for command in ["validate", "render"] {
                let result = try runDeadlined([command, "jobs"] + SmallJob.quiet(command), in: folder)
                #expect(result.status == 0, "\(command): \(result.stderr)")
                #expect(result.stderr.contains("warning: jobs/a.json is \(special.kind), not a file; skipped"))
            }
            #expect(FileManager.default.fileExists(atPath: folder.path + "/jobs/out/b/manifest.json"))
        case .imageAsset:
            try expectJobRefused(
                special, named: "art.png", job: SmallJob.text(image: "art.png"),
                at: "layers[0].params.image", in: folder)
        case .dataFile:
            try expectJobRefused(
                special, named: "rows.csv", job: SmallJob.text(rows: "rows.csv"), at: "variants.rows", in: folder)
        }
    }

    /// Puts `special` at `name` in `folder` beside `job.json` (holding `job`, which names it), and checks that
    /// `validate` and `render` refuse the job with exit 65 and a message at `place`, writing nothing.
    private func expectJobRefused(
        _ special: SpecialFile, named name: String, job: String, at place: String, in folder: TemporaryFolder
    ) throws {
        try special.create(at: folder.url.appendingPathComponent(name).path)
        try folder.write(job, to: "job.json")
        // A link to /dev/zero is refused by the confinement rule before anything is opened.
        let message =
            special == .deviceLink
            ? "\(name) resolves outside the job's folder" : "\(name) is \(special.kind), not a file"
        for command in ["validate", "render"] {
            let result = try runDeadlined([command, "job.json"] + SmallJob.quiet(command), in: folder)
            #expect(result.status == 65, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("job.json: \(place): \(message)"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"), "a refused job wrote output")
    }

    /// Runs `renderfarm` in `folder`; past the deadline it is killed and the test fails (`Binary.run`).
    func runDeadlined(_ arguments: [String], in folder: TemporaryFolder) throws -> Binary.Result {
        let result = try Binary.run(arguments, in: folder.url, timeout: Self.specialFileDeadline)
        #expect(
            result.signal == nil, "renderfarm \(arguments.joined(separator: " ")) crashed or hung: \(result.stderr)")
        return result
    }
}

extension SpecialFile {
    /// Creates the entry at `path` after creating its folder.
    func create(at path: String, making folder: TemporaryFolder) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try create(at: path)
    }
}
