import Foundation
import Locking
import RenderFarmPluginABI
import StrictJSON

/// One layer's plugin instance: created once per job, read by every frame, destroyed at the end.
///
/// `@unchecked Sendable`: the instance pointer is only passed to the plugin's functions, and
/// `render` is serialised per instance or per plugin when the plugin's declared thread safety
/// asks for it; `create` and `destroy` run on one thread, before and after every frame.
package final class PluginInstance: @unchecked Sendable {
    package let plugin: LoadedPlugin
    package let layerStart: Double
    /// What `create` received: the parameters with defaults filled, and the layer's seed.
    package let params: JSONObject
    package let seed: UInt64
    private let handle: UnsafeMutableRawPointer
    private let instanceLock = Locked(())

    /// The largest message a plugin may write into a render error buffer.
    package static let messageCapacity = 1024
    /// The largest message of create: every problem of a layer, one per line (renderfarm_plugin.h).
    package static let createMessageCapacity = 16 * 1024
    /// What the plugin's create reported besides success: warnings, one per element.
    package let warnings: [String]
    /// The files the instance's drawing depends on (ABI `input_files`), as the plugin named them:
    /// absolute, or relative to the job's folder.
    package let inputFiles: [String]
    /// The sound the layer plays (ABI `sounds`), each of one of `inputFiles`.
    package let sounds: [DeclaredSound]
    /// The moments things happen to the layer's items (ABI `moments`), in layer seconds.
    package let moments: [DeclaredMoment]
    /// Frames in the job's timeline: what an instance serves when nobody called `prepare`.
    private let frameCount: Int
    /// Whether `prepare` ran, for which frames, and how it ended.
    private let preparation = Locked(Preparation.pending)

    private enum Preparation {
        case pending
        case ready(ClosedRange<Int>)
        case failed(PluginCallError)
    }

    /// Creates the instance, asks for its input files and, when `verifying`, has it verify its input (ABI
    /// `verify`: once per run, in the process that checks the job, not in the workers that draw its frames).
    package init(plugin: LoadedPlugin, params: JSONObject, context: rf_context, verifying: Bool = true)
        throws(PluginCallError)
    {
        self.plugin = plugin
        layerStart = context.layer_start
        self.params = params
        seed = context.seed
        let store = ParamStore(params)
        let json = store.paramsJSON
        var created: UnsafeMutableRawPointer?
        let (status, message) = Self.withMessageBuffer(capacity: Self.createMessageCapacity) { buffer, capacity in
            store.withHandle { handle, access in
                json.withCString { text in
                    var args = rf_create_args(params_json: text, params: handle, access: access)
                    var ctx = context
                    return plugin.reportingFaults(frame: -1) {
                        plugin.create(&args, &ctx, &created, buffer, capacity)
                    }
                }
            }
        }
        guard status == Int32(RF_OK.rawValue), let created else {
            throw PluginCallError(
                status: status, message: message.isEmpty ? "create failed (status \(status))" : message)
        }
        do throws(PluginCallError) {
            inputFiles = try Self.inputFiles(of: created, plugin: plugin)
            sounds = try Self.sounds(of: created, plugin: plugin, inputFiles: inputFiles)
            moments = try Self.moments(of: created, plugin: plugin)
            if verifying { try Self.verify(created, plugin: plugin) }
        } catch {
            plugin.descriptor.pointee.destroy?(created)
            throw error
        }
        handle = created
        warnings = PluginCallError.lines(message)
        frameCount = Int(context.frame_count)
    }

    /// Asks a new instance which files it depends on (ABI `input_files`): one path per call.
    private static func inputFiles(of instance: UnsafeMutableRawPointer, plugin: LoadedPlugin) throws(PluginCallError)
        -> [String]
    {
        guard let inputFiles = plugin.inputFiles else { return [] }
        var paths: [String] = []
        let status = plugin.reportingFaults(frame: -1) {
            receivingWrites({ paths.append(String(decoding: $0, as: UTF8.self)) }) { inputFiles(instance, $0, $1) }
        }
        guard status == Int32(RF_OK.rawValue) else {
            throw PluginCallError(status: status, message: "input_files failed (status \(status))")
        }
        return paths
    }

    /// Asks a new instance for the sound it plays (ABI `sounds`): each checked, and of a file `inputFiles` names.
    private static func sounds(of instance: UnsafeMutableRawPointer, plugin: LoadedPlugin, inputFiles: [String])
        throws(PluginCallError) -> [DeclaredSound]
    {
        guard let sounds = plugin.sounds else { return [] }
        let received = try Declarations<DeclaredSound>.collect(
            "sounds", limit: DeclaredSound.perLayer, plugin: plugin
        ) { user in
            sounds(instance, { user, sound in Declarations.receive(user) { DeclaredSound.checked(sound) } }, user)
        }
        let named = Set(inputFiles)
        let unnamed = received.elements.filter { !named.contains($0.file) }.map {
            "its sound \($0.file) is not a file its input_files names; name it there too"
        }
        let problems = received.problems + unnamed
        guard problems.isEmpty else {
            throw PluginCallError(status: Int32(RF_ERROR_PARAMS.rawValue), message: problems.joined(separator: "\n"))
        }
        return received.elements
    }

    /// Asks a new instance for its items' moments (ABI `moments`): each checked; a refusal tells the first 8
    /// problems (a plugin may declare a million moments).
    private static func moments(of instance: UnsafeMutableRawPointer, plugin: LoadedPlugin)
        throws(PluginCallError) -> [DeclaredMoment]
    {
        guard let moments = plugin.moments else { return [] }
        let received = try Declarations<DeclaredMoment>.collect(
            "moments", limit: DeclaredMoment.perLayer, maxProblems: 8, plugin: plugin
        ) { user in
            moments(instance, { user, moment in Declarations.receive(user) { DeclaredMoment.checked(moment) } }, user)
        }
        guard received.problems.isEmpty else {
            throw PluginCallError(
                status: Int32(RF_ERROR_PARAMS.rawValue), message: received.problems.joined(separator: "\n"))
        }
        return received.elements
    }

    /// Has a new instance verify its input (ABI `verify`); a refusal reads like create's, one problem per line.
    private static func verify(_ instance: UnsafeMutableRawPointer, plugin: LoadedPlugin) throws(PluginCallError) {
        guard let verify = plugin.verify else { return }
        let (status, message) = withMessageBuffer(capacity: createMessageCapacity) { buffer, capacity in
            plugin.reportingFaults(frame: -1) { verify(instance, buffer, capacity) }
        }
        guard status == Int32(RF_OK.rawValue) else {
            throw PluginCallError(
                status: status, message: message.isEmpty ? "verify failed (status \(status))" : message)
        }
    }

    /// Runs `call` with an `rf_write_fn` and its `user` pointer that hand `receive` each piece the
    /// plugin writes, in order (`trace`, `input_files`).
    private static func receivingWrites(
        _ receive: (UnsafeRawBufferPointer) -> Void, _ call: (rf_write_fn, UnsafeMutableRawPointer) -> Int32
    ) -> Int32 {
        withoutActuallyEscaping(receive) { receive in
            final class Receiver {
                package let receive: (UnsafeRawBufferPointer) -> Void
                package init(_ receive: @escaping (UnsafeRawBufferPointer) -> Void) { self.receive = receive }
            }
            let receiver = Receiver(receive)
            return withExtendedLifetime(receiver) {
                call(
                    { user, text, length in
                        guard let user, let text else { return }
                        Unmanaged<Receiver>.fromOpaque(user).takeUnretainedValue()
                            .receive(UnsafeRawBufferPointer(start: text, count: length))
                    }, Unmanaged.passUnretained(receiver).toOpaque())
            }
        }
    }

    deinit { plugin.descriptor.pointee.destroy?(handle) }

    /// Draws `frame` on `cr`; returns the plugin's message on failure.
    package func render(on cr: OpaquePointer, frame: rf_frame) -> PluginCallError? {
        if let error = preparedForAnyFrame() { return error }
        var frame = frame
        let (status, message) = Self.withMessageBuffer { buffer, capacity in
            let call = {
                self.plugin.reportingFaults(frame: Int(frame.index)) {
                    self.plugin.descriptor.pointee.render?(self.handle, cr, &frame, buffer, capacity) ?? -1
                }
            }
            return serialized(call)
        }
        guard status != Int32(RF_OK.rawValue) else { return nil }
        return PluginCallError(status: status, message: message.isEmpty ? "render failed (status \(status))" : message)
    }

    /// Tells the instance which frames this run asks for (ABI `prepare`, or `prepare_with_cache`
    /// with `cache`, the folder it may keep files in), once: a later call for frames inside the
    /// first range does nothing, one outside it fails, and after a failed `prepare` every call
    /// fails with its error.
    package func prepare(frames: ClosedRange<Int>, cache: String? = nil) throws(PluginCallError) {
        let outcome: PluginCallError? = preparation.withLock { state in
            guard case .ready(let range) = state else { return prepare(&state, frames: frames, cache: cache) }
            guard range.contains(frames.lowerBound), range.contains(frames.upperBound) else {
                return PluginCallError(
                    status: Int32(RF_ERROR_PARAMS.rawValue),
                    message: "prepared for frames \(range.lowerBound)-\(range.upperBound), asked for "
                        + "\(frames.lowerBound)-\(frames.upperBound)")
            }
            return nil
        }
        if let outcome { throw outcome }
    }

    /// Before a call for any frame: prepares for the whole job when nobody prepared the instance
    /// for a part of it (tools that draw any frame: the studio, `plugin check`); the error of a
    /// failed `prepare`, every time.
    private func preparedForAnyFrame() -> PluginCallError? {
        preparation.withLock { state in
            switch state {
            case .ready: return nil
            case .pending where frameCount == 0: return nil
            case .pending, .failed: return prepare(&state, frames: 0...(frameCount - 1))
            }
        }
    }

    /// Calls the plugin's `prepare` unless `state` says it ran (then its error, if it failed), and
    /// records how it ended. Runs under the `preparation` lock, so it happens once.
    private func prepare(_ state: inout Preparation, frames: ClosedRange<Int>, cache: String? = nil)
        -> PluginCallError?
    {
        switch state {
        case .ready: return nil
        case .failed(let error): return error
        case .pending: break
        }
        let first = UInt32(clamping: frames.lowerBound)
        let last = UInt32(clamping: frames.upperBound)
        let call: ((UnsafeMutablePointer<CChar>, Int) -> Int32)
        if let prepareWithCache = plugin.prepareWithCache {
            call = { buffer, capacity in
                guard let cache else { return prepareWithCache(self.handle, first, last, nil, buffer, capacity) }
                return cache.withCString { prepareWithCache(self.handle, first, last, $0, buffer, capacity) }
            }
        } else if let prepare = plugin.prepare {
            call = { buffer, capacity in prepare(self.handle, first, last, buffer, capacity) }
        } else {
            state = .ready(frames)
            return nil
        }
        let (status, message) = Self.withMessageBuffer(capacity: Self.createMessageCapacity) { buffer, capacity in
            plugin.reportingFaults(frame: -1) { call(buffer, capacity) }
        }
        guard status == Int32(RF_OK.rawValue) else {
            let error = PluginCallError(
                status: status, message: message.isEmpty ? "prepare failed (status \(status))" : message)
            state = .failed(error)
            return error
        }
        state = .ready(frames)
        return nil
    }

    /// The plugin's key for what it draws at `frame` (ABI `frame_key`), or nil when it has none.
    package func frameKey(frame: rf_frame) -> [UInt8]? {
        guard let frameKey = plugin.frameKey, preparedForAnyFrame() == nil else { return nil }
        var frame = frame
        var key = [UInt8](repeating: 0, count: Int(RF_FRAME_KEY_SIZE))
        let call = {
            key.withUnsafeMutableBufferPointer { buffer in
                self.plugin.reportingFaults(frame: Int(frame.index)) {
                    frameKey(self.handle, &frame, buffer.baseAddress)
                }
            }
        }
        return serialized(call) == Int32(RF_OK.rawValue) ? key : nil
    }

    /// Runs a call into the instance as the plugin's declared thread safety allows.
    private func serialized(_ call: () -> Int32) -> Int32 {
        switch plugin.info.threadSafety {
        case .full: call()
        case .instance: instanceLock.withLock { _ in call() }
        case .unsafe: plugin.pluginLock.withLock { _ in call() }
        }
    }

    /// The plugin's trace output for `frame` (a JSON array), or an error.
    package func trace(frame: rf_frame) -> Result<JSONValue, PluginCallError> {
        guard let trace = plugin.descriptor.pointee.trace else {
            return .failure(PluginCallError(status: Int32(RF_ERROR_UNSUPPORTED.rawValue), message: "cannot trace"))
        }
        if let error = preparedForAnyFrame() { return .failure(error) }
        var frame = frame
        var bytes: [UInt8] = []
        let status = plugin.reportingFaults(frame: Int(frame.index)) {
            Self.receivingWrites({ bytes.append(contentsOf: $0) }) { trace(handle, &frame, $0, $1) }
        }
        guard status == Int32(RF_OK.rawValue) else {
            return .failure(PluginCallError(status: status, message: "trace failed (status \(status))"))
        }
        do {
            return .success(
                try JSONParser.parse(
                    bytes,
                    limits: .init(
                        maxBytes: 1 << 28, maxDepth: 64,
                        maxStringBytes: 1 << 20, maxContainerCount: 10_000_000)))
        } catch {
            return .failure(PluginCallError(status: -1, message: "trace output is not JSON: \(error)"))
        }
    }

    private static func withMessageBuffer(
        capacity: Int = messageCapacity, _ body: (UnsafeMutablePointer<CChar>, Int) -> Int32
    ) -> (Int32, String) {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
            guard let base = buffer.baseAddress else { return (-1, "no memory for a message") }
            base[0] = 0
            let status = body(base, capacity)
            base[capacity - 1] = 0
            let message = String(decoding: UnsafeRawBufferPointer(start: base, count: strlen(base)), as: UTF8.self)
            return (status, message)
        }
    }
}

/// A plugin function returned an error status; `message` is the plugin's own text.
package struct PluginCallError: Error, Equatable, CustomStringConvertible {
    package var status: Int32
    package var message: String
    package var description: String { message }

    package init(status: Int32, message: String) {
        self.status = status
        self.message = message
    }

    /// Whether the plugin answered `RF_ERROR_UNSUPPORTED`: from an optional function, "not offered".
    package var isUnsupported: Bool { status == Int32(RF_ERROR_UNSUPPORTED.rawValue) }

    /// The problems of the message, one per line (plugins report several at once, one per line).
    package var problems: [String] { Self.lines(message) }

    package static func lines(_ message: String) -> [String] {
        message.split(separator: "\n").map(String.init).filter { !$0.allSatisfy(\.isWhitespace) }
    }
}

/// What a plugin hands the host one callback at a time (ABI `sounds`, `moments`): each checked as it
/// arrives, at most `limit` kept, and the problems in order. The C callback finds it through its `user`
/// pointer (`receive`).
private final class Declarations<Element> {
    let noun: String
    let limit: Int
    let maxProblems: Int
    var elements: [Element] = []
    var problems: [String] = []

    private init(noun: String, limit: Int, maxProblems: Int) {
        self.noun = noun
        self.limit = limit
        self.maxProblems = maxProblems
    }

    /// Runs `call` with the `user` pointer its callback passes to `receive`, under the plugin's fault report;
    /// what it declared and what was wrong with it, or an error when the call itself failed.
    static func collect(
        _ noun: String, limit: Int, maxProblems: Int = .max, plugin: LoadedPlugin,
        call: (UnsafeMutableRawPointer) -> Int32
    ) throws(PluginCallError) -> Declarations {
        let received = Declarations(noun: noun, limit: limit, maxProblems: maxProblems)
        let status = withExtendedLifetime(received) {
            plugin.reportingFaults(frame: -1) { call(Unmanaged.passUnretained(received).toOpaque()) }
        }
        guard status == Int32(RF_OK.rawValue) else {
            throw PluginCallError(status: status, message: "its \(noun) call failed (status \(status))")
        }
        return received
    }

    /// One declaration, from the C callback: checked (only while fewer than `limit` are kept) and kept, or its
    /// problem noted.
    static func receive(_ user: UnsafeMutableRawPointer?, _ checked: () -> Result<Element, DeclaredSound.Problem>) {
        guard let user else { return }
        let received = Unmanaged<Declarations>.fromOpaque(user).takeUnretainedValue()
        guard received.elements.count < received.limit else {
            if received.problems.isEmpty {
                received.problems.append("it declares more than \(received.limit) \(received.noun)")
            }
            return
        }
        switch checked() {
        case .success(let element): received.elements.append(element)
        case .failure(let problem):
            if received.problems.count < received.maxProblems { received.problems.append(problem.message) }
        }
    }
}
