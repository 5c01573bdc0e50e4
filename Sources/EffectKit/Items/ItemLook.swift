import CairoKit
import FileInput
import StrictJSON

/// The built-in looks of a dropped or bouncing item.
public enum ItemShape: String, Sendable, CaseIterable {
    /// A gift box with a ribbon and a bow.
    case gift
    /// A gold coin (collides as a circle).
    case coin
    /// A heart outline like the floating heart's.
    case heart
    /// A filled disc (collides as a circle).
    case circle
    /// A plain rounded square.
    case box
    /// A PNG named by the `image` parameter.
    case image

    /// The choices as the parameter tables list them.
    public static var names: [String] { allCases.map(\.rawValue) }
}

/// How an item looks: a shape, an optional colour and an optional image, decided in `create`.
public struct ItemLook: Sendable {
    public var shape: ItemShape
    /// The main colour; nil uses the shape's own.
    public var color: Color?
    /// The picture drawn instead of the shape, when the job names one.
    public var image: SharedImage?
    /// What identifies the picture for frame keys: its path and a digest of the file's bytes, so a key
    /// changes with the content and only with it (`RF_PLUGIN_KEYS_COVER_INPUTS`; touching the file changes
    /// nothing).
    public var imageSource: String?
    /// The picture's file (absolute, links resolved): one of the effect's ``Effect/inputFiles``.
    public var imageFile: String?

    public init(
        shape: ItemShape, color: Color? = nil, image: SharedImage? = nil, imageSource: String? = nil,
        imageFile: String? = nil
    ) {
        self.shape = shape
        self.color = color
        self.image = image
        self.imageSource = imageSource
        self.imageFile = imageFile
    }

    /// The image files of `looks`, each once, in order: what an effect drawing them reports as
    /// its ``Effect/inputFiles``.
    public static func imageFiles(of looks: some Sequence<ItemLook>) -> [String] {
        var seen: Set<String> = []
        return looks.compactMap(\.imageFile).filter { seen.insert($0).inserted }
    }

    /// Combines what the look draws into a frame key (see ``FrameKey/Hasher``).
    public func combine(into key: inout FrameKey.Hasher) {
        key.combine(shape.rawValue)
        key.combine(color)
        key.combine(imageSource ?? "")
    }

    /// The collision outline for an item of `size`: coins and circles are discs, the rest boxes.
    public func body(size: Size) -> PhysicsBody {
        switch shape {
        case .coin, .circle: .circle(diameter: min(size.width, size.height))
        case .gift, .heart, .box, .image: .box(size)
        }
    }
}

/// Loads the images a layer names, through `ImageCache`: each file is decoded once per job and resampled
/// once per size it is drawn at (only used inside `create`).
public struct ItemLookLoader {
    private let jobDirectory: String
    /// Pixels per point: what turns an item's size into the size its image is drawn at.
    private let scale: Double

    public init(jobDirectory: String, scale: Double = 1) {
        self.jobDirectory = jobDirectory
        self.scale = scale
    }

    /// A loader for the layer `context` describes.
    public init(context: EffectContext) {
        self.init(jobDirectory: context.jobDirectory, scale: context.scale)
    }

    /// The look for `shape` (a name) and optional `image` path and colour, for items of `size` points
    /// (nil: the image is kept at its own size). `prefix` is put before the parameter names in errors,
    /// e.g. "items[2]." gives "items[2].shape: unknown shape"; `imageParameter` names where the path came
    /// from when that is not `prefix + "image"` (a layer-wide default).
    public func look(
        shape name: String, image path: String?, color: Color?, size: Size? = nil, prefix: String = "",
        imageParameter: String? = nil
    ) throws(EffectError) -> ItemLook {
        guard let shape = ItemShape(rawValue: name) else {
            throw EffectError(
                parameter: prefix + "shape",
                "unknown shape \"\(name)\"" + Suggestion.hint(for: name, in: ItemShape.names)
                    + "; allowed: \(ItemShape.names.joined(separator: ", "))")
        }
        guard let path else {
            if shape == .image {
                throw EffectError(parameter: prefix + "image", "missing: shape \"image\" needs a PNG path")
            }
            return ItemLook(shape: shape, color: color)
        }
        let (image, source, file) = try image(path, size: size, parameter: imageParameter ?? prefix + "image")
        return ItemLook(shape: shape, color: color, image: image, imageSource: source, imageFile: file)
    }

    private func image(_ path: String, size: Size?, parameter: String) throws(EffectError)
        -> (SharedImage, source: String, file: String)
    {
        let resolved = try AssetPath.resolve(path, in: jobDirectory, parameter: parameter)
        let pixels = size.map { (width: Self.pixels($0.width * scale), height: Self.pixels($0.height * scale)) }
        do {
            // The path is resolved and confined already: a link swapped in since is refused, not followed.
            let file = try InputFile(resolved, followLastLink: false)
            let (image, digest) = try ImageCache.image(file, drawnAt: pixels)
            guard image.width > 0, image.height > 0 else { throw EffectError(parameter: parameter, "\(path) is empty") }
            return (image, "\(resolved) \(digest)", resolved)
        } catch let error as InputFileError {
            throw EffectError(parameter: parameter, error.message(naming: path))
        } catch let error as ImageFileError {
            throw EffectError(parameter: parameter, error.message(naming: path))
        } catch let error as EffectError {
            throw error
        } catch {
            throw EffectError(parameter: parameter, "\(path) cannot be read")
        }
    }

    /// Whole pixels covering `length` (at least 1, and never beyond what cairo can draw): the size an image
    /// drawn `length` pixels wide is resampled to.
    public static func pixels(_ length: Double) -> Int {
        guard length.isFinite else { return 1 }
        return Int(min(max(length.rounded(.up), 1), 32767))
    }
}
