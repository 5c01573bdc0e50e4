import Foundation
import Testing

/// Special files in a rendered folder (`make fuzz` runs these too): the tools that read it back
/// (`encode`, `export-otio`, `preview`, `merge`, `compare`, a resumed `render`) refuse a named pipe, a
/// socket or a link to /dev/zero in place of the manifest, the job record, the journal or a frame, within
/// the deadline and with the path in the message; a render refuses to write over any of them.
extension FuzzTests {
    @Test("special files in an output folder are refused by every tool that reads it", arguments: SpecialFile.allCases)
    func specialFilesInOutput(_ special: SpecialFile) throws {
        let folder = try TemporaryFolder()
        try folder.write(SmallJob.text(), to: "job.json")
        let out = folder.path + "/out/job"
        let first = try runDeadlined(["render", "job.json", "--progress", "none"], in: folder)
        try #require(first.status == 0, "\(first.stderr)")

        try replace(out + "/manifest.json", with: special)
        var readers = [["export-otio", "out/job"], ["preview", "out/job", "-o", "sheet.png"]]
        if Tools.hasFFmpeg { readers.append(["encode", "out/job", "--progress", "none"]) }
        for arguments in readers {
            let result = try runDeadlined(arguments, in: folder)
            #expect(result.status == 65, "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr.contains("manifest.json: is \(special.kind), not a file"), "\(result.stderr)")
        }

        try replace(out + "/renderfarm.job.json", with: special)
        let merge = try runDeadlined(["merge", "out/job"], in: folder)
        #expect(merge.status == 65, "\(merge.stderr)")
        #expect(merge.stderr.contains("renderfarm.job.json is \(special.kind), not a file"), "\(merge.stderr)")

        try replace(out + "/frame_00001.png", with: special)
        let compare = try runDeadlined(["compare", "out/job/frame_00001.png", "out/job/frame_00000.png"], in: folder)
        #expect(compare.status == 65, "\(compare.stderr)")
        #expect(compare.stderr.contains("frame_00001.png is \(special.kind), not a file"), "\(compare.stderr)")

        // Where a render writes, nothing is followed: a link is refused as a link, not as what it leads to.
        let written = special == .deviceLink ? "a symbolic link" : special.kind
        try replace(out + "/renderfarm.journal.jsonl", with: special)
        let resumed = try runDeadlined(["render", "job.json", "--progress", "none"], in: folder)
        #expect(resumed.status == 73, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("renderfarm.journal.jsonl: is \(written), not a file"), "\(resumed.stderr)")
        // Without a journal the render starts afresh, and refuses to replace the special job record too.
        try FileManager.default.removeItem(atPath: out + "/renderfarm.journal.jsonl")
        let refused = try runDeadlined(["render", "job.json", "--progress", "none"], in: folder)
        #expect(refused.status == 73, "\(refused.stderr)")
        #expect(refused.stderr.contains("renderfarm.job.json: is \(written), not a file; "), "\(refused.stderr)")
        // Once the special files are gone, it renders the folder whole (with --force: without its job
        // record the folder is not known as a render's).
        for name in ["renderfarm.job.json", "manifest.json", "frame_00001.png"] {
            try FileManager.default.removeItem(atPath: out + "/" + name)
        }
        let again = try runDeadlined(["render", "job.json", "--progress", "none", "--force"], in: folder)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Manifest(folder: URL(fileURLWithPath: out)).complete)
    }

    /// Puts `special` where `path` is.
    private func replace(_ path: String, with special: SpecialFile) throws {
        try FileManager.default.removeItem(atPath: path)
        try special.create(at: path)
    }
}
