import CairoKit
import Foundation
import RenderFarmPluginABI

/// Exports one Swift `Effect` through the C ABI of `renderfarm_plugin.h`.
///
/// A plugin library holds exactly one of these in a global and returns its descriptor from
/// `rf_plugin_main`:
///
/// ```swift
/// private let export = PluginExport(FloatingHeart.self)
///
/// @_cdecl("rf_plugin_main")
/// public func rf_plugin_main(_ hostVersion: UInt32) -> UnsafeRawPointer? {
///     export.descriptor(forHost: hostVersion)
/// }
/// ```
///
/// The effect type lives in the export itself, reached through the descriptor's `plugin_data`
/// that the host hands back to `create_with_plugin`: no global decides which effect a library
/// builds, so any number of Swift plugins (each with its own copy of EffectKit, or sharing one)
/// load into one process and each builds its own effect.
///
/// Unsafe code is confined here: the descriptor's C strings and tables are allocated once and
/// never freed (the host keeps plugins loaded for the life of the process), and instances
/// cross the boundary as retained `Unmanaged` boxes that only this file creates and releases.
public final class PluginExport: Sendable {
    // Immutable after init; the pointers refer to memory that is never written again.
    nonisolated(unsafe) private let plugin: UnsafeMutablePointer<rf_plugin>
    /// The effect `create_with_plugin` builds for this export's descriptor.
    let effect: any Effect.Type
    /// The descriptor's `plugin_dir` variable: the host writes the library's folder into it before any create.
    nonisolated(unsafe) private let folder: UnsafeMutablePointer<UnsafePointer<CChar>?>

    public init(_ effect: any Effect.Type) {
        self.effect = effect
        let descriptor = effect.descriptor
        let table = UnsafeMutablePointer<rf_param>.allocate(capacity: max(1, descriptor.parameters.count))
        for (index, spec) in descriptor.parameters.enumerated() {
            let choices = spec.type.choicesText.map(Self.permanent)
            table[index] = rf_param(
                name: Self.permanent(spec.name),
                type: spec.type.abiValue,
                default_json: spec.defaultValue.map { Self.permanent($0.serialized()) },
                min: spec.range.lowerBound,
                max: spec.range.upperBound,
                choices: choices,
                doc: Self.permanent(spec.doc),
                flags: spec.defaultValue == nil ? UInt32(RF_PARAM_OPTIONAL) : 0
            )
        }
        let safety: rf_thread_safety =
            switch descriptor.threadSafety {
            case .full: RF_THREADS_FULL
            case .instance: RF_THREADS_INSTANCE
            case .unsafe: RF_THREADS_UNSAFE
            }
        // No generic code touches the descriptor: Swift shares an imported C struct's type metadata
        // between every library in the process, and a plugin built against another version of the
        // header would give generic code (an unspecialised `allocate` or `initialize`) its size.
        // The raw allocation and the store through `pointee` use this library's own layout.
        folder = UnsafeMutablePointer.allocate(capacity: 1)
        folder.initialize(to: nil)
        plugin = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<rf_plugin>.size, alignment: MemoryLayout<rf_plugin>.alignment
        ).assumingMemoryBound(to: rf_plugin.self)
        plugin.pointee =
            rf_plugin(
                abi_version: RF_ABI_VERSION,
                struct_size: UInt32(MemoryLayout<rf_plugin>.size),
                id: Self.permanent(descriptor.id),
                identifier: Self.permanent(descriptor.identifier),
                version: Self.permanent(descriptor.version),
                summary: Self.permanent(descriptor.summary),
                thread_safety: safety,
                params: UnsafePointer(table),
                param_count: UInt32(descriptor.parameters.count),
                create: exportedCreate,
                render: exportedRender,
                // Optional in the ABI: only an effect that traces offers it (NULL reads as "not offered").
                trace: effect is any TracingEffect.Type ? exportedTrace : nil,
                destroy: exportedDestroy,
                flags: (descriptor.frameInvariant ? RF_PLUGIN_FRAME_INVARIANT : 0)
                    | (descriptor.keysCoverInputFiles ? RF_PLUGIN_KEYS_COVER_INPUTS : 0)
                    | (descriptor.keysCoverParameters ? RF_PLUGIN_KEYS_COVER_PARAMS : 0),
                create_with_plugin: exportedCreateWithPlugin,
                plugin_data: nil,
                prepare: exportedPrepare,
                frame_key: exportedFrameKey,
                prepare_with_cache: exportedPrepareWithCache,
                input_files: exportedInputFiles,
                verify: exportedVerify,
                plugin_dir: folder,
                sounds: exportedSounds,
                moments: exportedMoments
            )
        // The descriptor points back at its export, which lives as long as the process (it is
        // retained here and never released, like the descriptor itself).
        plugin.pointee.plugin_data = UnsafeRawPointer(Unmanaged.passRetained(self).toOpaque())
    }

    /// The export whose descriptor is `plugin` (set in `init`, never changed).
    fileprivate static func owner(of plugin: UnsafePointer<rf_plugin>?) -> PluginExport? {
        guard let data = plugin?.pointee.plugin_data else { return nil }
        return Unmanaged<PluginExport>.fromOpaque(data).takeUnretainedValue()
    }

    /// The folder that holds the plugin's library, as the host wrote it (nil for a host older than `plugin_dir`).
    var pluginDirectory: String? { folder.pointee.map { String(cString: $0) } }

    /// The descriptor for a host speaking `hostVersion`, or nil when this plugin cannot serve it.
    public func descriptor(forHost hostVersion: UInt32) -> UnsafeRawPointer? {
        hostVersion == RF_ABI_VERSION ? UnsafeRawPointer(plugin) : nil
    }

    private static func permanent(_ text: String) -> UnsafePointer<CChar> {
        // Copied once per descriptor string and intentionally never freed (see the type's comment).
        let bytes = Array(text.utf8CString)
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        copy.initialize(from: bytes, count: bytes.count)
        return UnsafePointer(copy)
    }
}

/// Owns one effect instance on the other side of the C boundary. `effect` changes only in
/// `prepare`, which the host calls before any other use of the instance, from one thread.
private final class EffectBox {
    var effect: any Effect
    init(_ effect: any Effect) { self.effect = effect }
}

private func writeMessage(_ message: String, to buffer: UnsafeMutablePointer<CChar>?, capacity: Int) {
    guard let buffer, capacity > 0 else { return }
    var bytes = Array(message.utf8.prefix(capacity - 1))
    // Several problems are one per line: a message that does not fit loses whole lines, not half of one.
    if bytes.count < message.utf8.count, let lastBreak = bytes.lastIndex(of: UInt8(ascii: "\n")) {
        bytes.removeSubrange(lastBreak...)
    }
    for (index, byte) in bytes.enumerated() { buffer[index] = CChar(bitPattern: byte) }
    buffer[bytes.count] = 0
}

private func box(_ instance: UnsafeMutableRawPointer?) -> EffectBox? {
    guard let instance else { return nil }
    return Unmanaged<EffectBox>.fromOpaque(instance).takeUnretainedValue()
}

/// `create` for hosts that do not pass the descriptor: the effect cannot be known without it.
private let exportedCreate:
    @convention(c) (
        UnsafePointer<rf_create_args>?, UnsafePointer<rf_context>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
        UnsafeMutablePointer<CChar>?, Int
    ) -> Int32 = { _, _, _, err, errlen in
        writeMessage(
            "create: this Swift plugin needs a host that calls create_with_plugin (a newer renderfarm)",
            to: err, capacity: errlen)
        return Int32(RF_ERROR_UNSUPPORTED.rawValue)
    }

private let exportedCreateWithPlugin:
    @convention(c) (
        UnsafePointer<rf_plugin>?, UnsafePointer<rf_create_args>?, UnsafePointer<rf_context>?,
        UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutablePointer<CChar>?, Int
    ) -> Int32 = { plugin, args, context, out, err, errlen in
        guard let args, let context, let out, let json = args.pointee.params_json else {
            writeMessage("create: missing arguments", to: err, capacity: errlen)
            return Int32(RF_ERROR_PARAMS.rawValue)
        }
        guard let export = PluginExport.owner(of: plugin) else {
            writeMessage("create: the descriptor is not an EffectKit export", to: err, capacity: errlen)
            return Int32(RF_ERROR_UNSUPPORTED.rawValue)
        }
        let ctx = context.pointee
        let effectContext = EffectContext(
            width: ctx.width, height: ctx.height, scale: ctx.scale, fps: ctx.fps, duration: ctx.duration,
            frameCount: Int(ctx.frame_count), layerStart: ctx.layer_start, seed: ctx.seed,
            jobDirectory: ctx.job_dir.map { String(cString: $0) } ?? ".", pluginDirectory: export.pluginDirectory
        )
        do {
            let parameters = try EffectParameters(json: String(cString: json))
            let effect = try export.effect.init(parameters: parameters, context: effectContext)
            out.pointee = Unmanaged.passRetained(EffectBox(effect)).toOpaque()
            // Warnings travel in the error buffer of a successful create, one per line (renderfarm_plugin.h).
            writeMessage(effect.warnings.map(\.description).joined(separator: "\n"), to: err, capacity: errlen)
            return Int32(RF_OK.rawValue)
        } catch {
            writeMessage("\(error)", to: err, capacity: errlen)
            return Int32(RF_ERROR_PARAMS.rawValue)
        }
    }

private let exportedRender:
    @convention(c) (
        UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<rf_frame>?, UnsafeMutablePointer<CChar>?, Int
    ) -> Int32 = { instance, cr, frame, err, errlen in
        guard let effect = box(instance)?.effect, let cr, let frame else {
            writeMessage("render: missing arguments", to: err, capacity: errlen)
            return Int32(RF_ERROR_RENDER.rawValue)
        }
        let time = FrameTime(frame.pointee)
        do {
            try effect.render(in: DrawingContext(borrowing: cr), at: time)
            return Int32(RF_OK.rawValue)
        } catch {
            writeMessage("\(error)", to: err, capacity: errlen)
            return Int32(RF_ERROR_RENDER.rawValue)
        }
    }

private let exportedTrace:
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafePointer<rf_frame>?, rf_write_fn?, UnsafeMutableRawPointer?
    ) -> Int32 = { instance, frame, write, user in
        guard let effect = box(instance)?.effect, let frame, let write else { return Int32(RF_ERROR_RENDER.rawValue) }
        guard let tracing = effect as? any TracingEffect else { return Int32(RF_ERROR_UNSUPPORTED.rawValue) }
        guard let items = tracing.trace(at: FrameTime(frame.pointee)) else { return Int32(RF_ERROR_RENDER.rawValue) }
        let text = JSONValue.array(items.map(\.json)).serialized()
        text.withCString { write(user, $0, strlen($0)) }
        return Int32(RF_OK.rawValue)
    }

private let exportedPrepare:
    @convention(c) (UnsafeMutableRawPointer?, UInt32, UInt32, UnsafeMutablePointer<CChar>?, Int) -> Int32 = {
        instance, first, last, err, errlen in
        prepare(instance, first, last, cache: nil, err, errlen)
    }

private let exportedPrepareWithCache:
    @convention(c) (
        UnsafeMutableRawPointer?, UInt32, UInt32, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int
    ) -> Int32 = { instance, first, last, cacheFolder, err, errlen in
        let cache = cacheFolder.map { EffectCache(folder: String(cString: $0)) }
        return prepare(instance, first, last, cache: cache, err, errlen)
    }

/// ABI `prepare` and `prepare_with_cache`: the effect's `prepare(frames:cache:)`.
private func prepare(
    _ instance: UnsafeMutableRawPointer?, _ first: UInt32, _ last: UInt32, cache: EffectCache?,
    _ err: UnsafeMutablePointer<CChar>?, _ errlen: Int
) -> Int32 {
    guard let box = box(instance), first <= last else {
        writeMessage("prepare: missing instance or first frame after last", to: err, capacity: errlen)
        return Int32(RF_ERROR_PARAMS.rawValue)
    }
    do {
        try box.effect.prepare(frames: Int(first)...Int(last), cache: cache)
        return Int32(RF_OK.rawValue)
    } catch {
        writeMessage("\(error)", to: err, capacity: errlen)
        return Int32(RF_ERROR_PARAMS.rawValue)
    }
}

private let exportedFrameKey:
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<rf_frame>?, UnsafeMutablePointer<UInt8>?) -> Int32 = {
        instance, frame, key in
        guard let effect = box(instance)?.effect, let frame, let key else { return Int32(RF_ERROR_RENDER.rawValue) }
        let time = FrameTime(frame.pointee)
        guard let frameKey = effect.frameKey(at: time) else { return Int32(RF_ERROR_UNSUPPORTED.rawValue) }
        for (index, byte) in frameKey.bytes.enumerated() { key[index] = byte }
        return Int32(RF_OK.rawValue)
    }

private let exportedInputFiles:
    @convention(c) (UnsafeMutableRawPointer?, rf_write_fn?, UnsafeMutableRawPointer?) -> Int32 = {
        instance, write, user in
        guard let effect = box(instance)?.effect, let write else { return Int32(RF_ERROR_PARAMS.rawValue) }
        for file in effect.inputFiles { file.withCString { write(user, $0, strlen($0)) } }
        return Int32(RF_OK.rawValue)
    }

private let exportedSounds: @convention(c) (UnsafeMutableRawPointer?, rf_sound_fn?, UnsafeMutableRawPointer?) -> Int32 =
    {
        instance, add, user in
        guard let effect = box(instance)?.effect, let add else { return Int32(RF_ERROR_PARAMS.rawValue) }
        for sound in effect.sounds {
            sound.file.withCString { file in
                var declared = rf_sound(
                    struct_size: UInt32(MemoryLayout<rf_sound>.size), file: file,
                    stream: Int32(clamping: sound.stream ?? -1),
                    gain: sound.gain, start: sound.start, source_start: sound.sourceStart,
                    source_length: sound.sourceLength, speed: sound.speed, loop: sound.loops ? 1 : 0)
                add(user, &declared)
            }
        }
        return Int32(RF_OK.rawValue)
    }

private let exportedMoments:
    @convention(c) (UnsafeMutableRawPointer?, rf_moment_fn?, UnsafeMutableRawPointer?) -> Int32 = {
        instance, add, user in
        guard let effect = box(instance)?.effect, let add else { return Int32(RF_ERROR_PARAMS.rawValue) }
        for moment in effect.moments {
            moment.name.withCString { name in
                var declared = rf_moment(
                    struct_size: UInt32(MemoryLayout<rf_moment>.size), item: UInt32(clamping: moment.item), name: name,
                    time: moment.time)
                add(user, &declared)
            }
        }
        return Int32(RF_OK.rawValue)
    }

private let exportedVerify: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, Int) -> Int32 = {
    instance, err, errlen in
    guard let box = box(instance) else {
        writeMessage("verify: missing instance", to: err, capacity: errlen)
        return Int32(RF_ERROR_PARAMS.rawValue)
    }
    do {
        try box.effect.verify()
        return Int32(RF_OK.rawValue)
    } catch {
        writeMessage("\(error)", to: err, capacity: errlen)
        return Int32(RF_ERROR_PARAMS.rawValue)
    }
}

private let exportedDestroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { instance in
    guard let instance else { return }
    Unmanaged<EffectBox>.fromOpaque(instance).release()
}

extension FrameTime {
    /// The frame the host passed through the ABI.
    fileprivate init(_ frame: rf_frame) {
        self.init(index: Int(frame.index), time: frame.time, local: frame.local)
    }
}
