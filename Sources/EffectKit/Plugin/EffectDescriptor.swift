import CairoKit
import RenderFarmPluginABI
import StrictJSON

/// The value type of a parameter, mirroring `rf_param_type` in the ABI header.
public enum ParameterType: Sendable, Equatable {
    case number, integer, bool, color, point, rect, string, size, numberList, json
    /// `["#RRGGBB", …]`; the range bounds the number of colours.
    case colorList
    case choice([String])
    /// Timed events with these fields besides `time`; the host reads and checks the job's file
    /// or list and hands the plugin a JSON list sorted by time (`RF_PARAM_EVENTS`).
    case events([EventField])

    /// The `choices` text of the ABI's parameter row, when the type has one.
    var choicesText: String? {
        switch self {
        case .choice(let values): values.joined(separator: "|")
        case .events(let fields): fields.map(\.schema).joined(separator: "|")
        default: nil
        }
    }

    var abiValue: rf_param_type {
        switch self {
        case .number: RF_PARAM_NUMBER
        case .integer: RF_PARAM_INTEGER
        case .bool: RF_PARAM_BOOL
        case .color: RF_PARAM_COLOR
        case .point: RF_PARAM_POINT
        case .rect: RF_PARAM_RECT
        case .string: RF_PARAM_STRING
        case .choice: RF_PARAM_ENUM
        case .size: RF_PARAM_SIZE
        case .numberList: RF_PARAM_NUMBER_LIST
        case .json: RF_PARAM_JSON
        case .colorList: RF_PARAM_COLOR_LIST
        case .events: RF_PARAM_EVENTS
        }
    }
}

/// One field of an effect's events besides `time`, e.g. a heart's `color`.
public struct EventField: Sendable, Equatable {
    public var name: String
    /// number, integer, bool, color, point, size or string; or `.choice` for an enum.
    public var type: ParameterType

    public init(_ name: String, _ type: ParameterType) {
        self.name = name
        self.type = type
    }

    /// `name:type`, as the ABI's `choices` text declares the field.
    var schema: String {
        switch type {
        case .choice(let values): "\(name):enum=\(values.joined(separator: "/"))"
        case .integer: "\(name):integer"
        case .bool: "\(name):bool"
        case .color: "\(name):color"
        case .point: "\(name):point"
        case .size: "\(name):size"
        case .string: "\(name):string"
        case .json: "\(name):json"
        default: "\(name):number"
        }
    }
}

/// One row of an effect's parameter table.
public struct ParameterSpec: Sendable, Equatable {
    public var name: String
    public var type: ParameterType
    /// The default; nil makes the parameter optional (absent unless the job sets it).
    public var defaultValue: JSONValue?
    public var range: ClosedRange<Double>
    public var doc: String

    public init(
        _ name: String, _ type: ParameterType, default defaultValue: JSONValue?,
        range: ClosedRange<Double> = -Double.infinity...Double.infinity, doc: String
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.range = range
        self.doc = doc
    }
}

/// How the host may call `render` concurrently (`rf_thread_safety`).
public enum ThreadSafety: Sendable {
    case full, instance, unsafe
}

/// What an effect tells the host about itself.
public struct EffectDescriptor: Sendable {
    public var id: String
    public var identifier: String
    public var version: String
    public var summary: String
    public var threadSafety: ThreadSafety
    public var parameters: [ParameterSpec]
    /// Whether `render` draws the same pixels at every frame (`RF_PLUGIN_FRAME_INVARIANT`): the
    /// host then draws a static bottom layer once per process and copies it into each frame.
    public var frameInvariant: Bool
    /// Whether ``Effect/frameKey(at:)`` changes whenever a file in ``Effect/inputFiles`` does
    /// (`RF_PLUGIN_KEYS_COVER_INPUTS`, as ``ItemLook/combine(into:)`` does for item images): an
    /// edited file then redraws only the frames drawn from it.
    public var keysCoverInputFiles: Bool
    /// Whether ``Effect/frameKey(at:)`` changes whenever a parameter, or the job's duration, changes
    /// what a frame draws (`RF_PLUGIN_KEYS_COVER_PARAMS`): the host then fingerprints keyed frames
    /// from the keys instead of the parameters, so an edit redraws only the frames it changes.
    /// `renderfarm plugin check` proves it by changing each parameter; declare it only then.
    public var keysCoverParameters: Bool

    public init(
        id: String, identifier: String, version: String, summary: String,
        threadSafety: ThreadSafety = .full, frameInvariant: Bool = false, keysCoverInputFiles: Bool = false,
        keysCoverParameters: Bool = false, parameters: [ParameterSpec]
    ) {
        self.keysCoverInputFiles = keysCoverInputFiles
        self.keysCoverParameters = keysCoverParameters
        self.id = id
        self.identifier = identifier
        self.version = version
        self.summary = summary
        self.threadSafety = threadSafety
        self.frameInvariant = frameInvariant
        self.parameters = parameters
    }
}

/// An effect written in Swift. `PluginExport` makes it a C-ABI plugin.
///
/// `init` does all expensive and random work; `render` and `trace` only read, so frames can be
/// drawn on many threads at once and in any order. An effect that can report its items' state
/// conforms to ``TracingEffect`` as well.
public protocol Effect: Sendable {
    static var descriptor: EffectDescriptor { get }
    init(parameters: EffectParameters, context: EffectContext) throws(EffectError)
    func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError)
    /// What `create` noticed that is legal but probably not meant (e.g. items leaving the canvas);
    /// `validate` and `render` print them.
    var warnings: [EffectError] { get }
    /// The frames this run will ask for (ABI `prepare`): called once after `init`, before any
    /// `render`, `trace` or `frameKey`, on one thread. An effect whose plan is costly per frame keeps
    /// state only for these frames. The default does nothing: the effect serves every frame.
    mutating func prepare(frames: ClosedRange<Int>) throws(EffectError)
    /// `prepare(frames:)` with the job's cache folder (ABI `prepare_with_cache`), nil when the run
    /// keeps none. An effect whose preparation costs more the later `frames` lie keeps checkpoints
    /// there (see ``EffectCache`` for the rules). The default ignores the cache.
    mutating func prepare(frames: ClosedRange<Int>, cache: EffectCache?) throws(EffectError)
    /// A key for what `render` draws at `frame` (ABI `frame_key`): equal keys mean equal drawings,
    /// and the key changes whenever the drawing would. Nil (the default) lets the host treat every
    /// frame as different, keyed by the layer's whole configuration.
    func frameKey(at frame: FrameTime) -> FrameKey?
    /// Every file the effect's drawing depends on that it read itself (ABI `input_files`): absolute
    /// paths, or paths relative to the job's folder. The host hashes their content into the
    /// fingerprint of every frame of the layer and lists them in the manifest, so an edit to one
    /// draws the layer again. ``ItemLook/imageFile`` names an item's image; event logs the host reads
    /// need not be named. The default is none.
    var inputFiles: [String] { get }
    /// The sound the layer plays (ABI `sounds`), each of a file in ``inputFiles``. The default is none.
    var sounds: [EffectSound] { get }
    /// The moments things happen to the layer's items (ABI `moments`): an item launched, landed, hit
    /// something. A job's sound can play at them, whatever each item's flight; `renderfarm trace --moments`
    /// lists them. The default is none.
    var moments: [EffectMoment] { get }
    /// Checks of the effect's input too costly to repeat in every process of one run (ABI `verify`),
    /// such as decoding a whole video to find damage its container does not show. Called once per run,
    /// after `init`, on one thread, in the process that checks the job; never in the worker processes of
    /// `render --isolate` and the studio, which draw frames of a job their parent verified, so drawing
    /// must not depend on it. An error refuses the layer as one thrown by `init` does. The default
    /// checks nothing.
    func verify() throws(EffectError)
}

/// An effect that reports the state of its items (ABI `trace`, used by `renderfarm trace`,
/// `preview --debug`, `plugin check` and fidelity tests).
///
/// The trace is optional: ``PluginExport`` sets the ABI's `trace` only for effects of this
/// protocol, so the host lists an effect without it as "trace: no" and leaves its layers out of
/// traces, as it does for a C plugin whose `trace` is NULL.
public protocol TracingEffect: Effect {
    /// The state of every item at `frame`; nil when it cannot be computed (the host reports the
    /// trace of that frame as failed).
    func trace(at frame: FrameTime) -> [TraceItem]?
}

extension Effect {
    public var warnings: [EffectError] { [] }
    public mutating func prepare(frames: ClosedRange<Int>) throws(EffectError) {}
    public mutating func prepare(frames: ClosedRange<Int>, cache: EffectCache?) throws(EffectError) {
        try prepare(frames: frames)
    }
    public func frameKey(at frame: FrameTime) -> FrameKey? { nil }
    public var inputFiles: [String] { [] }
    public var sounds: [EffectSound] { [] }
    public var moments: [EffectMoment] { [] }
    public func verify() throws(EffectError) {}
}
