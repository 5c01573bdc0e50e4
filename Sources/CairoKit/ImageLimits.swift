/// How large a PNG read from disk may be: its file, each side and its pixel count, checked on the file's
/// size and its IHDR header before anything is decoded, and its image data against the size the header
/// declares (`PNGImageData`: a decompression bomb is refused before cairo inflates it).
public struct ImageLimits: Sendable, Equatable {
    public var maxFileBytes: Int
    public var maxSide: Int
    public var maxPixels: Int
    /// Whether the image data is inflated once, output discarded, before cairo decodes it, and refused as soon
    /// as it gives more than the declared rows (`PNGImageData`); its size is held to them in every case.
    public var inflateBudget: Bool

    public init(maxFileBytes: Int, maxSide: Int, maxPixels: Int, inflateBudget: Bool = false) {
        self.maxFileBytes = maxFileBytes
        self.maxSide = maxSide
        self.maxPixels = maxPixels
        self.inflateBudget = inflateBudget
    }

    /// Images a job names (item pictures): 8192 px a side and 16,777,216 pixels (64 MiB decoded), files
    /// up to 64 MiB, inflated against their size first.
    public static let assets = ImageLimits(
        maxFileBytes: 64 << 20, maxSide: 8192, maxPixels: 1 << 24, inflateBudget: true)

    /// What a cairo image surface can hold at all (32767 px a side); files up to 1 GiB.
    public static let surface = ImageLimits(maxFileBytes: 1 << 30, maxSide: 32767, maxPixels: 1 << 28)

    /// Why a `width` × `height` image is over these limits, or nil when it is within them.
    public func excess(width: Int, height: Int) -> String? {
        if width > maxSide || height > maxSide { return "the limit is \(maxSide) pixels a side" }
        if width * height > maxPixels { return "the limit is \(maxPixels) pixels" }
        return nil
    }
}
