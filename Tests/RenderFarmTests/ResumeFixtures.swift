import CairoKit
import EffectKit
import FileOutput
import Foundation
import RenderFarmOutput
import RenderFarmTestSupport
import Testing

@testable import RenderFarm
@testable import RenderFarmJobs

// What the tests of the resume records share (JournalTests, RecordedFramesTests, ResumePlanTests,
// JobStateTests): a temporary folder, journal lines, and a job whose frame fingerprints a test chooses.

/// A folder of its own, removed with the value: in memory (`/dev/shm`) where the machine has it, else under the
/// temporary directory. The generated tests make and remove thousands of small files, which on a disk that
/// other work keeps busy costs them seconds of waiting and no CPU; nothing they check depends on the disk.
final class TemporaryFolder {
    let path: String

    /// Where the folders go.
    static let parent: String = {
        var info = stat()
        let memory = "/dev/shm"
        if stat(memory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, access(memory, W_OK) == 0 { return memory }
        return FileManager.default.temporaryDirectory.path
    }()

    init(_ label: String) throws {
        path = (Self.parent as NSString).appendingPathComponent("rf-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` in the folder.
    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// The bytes of `name`, nil when it cannot be read (missing, a folder).
    func bytes(_ name: String) -> [UInt8]? { FileManager.default.contents(atPath: file(name)).map { Array($0) } }

    /// Writes `bytes` into the file `name` (created, or emptied first: a file with other links to it changes
    /// for all of them). Plain POSIX calls: `Data.write` syncs every file to disk, which costs the generated
    /// tests most of their time.
    func write(_ bytes: [UInt8], to name: String) throws {
        let fd = open(file(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file(name)]) }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file(name)])
        }
    }

    /// Whether `name` is a regular file (no link followed).
    func isRegularFile(_ name: String) -> Bool {
        var info = stat()
        return lstat(file(name), &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Puts `bytes` in the file `name`, reusing the file that is there rather than making another, replacing a
    /// link or folder; nil removes it.
    func place(_ bytes: [UInt8]?, at name: String) throws {
        guard let bytes else { return remove(name) }
        if !isRegularFile(name) { remove(name) }
        try write(bytes, to: name)
    }

    /// Appends `text` to the file `name` (creating it), as another writer of a journal would.
    func append(_ text: String, to name: String) throws {
        let path = file(name)
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    /// Removes `name`, if it is there.
    func remove(_ name: String) { try? FileManager.default.removeItem(atPath: file(name)) }

    /// The names in the folder, sorted.
    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

/// Journal lines for tests.
enum Lines {
    /// The file name a job with the default output settings gives frame `index`.
    static func frameFile(_ index: Int) -> String {
        OutputSettings.fileName(prefix: "frame_", padding: 5, frame: index)
    }

    /// A finished (or failed) frame's line with the fields the resume check reads; the others plain.
    static func entry(
        _ index: Int, fingerprint: String, sha256: String = "", bytes: Int = 0, status: FrameStatus = .ok,
        file: String? = nil, error: String? = nil
    ) -> JournalEntry {
        JournalEntry(
            index: index, time: Double(index), file: file ?? frameFile(index), sha256: sha256, bytes: bytes,
            fingerprint: fingerprint, attempts: 1, renderMilliseconds: 2.5, status: status, opaque: false,
            error: error)
    }

    /// The line of frame `index` whose file holds `bytes`.
    static func entry(_ index: Int, fingerprint: String, holding bytes: [UInt8], file: String? = nil) -> JournalEntry {
        entry(index, fingerprint: fingerprint, sha256: hex(bytes), bytes: bytes.count, file: file)
    }

    /// The hex SHA-256 of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String { bytes.withUnsafeBytes { SHA256.hex($0) } }

    /// Appends `entries` to journal `shard` of `folder` through a session, as a run does, and lets the
    /// folder go again.
    static func journal(_ entries: [JournalEntry], in folder: TemporaryFolder, shard: Shard = .whole) throws {
        let session = try OutputFolder(folder.path).open(shard: shard, task: "test")
        let journal = try session.journal(of: shard, truncate: false)
        for entry in entries { try journal.append(entry) }
    }
}

/// A registered effect whose frame `i` draws look `looks[i % looks.count]` (a grey level) and reports
/// a frame key of that look alone, declaring that its keys cover its parameters: frames of equal
/// looks get equal fingerprints, and editing one frame's look changes that frame's fingerprint only.
struct LookEffect: Effect {
    static let descriptor = EffectDescriptor(
        id: "test-resume-look", identifier: "org.renderfarm.test.resume-look", version: "1.0.0",
        summary: "Frame i draws looks[i]; its key is that look", keysCoverParameters: true,
        parameters: [ParameterSpec("looks", .numberList, default: [0], range: 0...1000, doc: "the look of each frame")])

    let looks: [Double]

    init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
        looks = try parameters.numbers("looks")
    }

    func look(at frame: FrameTime) -> Double { looks.isEmpty ? 0 : looks[frame.index % looks.count] }

    func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError) {
        let level = look(at: frame).truncatingRemainder(dividingBy: 256) / 255
        context.setSource(Color(red: level, green: level, blue: level, alpha: 1))
        context.rectangle(x: 0, y: 0, width: 4, height: 4)
        context.fill()
    }

    func frameKey(at frame: FrameTime) -> FrameKey? {
        var hasher = FrameKey.Hasher()
        hasher.combine(look(at: frame))
        return hasher.finalize()
    }
}

/// Jobs of `LookEffect`, planned into a test's folder.
enum LookJob {
    /// The catalog with `LookEffect` registered.
    static func catalog() throws -> PluginCatalog {
        try PluginCatalog.register(LookEffect.self)
        return PluginCatalog.discover(searchPath: [])
    }

    /// A job of one frame per look (1 fps), planned with its output in `folder`: `frames` as
    /// `--frames`, `shard` as `--shard`; `output` adds output settings (e.g. `"duplicates": "link"`);
    /// `jobFrames` is the job's own `frames` (nil: every frame).
    static func plan(
        looks: [Int], in folder: TemporaryFolder, frames: String? = nil, shard: Shard = .whole, retries: Int = 1,
        output: String = "", jobFrames: String? = nil
    ) throws -> PlannedJob {
        let list = looks.map(String.init).joined(separator: ",")
        let own = jobFrames.map { #""frames": "\#($0)", "# } ?? ""
        let text = """
            {"name": "looks", "fps": 1, "duration": \(looks.count), "retries": \(retries), \(own)
             "canvas": {"width": 4, "height": 4, "scale": 1}, "output": {\(output)},
             "layers": [{"effect": "test-resume-look", "params": {"looks": [\(list)]}}]}
            """
        let spec = try JobLoader.decode(Data(text.utf8), file: "looks.json", defaultName: "looks")
        let job = LoadedJob(spec: spec, file: "/tmp/looks.json", directory: "/tmp")
        let plan = RenderEngine(
            catalog: try catalog(), options: PlanOptions(outputOverride: folder.path, frames: frames, shard: shard)
        )
        .plan([job])
        if let error = plan.errors.first { throw error }
        return try #require(plan.jobs.first)
    }

    /// The bytes `StubDrawer` writes for a frame of look `look`: equal looks, equal bytes; sizes differ.
    static func bytes(look: Int) -> [UInt8] {
        Array(String(repeating: "look \(look)\n", count: 1 + look % 3).utf8)
    }
}

/// Draws frames for `JobState` in place of `FrameWorker`: writes `LookJob.bytes(look:)` of each frame's
/// look through the job's writer, and fails the frames a test says, noting every attempt.
final class StubDrawer: FrameExecutor {
    let looks: [Int]
    /// Looks whose frames fail at every attempt.
    var failing: Set<Int> = []
    /// Frames that fail this many attempts, then draw.
    var flaky: [Int: Int] = [:]
    /// Frames whose attempt ends as `FrameFailure.interrupted` (a stopped `--isolate` worker).
    var interrupted: Set<Int> = []
    /// Frames whose attempt fails with an output error (a full disk).
    var outputFailure: Set<Int> = []
    /// Every attempt, in order.
    private(set) var attempts: [Int] = []

    init(looks: [Int]) { self.looks = looks }

    func render(_ index: Int, of job: PlannedJob, into folder: FolderDescriptor) throws(FrameFailure)
        -> WrittenFrame
    {
        attempts.append(index)
        let look = looks[index]
        if interrupted.contains(index) { throw .interrupted }
        if outputFailure.contains(index) {
            throw .output(.io(path: job.path(ofFrame: index), reason: "No space left on device"))
        }
        if let left = flaky[index], left > 0 {
            flaky[index] = left - 1
            throw .plugin(layer: 0, effect: "test-resume-look", message: "flaked on frame \(index)")
        }
        if failing.contains(look) {
            throw .plugin(layer: 0, effect: "test-resume-look", message: "cannot draw look \(look)")
        }
        let bytes = LookJob.bytes(look: look)
        let written = bytes.withUnsafeBytes { buffer in
            Result { () throws(OutputError) in try job.writeFrame(buffer, index: index, into: folder) }
        }
        if case .failure(let error) = written { throw .output(error) }
        return WrittenFrame(
            sha256: Lines.hex(bytes), bytes: bytes.count, opaque: false, timings: FrameTimings(draw: 1.5))
    }
}
