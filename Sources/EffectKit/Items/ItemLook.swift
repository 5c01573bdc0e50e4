import CairoKit
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

    public init(shape: ItemShape, color: Color? = nil, image: SharedImage? = nil) {
        self.shape = shape
        self.color = color
        self.image = image
    }

    /// The collision outline for an item of `size`: coins and circles are discs, the rest boxes.
    public func body(size: Size) -> PhysicsBody {
        switch shape {
        case .coin, .circle: .circle(diameter: min(size.width, size.height))
        case .gift, .heart, .box, .image: .box(size)
        }
    }
}

/// Loads each image a layer names once, however many items use it (only used inside `create`).
public struct ItemLookLoader {
    private let jobDirectory: String
    private var images: [String: SharedImage] = [:]

    public init(jobDirectory: String) {
        self.jobDirectory = jobDirectory
    }

    /// The look for `shape` (a name) and optional `image` path and colour. `prefix` is put before the
    /// parameter names in errors, e.g. "items[2]." gives "items[2].shape: unknown shape"; `imageParameter`
    /// names where the path came from when that is not `prefix + "image"` (a layer-wide default).
    public mutating func look(
        shape name: String, image path: String?, color: Color?, prefix: String = "", imageParameter: String? = nil
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
        return ItemLook(
            shape: shape, color: color, image: try image(path, parameter: imageParameter ?? prefix + "image"))
    }

    private mutating func image(_ path: String, parameter: String) throws(EffectError) -> SharedImage {
        let resolved = try AssetPath.resolve(path, in: jobDirectory, parameter: parameter)
        if let loaded = images[resolved] { return loaded }
        do {
            let image = try SharedImage(contentsOfPNG: resolved)
            guard image.width > 0, image.height > 0 else { throw EffectError(parameter: parameter, "\(path) is empty") }
            images[resolved] = image
            return image
        } catch let error as CairoError {
            throw EffectError(parameter: parameter, "\(path) is not a readable PNG (\(error))")
        } catch let error as EffectError {
            throw error
        } catch {
            throw EffectError(parameter: parameter, "\(path) cannot be read")
        }
    }
}
