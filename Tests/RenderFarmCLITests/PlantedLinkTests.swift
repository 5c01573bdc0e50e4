import Foundation
import Testing

/// The output folder is opened as a folder (RenderFarm article OutputFolder): a symbolic link planted where
/// a run writes — a journal, a shard's journal, the manifest, the job record, a frame, the plugins' cache —
/// is refused with exit 73 and a message naming it, and the file or folder it leads to outside the output
/// folder is left byte for byte and time for time as it was.
@Suite("Planted links in the output folder")
struct PlantedLinkTests {
    /// A rendered folder (`out`, six frames of the test plugin) and a file outside it that links lead to.
    struct Planted {
        let folder: TemporaryFolder
        let job: String
        let out: String
        let outside: String
        let bytes: Data
        let modified: Date

        init(shard: String? = nil) throws {
            folder = try TemporaryFolder()
            job = try OutputTrustTests.job(in: folder, params: "{}", frames: 6)
            out = folder.path + "/out"
            let first = CLI.run(
                ["render", job, "--progress", "none"] + (shard.map { ["--shard", $0] } ?? [])
                    + OutputTrustTests.plugins)
            try #require(first.status == 0, "\(first.stderr)")
            outside = try folder.write("a user's file, outside the output folder\n", to: "outside.txt")
            // An old time, so that any write would show.
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: outside)
            bytes = try Data(contentsOf: URL(fileURLWithPath: outside))
            modified = try Self.modification(outside)
        }

        /// Replaces `name` in the output folder by a link to `target` (the outside file by default).
        func plant(_ name: String, to target: String? = nil) throws {
            let path = out + "/" + name
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target ?? outside)
        }

        /// Expects `result` to refuse `name` (exit 73, the message) and the outside file to be untouched.
        func expectRefused(
            _ result: Binary.Result, _ name: String, kind: String = "a file",
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            #expect(result.status == 73, "\(name): \(result.stderr)", sourceLocation: sourceLocation)
            let message =
                "cannot create output \(out)/\(name): is a symbolic link, not \(kind); "
                + "RenderFarm follows no link in its output folder: remove it and run again"
            #expect(result.stderr.contains(message), "\(name): \(result.stderr)", sourceLocation: sourceLocation)
            #expect(try Data(contentsOf: URL(fileURLWithPath: outside)) == bytes, sourceLocation: sourceLocation)
            #expect(try Self.modification(outside) == modified, "\(name)", sourceLocation: sourceLocation)
        }

        static func modification(_ path: String) throws -> Date {
            try #require(FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
        }
    }

    static let names = [
        "renderfarm.journal.jsonl", "manifest.json", "renderfarm.job.json", "frame_00003.png", "renderfarm.lock",
    ]

    @Test("render and render --force refuse a link planted for a record, a frame or the lock", arguments: names)
    func wholeRender(_ name: String) throws {
        for force in [false, true] {
            let planted = try Planted()
            try planted.plant(name)
            let result = CLI.run(
                ["render", planted.job, "--progress", "none"] + (force ? ["--force"] : []) + OutputTrustTests.plugins)
            try planted.expectRefused(result, name)
        }
    }

    @Test("a shard render, with and without --force, refuses a link planted for its journal or the manifest")
    func shardRender() throws {
        for name in ["renderfarm.journal.shard-0-of-2.jsonl", "manifest.json", "renderfarm.shard-0-of-2.lock"] {
            // A shard with nothing left to draw leaves the manifest alone; --force removes it.
            for force in name == "manifest.json" ? [true] : [false, true] {
                let planted = try Planted(shard: "0/2")
                try planted.plant(name)
                let result = CLI.run(
                    ["render", planted.job, "--progress", "none", "--shard", "0/2"] + (force ? ["--force"] : [])
                        + OutputTrustTests.plugins)
                try planted.expectRefused(result, name)
            }
        }
    }

    @Test("render --isolate refuses a link planted for a frame, which its own process writes")
    func isolatedFrame() throws {
        let planted = try Planted()
        try planted.plant("frame_00003.png")
        let result = CLI.run(
            ["render", planted.job, "--progress", "none", "--isolate", "-j", "1"] + OutputTrustTests.plugins)
        try planted.expectRefused(result, "frame_00003.png")
    }

    @Test("a linked renderfarm.cache or plugin cache folder is refused before any plugin is given it")
    func cacheFolder() throws {
        for name in ["renderfarm.cache", "renderfarm.cache/test-faults"] {
            let planted = try Planted()
            let elsewhere = planted.folder.path + "/elsewhere"
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                atPath: planted.out + "/renderfarm.cache", withIntermediateDirectories: true)
            try planted.plant(name, to: elsewhere)
            let before = try Planted.modification(elsewhere)
            for arguments in [["render", planted.job, "--progress", "none"], ["prepare", planted.job]] {
                let result = CLI.run(arguments + OutputTrustTests.plugins)
                try planted.expectRefused(result, name, kind: "a folder")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
            #expect(try Planted.modification(elsewhere) == before)
        }
    }

    @Test("submit --slurm refuses a link planted as the output folder's slurm/ and writes no script through it")
    func slurmScripts() throws {
        let folder = try TemporaryFolder()
        let out = folder.path + "/out"
        let elsewhere = folder.path + "/elsewhere"
        for path in [out, elsewhere, folder.path + "/bin"] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(atPath: out + "/slurm", withDestinationPath: elsewhere)
        // An sbatch that is never reached: the scripts are refused first.
        let sbatch = try folder.write("#!/bin/sh\necho 1\n", to: "bin/sbatch")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: sbatch)
        let result = CLI.run(
            ["submit", "jobs/burst.json", "--slurm", "--out", out], environment: ["PATH": folder.path + "/bin"])
        #expect(result.status == 73, "\(result.stderr)")
        let message =
            "cannot create output \(out)/slurm: is a symbolic link, not a folder; "
            + "RenderFarm follows no link in its output folder: remove it and run again"
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }

    @Test("status and merge do not read a journal through a link planted in its place")
    func readers() throws {
        let planted = try Planted(shard: "0/2")
        // A journal-shaped file outside, which a followed link would make count as the folder's.
        let journal = try String(
            contentsOfFile: planted.out + "/renderfarm.journal.shard-0-of-2.jsonl", encoding: .utf8)
        let outside = try planted.folder.write(journal, to: "journal-elsewhere.jsonl")
        try planted.plant("renderfarm.journal.shard-1-of-2.jsonl", to: outside)
        try FileManager.default.removeItem(atPath: planted.out + "/renderfarm.journal.shard-0-of-2.jsonl")
        let status = CLI.run(["status", planted.out, "--json"])
        #expect(status.stdout.contains(#""done":0,"#), "\(status.stdout)")
        let merge = CLI.run(["merge", planted.out])
        #expect(merge.status == 1 && merge.stderr.contains("6 frames missing"), "\(merge.stderr)")
    }
}
